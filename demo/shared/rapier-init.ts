// Rapier's WASM, initialised once per process: the demo server awaits it before its
// first tick, the browser client passes it as the provider's `init` (status 'loading'
// meanwhile). @dimforge/rapier3d-compat 0.19.2's own `init()`
// hands its inlined WASM to the wasm-bindgen loader as a bare argument, and the loader
// answers with console.warn('using deprecated parameters for the initialization
// function; pass a single object instead') on every start: a call inside the package,
// not one we make (there is no other entry point). That one message is dropped while
// init runs; every other warning goes through. Remove this when Rapier's compat build
// calls its loader the new way.
import RAPIER from '@dimforge/rapier3d-compat';

const RAPIER_INIT_WARNING = 'using deprecated parameters for the initialization function; pass a single object instead';

let ready: Promise<void> | undefined;

export function initRapier(): Promise<void> {
  ready ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (args.length === 1 && args[0] === RAPIER_INIT_WARNING) return;
      warn.apply(console, args);
    };
    try {
      await RAPIER.init();
    } finally {
      console.warn = warn;
    }
  })();
  return ready;
}
