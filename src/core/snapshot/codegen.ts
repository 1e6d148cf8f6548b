// One compiled function per distinct generated source. Encoders of the same protocol
// (one per room, say) then call the SAME function objects: a call site that calls a
// generated writer stays monomorphic across encoders. With a function per encoder, each
// new encoder's writers were new call targets: the optimized code of the shared encode
// loop was thrown away ("wrong call target") and rebuilt, over and over, as encoders
// took turns. The generated functions keep no per-encoder state (scratch at most), so
// sharing them is safe. Bounded by the distinct ghost layouts a process compiles.

const compiled = new Map<string, unknown>();

/** `make()`'s result for `key`, made once per process; `key` must determine the function (its source and every value it captures). */
export function compileOnce<T>(key: string, make: () => T): T {
  let f = compiled.get(key) as T | undefined;
  if (f === undefined) {
    f = make();
    compiled.set(key, f);
  }
  return f;
}

/** A cache-key part for the enum tables a quantizer captures (each enum field's values, in order). */
export function enumsKey(enums: readonly (ReadonlyMap<string, number> | undefined)[]): string {
  return JSON.stringify(enums.map((m) => (m === undefined ? null : [...m.keys()])));
}
