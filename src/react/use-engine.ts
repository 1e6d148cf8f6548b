// Internal: the provider's engine behind the context contract, for hooks that need
// more than `{ client, store, frame }` (input samplers, the extended store state).
// Fails with a `react-netcode:` error when another provider filled the context.

import type { Protocol } from '../index.ts';
import { useNetcodeContext } from './context.ts';
import { NetcodeEngine } from './engine.ts';

/**
 * The provider's engine: the context value plus this package's extras (input samplers,
 * the extended store). Internal to react-netcode/react.
 *
 * @param hook the public hook's name, used in the error messages
 * @throws the context's `react-netcode: … must be used inside <NetcodeProvider>` error
 *   outside a provider, and a `react-netcode:` error when the context value was provided
 *   by something other than this package's <NetcodeProvider>.
 */
export function useEngine<P extends Protocol = Protocol>(hook: string): NetcodeEngine<P> {
  const value = useNetcodeContext<P>(hook);
  if (!(value instanceof NetcodeEngine)) {
    throw new Error(
      `react-netcode: ${hook} needs the <NetcodeProvider> of react-netcode/react (the context was provided by something else); render your tree under createNetcode(protocol).NetcodeProvider.`,
    );
  }
  return value as NetcodeEngine<P>;
}
