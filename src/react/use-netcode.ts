// Raw access to what a <NetcodeProvider> gives its subtree: the client engine, the
// UI-rate store and the frame driver (the contract in context.ts). The other hooks
// build on it; the R3F layer uses the same context to step the engine in useFrame.

import type { Protocol } from '../index.ts';
import { useNetcodeContext, type NetcodeContextValue } from './context.ts';

/**
 * The provider's `{ client, store, frame }`. Use `client` for anything the hooks do not
 * cover (e.g. `client.setGhostMode`), `frame.onStep` to write refs after each step.
 * Reading the store without a selector re-renders on every store change: prefer the hooks.
 *
 * @throws `react-netcode: useNetcode must be used inside <NetcodeProvider> …` outside a provider.
 */
export function useNetcode<P extends Protocol = Protocol>(): NetcodeContextValue<P> {
  return useNetcodeContext<P>('useNetcode');
}
