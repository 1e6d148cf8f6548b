import { describe, expect, it } from 'vitest';
import { HistoryBuffer } from '../../src/core/history.ts';
import { tickAdd, tickDiff, type Tick } from '../../src/core/clock/tick.ts';
import { createRng } from '../../src/core/rng.ts';

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

  // Power-of-two capacities find a slot with a mask, others by division of the tick counted past the wrap: both must act as
  // the window model, across the uint32 wrap too.
  it.each([
    [5, 1000],
    [6, 1000],
    [8, 1000],
    [128, 1000],
    [5, 2 ** 32 - 300],
    [6, 2 ** 32 - 300],
    [8, 2 ** 32 - 300],
    [128, 2 ** 32 - 300],
  ])('capacity %i from tick %i: seeded sets, deletes and lookups match a model of the window', (capacity, start) => {
    const rng = createRng(19, capacity, start % 1000);
    const h = new HistoryBuffer<number>(capacity);
    const model = new Map<Tick, number>();
    let newest: Tick | undefined;
    let tick: Tick = start >>> 0;
    for (let step = 0; step < 3000; step++) {
      tick = tickAdd(tick, rng.int(3));
      const t = tickAdd(tick, -rng.int(capacity + 3));
      const r = rng.next();
      if (r < 0.6) {
        const accepted = newest === undefined || tickDiff(newest, t) < capacity;
        expect(h.set(t, step)).toBe(accepted);
        if (accepted) {
          if (newest === undefined || tickDiff(t, newest) > 0) newest = t;
          model.set(t, step);
          for (const k of [...model.keys()]) if (tickDiff(newest, k) >= capacity) model.delete(k);
        }
      } else if (r < 0.7) {
        h.delete(t);
        model.delete(t);
      }
      const probe = tickAdd(tick, -rng.int(capacity + 3));
      expect(h.get(probe)).toBe(model.get(probe));
      expect(h.has(probe)).toBe(model.has(probe));
      expect(h.size).toBe(model.size);
    }
  });

  it('beforeNewest: the value of the newest tick before the newest (a gap skipped, across the uint32 wrap)', () => {
    const h = new HistoryBuffer<string>(8);
    expect(h.beforeNewest()).toBeUndefined();
    h.set(2 ** 32 - 1, 'a');
    expect(h.beforeNewest()).toBeUndefined();
    h.set(0, 'b');
    expect(h.beforeNewest()).toBe('a');
    h.set(4, 'c'); // ticks 1–3 not recorded
    expect(h.beforeNewest()).toBe('b');
    h.set(5, 'd');
    expect(h.beforeNewest()).toBe('c');
  });
});
