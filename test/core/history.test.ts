import { describe, expect, it } from 'vitest';
import { HistoryBuffer } from '../../src/core/history.ts';
import { tickAdd } from '../../src/core/clock/tick.ts';

describe('HistoryBuffer', () => {
  it('stores and looks up by tick', () => {
    const h = new HistoryBuffer<string>(4);
    h.set(10, 'a');
    h.set(11, 'b');
    expect(h.get(10)).toBe('a');
    expect(h.get(11)).toBe('b');
    expect(h.get(12)).toBeUndefined();
    expect(h.size).toBe(2);
    expect(h.newestTick).toBe(11);
    expect(h.oldestTick).toBe(10);
  });

  it('evicts ticks that leave the window', () => {
    const h = new HistoryBuffer<number>(4);
    for (let t = 0; t < 10; t++) h.set(t, t * 10);
    // window is (9 - 4, 9] = 6..9
    expect(h.get(5)).toBeUndefined();
    expect(h.get(6)).toBe(60);
    expect(h.size).toBe(4);
    expect(h.set(2, 20)).toBe(false); // too old: ignored
    expect(h.get(2)).toBeUndefined();
    h.set(20, 200); // a jump clears everything in between
    expect(h.size).toBe(1);
    expect(h.get(9)).toBeUndefined();
  });

  it('works across the 2^32 wrap', () => {
    const h = new HistoryBuffer<number>(8);
    const start = 0xffff_fffd;
    for (let i = 0; i < 6; i++) h.set(tickAdd(start, i), i);
    expect(h.get(0xffff_ffff)).toBe(2);
    expect(h.get(0)).toBe(3);
    expect(h.get(2)).toBe(5);
    expect(h.newestTick).toBe(2);
    expect(h.oldestTick).toBe(start);
    const seen: number[] = [];
    h.forEach((v) => seen.push(v));
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
    expect(h.tickAtOrBefore(1)).toBe(1);
    expect(h.tickAfter(0xffff_ffff)).toBe(0);
  });

  it('finds neighbours for interpolation', () => {
    const h = new HistoryBuffer<number>(16);
    h.set(100, 1);
    h.set(103, 2);
    h.set(106, 3);
    expect(h.tickAtOrBefore(105)).toBe(103);
    expect(h.tickAtOrBefore(99)).toBeUndefined();
    expect(h.tickAtOrBefore(200)).toBe(106);
    expect(h.tickAfter(103)).toBe(106);
    expect(h.tickAfter(106)).toBeUndefined();
    expect(h.tickAfter(50)).toBe(100);
  });

  it('evicts before a tick, deletes and clears', () => {
    const h = new HistoryBuffer<number>(8);
    for (let t = 1; t <= 6; t++) h.set(t, t);
    h.evictBefore(4);
    expect(h.size).toBe(3);
    expect(h.get(3)).toBeUndefined();
    expect(h.get(4)).toBe(4);
    h.delete(5);
    expect(h.has(5)).toBe(false);
    h.clear();
    expect(h.size).toBe(0);
    expect(h.newestTick).toBeUndefined();
  });

  it('overwrites the same tick without growing', () => {
    const h = new HistoryBuffer<number>(4);
    h.set(1, 1);
    h.set(1, 2);
    expect(h.size).toBe(1);
    expect(h.get(1)).toBe(2);
    expect(() => new HistoryBuffer(0)).toThrow(/react-netcode/);
  });
});
