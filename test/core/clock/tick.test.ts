import { describe, expect, it } from 'vitest';
import { isNewer, isNewerOrEqual, newestTick, oldestTick, tickAdd, tickDiff, toTick } from '../../../src/core/clock/tick.ts';

const MAX = 0xffff_ffff;

describe('Tick', () => {
  it('adds and wraps at 2^32', () => {
    expect(tickAdd(MAX, 1)).toBe(0); // 4294967295 + 1 = 2^32 → 0
    expect(tickAdd(MAX - 1, 5)).toBe(3); // 2^32 - 2 + 5 = 2^32 + 3 → 3
    expect(tickAdd(2, -5)).toBe(MAX - 2); // 2 - 5 = -3 → 2^32 - 3
    expect(tickAdd(100, 0)).toBe(100);
    expect(toTick(-1)).toBe(MAX);
    expect(toTick(2 ** 32 + 7)).toBe(7);
  });

  it('diffs across the wrap', () => {
    expect(tickDiff(3, MAX - 1)).toBe(5); // 3 - (2^32 - 2) = 5 mod 2^32
    expect(tickDiff(MAX - 1, 3)).toBe(-5);
    expect(tickDiff(10, 10)).toBe(0);
    expect(tickDiff(0x8000_0000 - 1, 0)).toBe(0x7fff_ffff); // largest positive distance
  });

  it('compares across the wrap', () => {
    expect(isNewer(0, MAX)).toBe(true);
    expect(isNewer(MAX, 0)).toBe(false);
    expect(isNewer(5, 5)).toBe(false);
    expect(isNewerOrEqual(5, 5)).toBe(true);
    expect(isNewer(tickAdd(MAX, 10), MAX - 10)).toBe(true); // 9 is 20 ticks after 2^32 - 11
    expect(newestTick(1, MAX)).toBe(1);
    expect(oldestTick(1, MAX)).toBe(MAX);
  });

  it('keeps ordering for every tick around the wrap', () => {
    for (let base = MAX - 70; base !== 70; base = tickAdd(base, 1)) {
      for (let n = 1; n <= 64; n++) {
        const later = tickAdd(base, n);
        expect(tickDiff(later, base)).toBe(n);
        expect(isNewer(later, base)).toBe(true);
      }
    }
  });
});
