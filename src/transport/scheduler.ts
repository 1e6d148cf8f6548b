// Schedulers: the clocks every transport decorator and engine loop runs on. The
// VirtualScheduler drives tests and the loopback harness deterministically;
// realTimeScheduler is the production clock (performance.now + host timers).

import type { Scheduler, TimerHandle } from '../core/transport.ts';
import { NetcodeError } from '../core/errors.ts';

/** One scheduled task; it is also the handle returned by `setTimeout`. */
class VirtualTimer {
  constructor(
    readonly due: number,
    readonly seq: number,
    public fn: (() => void) | null,
  ) {}
}

/** (due, seq) order: earlier due first, then insertion order. */
function before(a: VirtualTimer, b: VirtualTimer): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}

/**
 * A virtual millisecond clock. Nothing runs until `advanceTo`/`advanceBy`, which run
 * every task due by the target in (due time, insertion order) order with `now()`
 * equal to the task's due time; tasks scheduled meanwhile that fall due by the
 * target run in the same advance. Tasks live in a binary min-heap; cancelled
 * tasks are removed lazily (and compacted when they dominate the heap).
 */
export class VirtualScheduler implements Scheduler {
  private time: number;
  private seq = 0;
  private live = 0;
  private cancelled = 0;
  private advancing = false;
  private readonly heap: VirtualTimer[] = [];

  constructor(startMs = 0) {
    if (!Number.isFinite(startMs)) throw new NetcodeError('usage', 'react-netcode: VirtualScheduler start time must be a finite number of milliseconds.');
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  /** Tasks scheduled and neither run nor cancelled. */
  get pending(): number {
    return this.live;
  }

  setTimeout(fn: () => void, delayMs: number): TimerHandle {
    const delay = delayMs > 0 ? delayMs : 0; // also maps NaN to 0, like host timers
    const timer = new VirtualTimer(this.time + delay, this.seq++, fn);
    this.push(timer);
    this.live++;
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    if (!(handle instanceof VirtualTimer) || handle.fn === null) return; // unknown, already run or cancelled
    handle.fn = null;
    this.live--;
    this.cancelled++;
    if (this.cancelled > 64 && this.cancelled * 2 > this.heap.length) this.compact();
  }

  /** Run every task due at or before `timeMs`, then leave the clock at `timeMs`. */
  advanceTo(timeMs: number): void {
    if (this.advancing) throw new NetcodeError('usage', 'react-netcode: VirtualScheduler.advanceTo called from inside a task; schedule work instead of advancing time re-entrantly.');
    if (!(timeMs >= this.time)) throw new NetcodeError('usage', `react-netcode: VirtualScheduler cannot move time backwards (now ${this.time}, asked ${timeMs}); pass a time >= now.`);
    this.advancing = true;
    try {
      for (let top = this.heap[0]; top !== undefined && top.due <= timeMs; top = this.heap[0]) {
        this.pop();
        const fn = top.fn;
        if (fn === null) {
          this.cancelled--;
          continue;
        }
        top.fn = null;
        this.live--;
        this.time = top.due;
        fn();
      }
      this.time = timeMs;
    } finally {
      this.advancing = false;
    }
  }

  /** `advanceTo(now() + ms)`. */
  advanceBy(ms: number): void {
    if (!(ms >= 0)) throw new NetcodeError('usage', `react-netcode: VirtualScheduler.advanceBy needs a non-negative duration, got ${ms}.`);
    this.advanceTo(this.time + ms);
  }

  /**
   * Advance to each next due time until no task is left; returns the final time. Bounded by `maxSteps`
   * advances to catch tasks that reschedule themselves forever.
   */
  runAll(maxSteps = 1_000_000): number {
    for (let budget = maxSteps; this.live > 0; budget--) {
      if (budget <= 0) throw new NetcodeError('usage', `react-netcode: VirtualScheduler.runAll still had tasks after ${maxSteps} steps; a task probably reschedules itself forever.`);
      let top = this.heap[0];
      while (top !== undefined && top.fn === null) {
        this.pop();
        this.cancelled--;
        top = this.heap[0];
      }
      if (top === undefined) break;
      this.advanceTo(top.due);
    }
    return this.time;
  }

  private push(timer: VirtualTimer): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(timer);
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = heap[parentIndex] as VirtualTimer;
      if (!before(timer, parent)) break;
      heap[i] = parent;
      i = parentIndex;
    }
    heap[i] = timer;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    this.siftDown(last, 0);
  }

  private siftDown(timer: VirtualTimer, start: number): void {
    const heap = this.heap;
    const n = heap.length;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let child = heap[l] as VirtualTimer;
      let c = l;
      if (r < n && before(heap[r] as VirtualTimer, child)) {
        child = heap[r] as VirtualTimer;
        c = r;
      }
      if (!before(child, timer)) break;
      heap[i] = child;
      i = c;
    }
    heap[i] = timer;
  }

  /** Drop cancelled timers and re-heapify in O(n). */
  private compact(): void {
    const heap = this.heap;
    let w = 0;
    for (const timer of heap) if (timer.fn !== null) heap[w++] = timer;
    heap.length = w;
    this.cancelled = 0;
    for (let i = (w >> 1) - 1; i >= 0; i--) this.siftDown(heap[i] as VirtualTimer, i);
  }
}

/** The host clock: `performance.now()` and `globalThis.setTimeout`. For production (browser or Node). */
export const realTimeScheduler: Scheduler = {
  now: () => performance.now(),
  setTimeout: (fn, delayMs) => globalThis.setTimeout(fn, delayMs),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};
