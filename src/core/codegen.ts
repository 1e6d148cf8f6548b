// Code generation for hot paths (the snapshot encoder's kernels, the schema codec's copy):
// straight-line functions with literal property names, because reading values[key] with a
// variable key goes megamorphic in V8. Each generated function has a reference version it
// must match (tests compare them); where `new Function` is not allowed (a Content-Security-
// Policy without 'unsafe-eval') the reference version runs instead.

/** Whether `new Function` works here (false under a Content-Security-Policy without 'unsafe-eval'). */
export function canGenerate(): boolean {
  try {
    return (new Function('return 1') as () => number)() === 1;
  } catch {
    return false;
  }
}

const compiled = new Map<string, unknown>();

/**
 * `new Function(...params, source)` called with `args`, once per distinct key (the source and every value it captures). Functions are
 * shared by every caller with the same key, so a call site that calls a generated function stays monomorphic across instances.
 */
export function compileOnce<T>(key: string, params: readonly string[], source: string, args: readonly unknown[]): T {
  let f = compiled.get(key) as T | undefined;
  if (f === undefined) {
    f = (new Function(...params, source) as (...a: unknown[]) => T)(...args);
    compiled.set(key, f);
  }
  return f;
}
