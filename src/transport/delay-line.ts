// DelayLine: the timers behind the link conditioner (conditioner.ts, condition-server.ts).
// It holds the packets of one direction of one link until the time the
// LinkConditioner gave them, then hands them to a sink (at their timer, or earlier
// when the owner asks for what is due), and can tell when it has delivered everything
// (a graceful close waits for that).

import type { Channel, Scheduler, TimerHandle } from '../core/transport.ts';

/**
 * Holds delayed packets of one direction until their time. Reliable packets go
 * through a FIFO with one timer for its head, so their order never depends on how
 * the host orders timers with fractional or equal delays; unreliable packets get a
 * timer each. `cancel()` drops everything not yet delivered; `drain(fn)` calls `fn`
 * once everything pushed so far has been delivered.
 */
export class DelayLine {
  private readonly fifo: ({ at: number; data: Uint8Array } | undefined)[] = [];
  private head = 0;
  private fifoTimer: TimerHandle | null = null;
  private flushing = false;
  /** Unreliable packets waiting, by their timer. */
  private readonly timers = new Map<TimerHandle, { at: number; data: Uint8Array }>();
  private epoch = 0;
  private onIdle: (() => void) | null = null;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly sink: (data: Uint8Array, channel: Channel) => void,
  ) {}

  push(at: number, data: Uint8Array, channel: Channel): void {
    const wait = Math.max(0, at - this.scheduler.now());
    if (channel === 'reliable') {
      this.fifo.push({ at, data });
      if (this.fifoTimer === null && !this.flushing) this.fifoTimer = this.scheduler.setTimeout(this.flush, wait);
      return;
    }
    const handle = this.scheduler.setTimeout(() => this.deliverUnreliable(handle), wait);
    this.timers.set(handle, { at, data });
  }

  /**
   * Deliver now every packet whose time has come, without waiting for its timer: on a busy
   * page timers run late (a frame or more), while the caller runs every frame.
   */
  deliverDue(): void {
    const now = this.scheduler.now();
    const head = this.fifo[this.head];
    if (head !== undefined && head.at <= now && !this.flushing) {
      if (this.fifoTimer !== null) this.scheduler.clearTimeout(this.fifoTimer);
      this.flush();
    }
    if (this.timers.size === 0) return;
    // The due packets by time, in reused arrays (an insertion sort: a handful at most); a new
    // array and an entry per packet here were most of what a link cost per frame.
    this.dueNow = now;
    this.dueCount = 0;
    this.timers.forEach(this.collectDue);
    const n = this.dueCount;
    this.dueCount = 0;
    for (let i = 0; i < n; i++) {
      const handle = this.dueHandles[i]!;
      this.dueHandles[i] = undefined;
      if (!this.timers.has(handle)) continue; // delivering one closed the link
      this.scheduler.clearTimeout(handle);
      this.deliverUnreliable(handle);
    }
  }

  private dueNow = 0;
  private dueCount = 0;
  private readonly dueHandles: (TimerHandle | undefined)[] = [];
  private readonly dueAt: number[] = [];
  private readonly collectDue = (p: { at: number; data: Uint8Array }, handle: TimerHandle): void => {
    if (p.at > this.dueNow) return;
    let i = this.dueCount++;
    for (; i > 0 && this.dueAt[i - 1]! > p.at; i--) {
      this.dueAt[i] = this.dueAt[i - 1]!;
      this.dueHandles[i] = this.dueHandles[i - 1];
    }
    this.dueAt[i] = p.at;
    this.dueHandles[i] = handle;
  };

  private deliverUnreliable(handle: TimerHandle): void {
    const p = this.timers.get(handle);
    if (p === undefined) return;
    this.timers.delete(handle);
    const epoch = this.epoch;
    this.sink(p.data, 'unreliable');
    if (this.epoch === epoch) this.checkIdle();
  }

  /**
   * Deliver every reliable packet still waiting, now and in order, whatever its time (a link the
   * sender closes: what it wrote before the close was on the wire). Unreliable ones stay.
   */
  flushReliable(): void {
    if (this.flushing) return;
    if (this.fifoTimer !== null) this.scheduler.clearTimeout(this.fifoTimer);
    this.fifoTimer = null;
    const epoch = this.epoch;
    for (let entry = this.fifo[this.head]; entry !== undefined; entry = this.fifo[this.head]) {
      this.fifo[this.head++] = undefined;
      this.sink(entry.data, 'reliable');
      if (this.epoch !== epoch) return; // the sink closed the link
    }
    this.fifo.length = 0;
    this.head = 0;
    this.checkIdle();
  }

  /** Drop every packet not yet delivered (and a pending `drain` callback). */
  cancel(): void {
    this.epoch++;
    this.onIdle = null;
    for (const handle of this.timers.keys()) this.scheduler.clearTimeout(handle);
    this.timers.clear();
    if (this.fifoTimer !== null) this.scheduler.clearTimeout(this.fifoTimer);
    this.fifoTimer = null;
    this.fifo.length = 0;
    this.head = 0;
  }

  /** Call `fn` once every packet pushed so far has reached the sink: at once when nothing waits. */
  drain(fn: () => void): void {
    this.onIdle = fn;
    this.checkIdle();
  }

  private checkIdle(): void {
    if (this.onIdle === null || this.flushing || this.fifoTimer !== null || this.head < this.fifo.length || this.timers.size > 0) return;
    const fn = this.onIdle;
    this.onIdle = null;
    fn();
  }

  /** The head's timer fired: deliver it and every following packet already due, then re-arm. */
  private readonly flush = (): void => {
    this.fifoTimer = null;
    const epoch = this.epoch;
    this.flushing = true;
    try {
      let first = true;
      for (let entry = this.fifo[this.head]; entry !== undefined; entry = this.fifo[this.head]) {
        if (!first && entry.at > this.scheduler.now()) break;
        first = false;
        this.fifo[this.head++] = undefined; // release the bytes
        this.sink(entry.data, 'reliable');
        if (this.epoch !== epoch) return; // the sink closed the link
      }
    } finally {
      this.flushing = false;
    }
    const next = this.fifo[this.head];
    if (next === undefined) {
      this.fifo.length = 0;
      this.head = 0;
      this.checkIdle();
      return;
    }
    this.fifoTimer = this.scheduler.setTimeout(this.flush, Math.max(0, next.at - this.scheduler.now()));
  };
}
