// useNetworkTime: a ref to the client's NetworkTime (serverTick, predictedTick,
// interpolationTick and their fractions, RTT …). The engine updates that one object
// in place every step, so reading it from a frame callback is always current and
// the component never re-renders because time moved.

import { useMemo } from 'react';
import type { NetworkTime } from '../index.ts';
import { useNetcodeContext } from './context.ts';
import type { LiveRef } from './types.ts';

/**
 * A stable ref to `client.time`, updated in place after each engine step. Read
 * `ref.current` in `useFrame` or `frame.onStep` callbacks; reading it during render
 * shows a value that will not refresh (this hook never re-renders).
 *
 * Fixed tick vs render frame: `predictedTick` advances at the protocol's tick rate
 * (60 Hz by default) whatever the display rate; `predictedFraction` (0–1) says how far
 * the render frame is between the last two predicted ticks (frame interpolation), and
 * `interpolationTick` + `interpolationFraction` where remote ghosts are shown.
 *
 * @example
 * const time = useNetworkTime();
 * useFrame(() => { label.current!.textContent = `tick ${time.current.predictedTick}`; });
 *
 * @throws `react-netcode: useNetworkTime must be used inside <NetcodeProvider> …` outside a provider.
 */
export function useNetworkTime(): LiveRef<Readonly<NetworkTime>> {
  const { client } = useNetcodeContext('useNetworkTime');
  return useMemo(() => ({ current: client.time }), [client]);
}
