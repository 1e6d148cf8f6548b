// DelayLine: the timers behind the link conditioner (conditioner.ts, condition-server.ts).
// It holds the packets of one direction of one link until the time the
// LinkConditioner gave them, then hands them to a sink (at their timer, or earlier
// when the owner asks for what is due), and can tell when it has delivered everything
// (a graceful close waits for that).

import type { Channel, Scheduler, TimerHandle } from '../core/transport.ts';

/** An unreliable packet waiting for its timer. Reused: its callback is made once, with the record. */
interface Waiting {
  at: number;
  data: Uint8Array | undefined;
  /** Undefined once delivered or cancelled (the record is then spare). */
  handle: TimerHandle | undefined;
  /** Counts the record's uses: a due list taken before a delivery tells a reused record from the packet it listed. */
  use: number;
  readonly fire: () => void;
}

/**
 * Holds delayed packets of one direction until their time. Reliable packets go
 * through a FIFO with one timer for its head, so their order never depends on how
 * the host orders timers with fractional or equal delays; unreliable packets get a
 * timer each (a pooled record and its callback, so a packet allocates nothing here once
 * warm). `cancel()` drops everything not yet delivered; `drain(fn)` calls `fn` once
 * everything pushed so far has been delivered.
 */
export class DelayLine {
  private readonly fifo: ({ at: number; data: Uint8Array } | undefined)[] = [];
  private head = 0;
  private fifoTimer: TimerHandle | null = null;
  private flushing = false;
  /** Unreliable packets waiting, in the order pushed. */
  private readonly waiting: Waiting[] = [];
  private readonly spare: Waiting[] = [];
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
    const w = this.spare.pop() ?? this.record();
    w.at = at;
    w.data = data;
    w.use++;
    w.handle = this.scheduler.setTimeout(w.fire, wait);
    this.waiting.push(w);
  }

  private record(): Waiting {
    const w: Waiting = { at: 0, data: undefined, handle: undefined, use: 0, fire: () => this.deliverUnreliable(w) };
    return w;
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
    const waiting = this.waiting;
    if (waiting.length === 0) return;
    // The due packets by time (ties in the order pushed), in reused arrays (an insertion sort: a handful at most).
    let n = 0;
    for (let k = 0; k < waiting.length; k++) {
      const w = waiting[k]!;
      if (w.at > now) continue;
      let i = n++;
      for (; i > 0 && this.dueAt[i - 1]! > w.at; i--) {
        this.dueAt[i] = this.dueAt[i - 1]!;
        this.dueRecs[i] = this.dueRecs[i - 1];
        this.dueUses[i] = this.dueUses[i - 1]!;
      }
      this.dueAt[i] = w.at;
      this.dueRecs[i] = w;
      this.dueUses[i] = w.use;
    }
    for (let i = 0; i < n; i++) {
      const w = this.dueRecs[i];
      this.dueRecs[i] = undefined;
      // Delivering one closed the link (or a sink's own deliverDue took over these lists and delivered the rest).
      if (w === undefined || w.handle === undefined || w.use !== this.dueUses[i]) continue;
      this.scheduler.clearTimeout(w.handle);
      this.deliverUnreliable(w);
    }
  }

  private readonly dueRecs: (Waiting | undefined)[] = [];
  private readonly dueAt: number[] = [];
  private readonly dueUses: number[] = [];

  private deliverUnreliable(w: Waiting): void {
    if (w.handle === undefined) return; // delivered or cancelled
    const waiting = this.waiting;
    const k = waiting.indexOf(w);
    if (k < 0) return;
    for (let j = k + 1; j < waiting.length; j++) waiting[j - 1] = waiting[j]!; // keep the order pushed
    waiting.pop();
    const data = w.data!;
    this.release(w);
    const epoch = this.epoch;
    this.sink(data, 'unreliable');
    if (this.epoch === epoch) this.checkIdle();
  }

  private release(w: Waiting): void {
    w.data = undefined;
    w.handle = undefined;
    this.spare.push(w);
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
    for (let k = 0; k < this.waiting.length; k++) {
      const w = this.waiting[k]!;
      this.scheduler.clearTimeout(w.handle!);
      this.release(w);
    }
    this.waiting.length = 0;
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
    if (this.onIdle === null || this.flushing || this.fifoTimer !== null || this.head < this.fifo.length || this.waiting.length > 0) return;
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
