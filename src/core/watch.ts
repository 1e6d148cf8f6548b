// A one-shot watch on the real clock, for the engines' "nothing has happened" warnings (a client whose update(now) never
// runs, a server that never runs): `fire` runs once after `ms` unless cancelled first. Its timer never keeps a Node
// process alive.

/** Run `fire` once, `ms` from now; the returned function cancels it (nothing once it fired or was cancelled). */
export function watchOnce(ms: number, fire: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined = globalThis.setTimeout(() => {
    timer = undefined;
    fire();
  }, ms);
  (timer as { unref?: () => void }).unref?.();
  return () => {
    if (timer !== undefined) globalThis.clearTimeout(timer);
    timer = undefined;
  };
}
