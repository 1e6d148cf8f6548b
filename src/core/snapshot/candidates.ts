// Scratch arrays of the snapshot encoder, one row per ghost offered to the current
// connection: what record it would get (spawn or update, baselines, the body's
// bits in the per-tick cache), its priority and size, and whether it was chosen.

function grow<A extends Int32Array | Uint8Array | Float64Array>(a: A, n: number): A {
  return new (a.constructor as new (n: number) => A)(n);
}

export class Candidates {
  n = 0;
  dense = new Int32Array(0);
  id = new Float64Array(0);
  /** F_SPAWN / F_B0 / F_B1 (format.ts). */
  flags = new Uint8Array(0);
  /** Baseline ages as written: tick − b0, b0 − b1 (0 = none). */
  age0 = new Int32Array(0);
  age1 = new Int32Array(0);
  /** Body bits in the cache writer. */
  off = new Int32Array(0);
  len = new Int32Array(0);
  /** Estimated record bits (id gap to the previous candidate, explicit baselines). */
  bits = new Int32Array(0);
  prio = new Float64Array(0);
  sel = new Uint8Array(0);

  /** Make room for `n` candidates (contents are not kept). */
  reserve(n: number): void {
    if (this.dense.length >= n) return;
    const cap = Math.max(64, n, this.dense.length * 2);
    this.dense = grow(this.dense, cap);
    this.id = grow(this.id, cap);
    this.flags = grow(this.flags, cap);
    this.age0 = grow(this.age0, cap);
    this.age1 = grow(this.age1, cap);
    this.off = grow(this.off, cap);
    this.len = grow(this.len, cap);
    this.bits = grow(this.bits, cap);
    this.prio = grow(this.prio, cap);
    this.sel = grow(this.sel, cap);
  }
}

/** Despawns of the current connection: keys id · 2^21 + dense, sorted by id. */
export class Despawns {
  n = 0;
  keys = new Float64Array(64);

  push(id: number, d: number): void {
    if (this.n === this.keys.length) {
      const next = new Float64Array(this.n * 2);
      next.set(this.keys);
      this.keys = next;
    }
    this.keys[this.n++] = id * 2 ** 21 + d;
  }

  sort(): void {
    if (this.n > 1) this.keys.subarray(0, this.n).sort();
  }

  id(j: number): number {
    return Math.floor(this.keys[j]! / 2 ** 21);
  }

  dense(j: number): number {
    return this.keys[j]! % 2 ** 21;
  }
}
