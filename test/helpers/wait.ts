// Waiting on real sockets (socket.io and child-process tests only): poll a condition
// with a timeout. Netcode tests on the Stepper never need this.
export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const start = performance.now();
  while (!predicate()) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
