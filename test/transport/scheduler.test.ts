// VirtualScheduler: the deterministic clock under every transport and engine test.
// Checks ordering, nested scheduling, cancellation and now() inside tasks.

import { describe, expect, it } from 'vitest';
import { VirtualScheduler, realTimeScheduler } from '../../src/transport/scheduler.ts';
import { createRng } from '../../src/core/rng.ts';
import { isNetcodeError } from '../../src/core/errors.ts';

describe('VirtualScheduler', () => {
  it('runs nothing until time advances, then tasks in (due, insertion) order', () => {
    const s = new VirtualScheduler();
    const log: string[] = [];
    s.setTimeout(() => log.push('c@20'), 20);
    s.setTimeout(() => log.push('a@10'), 10);
    s.setTimeout(() => log.push('b@10'), 10);
    s.setTimeout(() => log.push('d@10'), 10);
    s.setTimeout(() => log.push('z@0'), 0);
    expect(log).toEqual([]);
    expect(s.pending).toBe(5);
    s.advanceTo(10);
    expect(log).toEqual(['z@0', 'a@10', 'b@10', 'd@10']);
    expect(s.pending).toBe(1);
    expect(s.now()).toBe(10);
    s.advanceBy(10); // 10 + 10 = 20: c is due
    expect(log).toEqual(['z@0', 'a@10', 'b@10', 'd@10', 'c@20']);
    expect(s.pending).toBe(0);
  });

  it('reports each task its own due time in now(), and the target afterwards', () => {
    const s = new VirtualScheduler(1000);
    const seen: number[] = [];
    s.setTimeout(() => seen.push(s.now()), 5);
    s.setTimeout(() => seen.push(s.now()), 2.5);
    s.advanceTo(2000);
    expect(seen).toEqual([1002.5, 1005]); // 1000 + 2.5, 1000 + 5
    expect(s.now()).toBe(2000);
  });

  it('runs tasks scheduled during an advance when they fall due by the target', () => {
    const s = new VirtualScheduler();
    const log: string[] = [];
    s.setTimeout(() => {
      log.push(`outer@${s.now()}`);
      s.setTimeout(() => log.push(`zero@${s.now()}`), 0); // due 10, after later-inserted peers at 10
      s.setTimeout(() => log.push(`inner@${s.now()}`), 5); // due 10 + 5 = 15
      s.setTimeout(() => log.push(`late@${s.now()}`), 50); // due 10 + 50 = 60 > 30
    }, 10);
    s.setTimeout(() => log.push(`peer@${s.now()}`), 10);
    s.advanceTo(30);
    expect(log).toEqual(['outer@10', 'peer@10', 'zero@10', 'inner@15']);
    expect(s.pending).toBe(1);
    s.advanceTo(60);
    expect(log.at(-1)).toBe('late@60');
  });

  it('clearTimeout cancels, and is a no-op for run, cancelled or foreign handles', () => {
    const s = new VirtualScheduler();
    const log: number[] = [];
    const a = s.setTimeout(() => log.push(1), 1);
    const b = s.setTimeout(() => log.push(2), 2);
    s.setTimeout(() => s.clearTimeout(b), 0); // a task cancels a later one
    s.clearTimeout(a);
    s.clearTimeout(a);
    s.clearTimeout({});
    s.clearTimeout(42);
    expect(s.pending).toBe(2); // 3 scheduled - a
    s.advanceTo(5);
    expect(log).toEqual([]);
    expect(s.pending).toBe(0);
  });

  it('matches a stable sort of 5,000 random timers with random cancellations (heap + compaction)', () => {
    const rng = createRng(7);
    const s = new VirtualScheduler();
    const log: number[] = [];
    const expected: { due: number; id: number }[] = [];
    const handles = [];
    for (let id = 0; id < 5000; id++) {
      const due = rng.int(200);
      handles.push(s.setTimeout(() => log.push(id), due));
      expected.push({ due, id });
    }
    const cancelled = new Set<number>();
    for (let id = 0; id < 5000; id += 1 + rng.int(2)) {
      cancelled.add(id);
      s.clearTimeout(handles[id] as (typeof handles)[number]);
    }
    expect(s.pending).toBe(5000 - cancelled.size);
    s.advanceTo(100);
    s.advanceTo(200);
    const order = expected.filter((e) => !cancelled.has(e.id)).sort((x, y) => x.due - y.due || x.id - y.id);
    expect(log).toEqual(order.map((e) => e.id));
  });

  it('runAll advances to the last due task', () => {
    const s = new VirtualScheduler();
    let ran = 0;
    s.setTimeout(() => s.setTimeout(() => ran++, 40), 60);
    expect(s.runAll()).toBe(100); // 60 + 40
    expect(ran).toBe(1);
  });

  it('rejects moving backwards and re-entrant advances with usage errors', () => {
    const s = new VirtualScheduler(10);
    expect(() => s.advanceTo(5)).toThrow(/^react-netcode:/);
    expect(() => s.advanceBy(-1)).toThrow(/^react-netcode:/);
    let caught: unknown = null;
    s.setTimeout(() => {
      try {
        s.advanceBy(1);
      } catch (error) {
        caught = error;
      }
    }, 1);
    s.advanceBy(1);
    expect(isNetcodeError(caught) && caught.code === 'usage').toBe(true);
  });
});

describe('realTimeScheduler', () => {
  it('reads a monotonic clock (its timers are the host timers, not exercised here: no real timers in tests)', () => {
    const t0 = realTimeScheduler.now();
    expect(realTimeScheduler.now()).toBeGreaterThanOrEqual(t0);
  });
});
