import { describe, expect, it } from 'vitest';
import { createRng, deriveSeed, deriveSeed2, Rng } from '../../src/core/rng.ts';

/** sfc32 after the splitmix32-style seeding, as the code before its int32 words drew them. */
const FIRST_WORDS_OF_SEED_1 = [1561213105, 1672659099, 4017275699];

describe('Rng', () => {
  it('is reproducible for a seed and differs between seeds', () => {
    const a = createRng(42);
    const b = createRng(42);
    const c = createRng(43);
    const seqA = Array.from({ length: 20 }, () => a.nextUint32());
    const seqB = Array.from({ length: 20 }, () => b.nextUint32());
    const seqC = Array.from({ length: 20 }, () => c.nextUint32());
    expect(seqA).toEqual(seqB);
    expect(seqA).not.toEqual(seqC);
  });

  it('is roughly uniform in [0, 1)', () => {
    const rng = new Rng(7);
    const buckets = new Array<number>(10).fill(0);
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const v = rng.next();
      expect(v >= 0 && v < 1).toBe(true);
      buckets[Math.floor(v * 10)]!++;
    }
    // Expected 10,000 per bucket; σ = sqrt(n p (1-p)) ≈ 95, allow ±5σ ≈ ±475.
    for (const count of buckets) expect(Math.abs(count - 10_000)).toBeLessThan(475);
  });

  it('derives independent streams per tick and per entity', () => {
    const seed = 1234;
    const t1e1 = createRng(seed, 1, 1).nextUint32();
    expect(createRng(seed, 1, 1).nextUint32()).toBe(t1e1);
    expect(createRng(seed, 1, 2).nextUint32()).not.toBe(t1e1);
    expect(createRng(seed, 2, 1).nextUint32()).not.toBe(t1e1);
    expect(deriveSeed(seed, 1, 2)).not.toBe(deriveSeed(seed, 2, 1)); // order matters
    const seen = new Set<number>();
    for (let tick = 0; tick < 1000; tick++) seen.add(deriveSeed(seed, tick));
    expect(seen.size).toBe(1000);
  });

  it('deriveSeed2 (the seed of ctx.rng, without a rest array) is deriveSeed with two keys', () => {
    const rng = createRng(99);
    const keys = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x1_0000_0000, 2 ** 40 + 3, -1];
    for (let i = 0; i < 500; i++) keys.push(rng.nextUint32(), rng.nextUint32() * 0x10_0000);
    for (let i = 0; i + 2 < keys.length; i++) {
      const [seed, a, b] = [keys[i]!, keys[i + 1]!, keys[i + 2]!];
      expect(deriveSeed2(seed, a, b)).toBe(deriveSeed(seed, a, b));
      expect(deriveSeed2(seed, a, b)).toBeGreaterThanOrEqual(0); // a uint32
      const derived = new Rng(1).reseedDerived(seed, a, b);
      const plain = new Rng(deriveSeed2(seed, a, b));
      for (let k = 0; k < 3; k++) expect(derived.nextUint32()).toBe(plain.nextUint32());
    }
  });

  it('draws uint32 words and floats in [0, 1): the first words of seed 1 as they always were', () => {
    const rng = new Rng(1);
    const words = [rng.nextUint32(), rng.nextUint32(), rng.nextUint32()];
    for (const w of words) expect(w >>> 0).toBe(w);
    expect(words).toEqual(FIRST_WORDS_OF_SEED_1);
    for (let i = 0; i < 1000; i++) {
      const f = rng.next();
      expect(f >= 0 && f < 1).toBe(true);
    }
  });

  it('reseeds without allocating a new generator', () => {
    const rng = new Rng(5);
    const first = rng.nextUint32();
    rng.nextUint32();
    expect(rng.reseed(5).nextUint32()).toBe(first);
  });

  it('gives integers and ranges in bounds', () => {
    const rng = new Rng(9);
    for (let i = 0; i < 1000; i++) {
      const n = rng.int(6);
      expect(Number.isInteger(n) && n >= 0 && n < 6).toBe(true);
      const r = rng.range(-2, 3);
      expect(r >= -2 && r < 3).toBe(true);
    }
    expect(rng.chance(0)).toBe(false);
  });
});
