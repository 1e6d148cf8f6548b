// Rapier's WASM, initialised once per process: the demo server awaits it before its
// first tick, the browser client passes it as the provider's `init` (status 'loading'
// meanwhile). The library's initRapier drops the deprecation warning Rapier 0.19.2's
// own loader prints on every start.
import RAPIER from '@dimforge/rapier3d-compat';
import { initRapier as init } from '../../src/rapier/init.ts';

export function initRapier(): Promise<void> {
  return init(RAPIER);
}
