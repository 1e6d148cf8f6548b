// IdAllocator: lowest free id first, released ids quarantined, and the same answers
// under heavy churn (a client reconnecting over and over must not make allocation slow).
import { describe, expect, it } from 'vitest';
import { IdAllocator } from '../../src/core/ids.ts';

describe('IdAllocator', () => {
  it('hands out the lowest id that is neither in use nor quarantined', () => {
    const ids = new IdAllocator(100);
    expect([1, 2, 3, 4, 5].map(() => ids.allocate(0))).toEqual([1, 2, 3, 4, 5]);
    ids.release(4, 0);
    ids.release(2, 10);
    expect(ids.allocate(50)).toBe(6); // 2 and 4 are quarantined until 110 and 100
    expect(ids.allocate(100)).toBe(4); // 4 is free at 100, 2 not yet
    expect(ids.allocate(110)).toBe(2);
    expect(ids.allocate(110)).toBe(7);
    expect(ids.quarantined).toBe(0);
  });

  it('runs out at maxId and says so', () => {
    const ids = new IdAllocator(0, 3);
    expect([ids.allocate(0), ids.allocate(0), ids.allocate(0), ids.allocate(0)]).toEqual([1, 2, 3, undefined]);
    ids.release(2, 0);
    expect(ids.allocate(0)).toBe(2);
  });

  it('under churn: 200,000 connect/close cycles with 50 live connections still give the lowest free id', () => {
    const ids = new IdAllocator(1000);
    const live: number[] = [];
    for (let t = 0; t < 200_000; t++) {
      if (live.length >= 50) ids.release(live.shift()!, t);
      live.push(ids.allocate(t)!);
    }
    // At most 50 live + 1000 quarantined (one release per ms for 1000 ms): ids stay below 1051.
    expect(Math.max(...live)).toBeLessThanOrEqual(1051);
    const now = 200_000 + 1000; // everything released is free again
    const next = ids.allocate(now)!;
    expect(live.includes(next)).toBe(false);
    for (let id = 1; id < next; id++) expect(live.includes(id)).toBe(true); // every lower id is live
  });
});
