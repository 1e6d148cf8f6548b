// Rapier's WASM, initialised once per Rapier module. `@dimforge/rapier3d-compat` 0.19.2's
// `init()` hands its inlined WASM to the wasm-bindgen loader as a bare argument, and the
// loader answers with console.warn('using deprecated parameters for the initialization
// function; pass a single object instead') on every start: a call inside the package that
// no caller can make otherwise. That one message is dropped while init runs; every other
// warning goes through.

/** The one message of Rapier's own loader that `initRapier` drops. */
export const RAPIER_INIT_WARNING = 'using deprecated parameters for the initialization function; pass a single object instead';

const ready = new WeakMap<object, Promise<void>>();

/**
 * `await initRapier(RAPIER)`: `RAPIER.init()` once per module (later calls share the first
 * one's promise), without the loader's deprecation warning. Use it where the docs say
 * `await RAPIER.init()`: on the server before its first tick, in a page as the provider's `init`.
 */
export function initRapier(R: { init(): Promise<void> }): Promise<void> {
  let done = ready.get(R);
  if (done === undefined) {
    done = initQuietly(R);
    ready.set(R, done);
  }
  return done;
}

async function initQuietly(R: { init(): Promise<void> }): Promise<void> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (args.length === 1 && args[0] === RAPIER_INIT_WARNING) return;
    warn.apply(console, args);
  };
  try {
    await R.init();
  } finally {
    if (console.warn !== warn) console.warn = warn;
  }
}
