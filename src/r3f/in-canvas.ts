// The R3F components' first check: they live in the scene graph and run in R3F's render loop,
// so outside a <Canvas> they say so in react-netcode's words, not with R3F's hook error.

import { context } from '@react-three/fiber';
import { useContext } from 'react';
import { NetcodeError } from '../core/errors.ts';

/** Throws a usage error naming `component` and what to do when it is rendered outside a `<Canvas>`. */
export function useInCanvas(component: string, instead: string): void {
  if (useContext(context) === null) throw new NetcodeError('usage', `react-netcode: ${component} must be rendered inside <Canvas>; ${instead}.`);
}
