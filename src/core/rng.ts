// Seeded randomness for simulation and tests (docs/architecture.md, house rule 2: no Math.random).
// A small, fast 32-bit generator (sfc32) seeded through a splitmix32-style mixer.
// `deriveSeed` gives independent streams per tick and per entity, so a system can
// draw the same numbers on the server and in client prediction for the same tick.

/** Mix 32-bit words into a well-distributed 32-bit seed. */
export function deriveSeed(seed: number, ...keys: readonly number[]): number {
  let h = mix32(seed >>> 0);
  for (const key of keys) h = mixKey(h, key);
  return h;
}

/** `deriveSeed(seed, a, b)` without the rest array: the per-tick, per-system seed of ctx.rng (no allocation). */
export function deriveSeed2(seed: number, a: number, b: number): number {
  return mixKey(mixKey(mix32(seed >>> 0), a), b);
}

/** One key folded into a derived seed. */
function mixKey(h: number, key: number): number {
  return mix32((h ^ mix32(key >>> 0) ^ ((key / 0x1_0000_0000) >>> 0)) >>> 0);
}

function mix32(x: number): number {
  let z = (x + 0x9e3779b9) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

export class Rng {
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;

  constructor(seed = 1) {
    this.reseed(seed);
  }

  /** The seed being started from: a uint32 kept here, not passed between calls (where it would be boxed as a heap number). */
  private readonly seedWord = new Uint32Array(1);

  /** Restart the stream from `seed` (no allocation: reuse one Rng per tick). */
  reseed(seed: number): this {
    this.seedWord[0] = seed; // ToUint32, as seed >>> 0
    return this.restart();
  }

  /**
   * `reseed(deriveSeed2(words[0], words[1], words[2]))` (ctx.rng, per tick and system): the words and the
   * derived seed stay in typed arrays, so none of these uint32s is boxed as a heap number on the way.
   */
  reseedDerived(words: Uint32Array): this {
    this.seedWord[0] = deriveSeed2(words[0]!, words[1]!, words[2]!);
    return this.restart();
  }

  private restart(): this {
    const s = this.seedWord[0]!;
    this.a = mix32(s);
    this.b = mix32(s ^ 0x6a09e667);
    this.c = mix32(s ^ 0xbb67ae85);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.nextUint32();
    return this;
  }

  /** Uniform uint32. */
  nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    return this.nextUint32() / 0x1_0000_0000;
  }

  /** Uniform float in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return p > 0 && this.next() < p;
  }

  /** A new independent generator for the given keys (e.g. tick, entity id). */
  fork(...keys: readonly number[]): Rng {
    return new Rng(deriveSeed(this.nextUint32(), ...keys));
  }
}

/** A generator for `seed`, optionally derived for keys such as (tick) or (tick, entityId). */
export function createRng(seed: number, ...keys: readonly number[]): Rng {
  return new Rng(keys.length > 0 ? deriveSeed(seed, ...keys) : seed);
}
