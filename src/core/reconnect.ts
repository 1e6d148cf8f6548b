// Reconnection policy of the client: after an unexpected drop, retry with growing
// delays until the resume grace runs out. Pure bookkeeping on the injected clock;
// the client engine opens the link and sends the resume Hello.

export interface ReconnectOptions {
  /** How long after a drop the client keeps trying to resume (default 10,000 ms). */
  resumeGraceMs?: number;
  /** Delays between attempts (default [250, 500, 1000, 2000], the last repeats). */
  reconnectDelaysMs?: readonly number[];
}

export class Reconnector {
  readonly graceMs: number;
  private readonly delays: readonly number[];
  private droppedAt = 0;
  private attempts = 0;
  private nextAt = 0;

  constructor(options: ReconnectOptions) {
    this.graceMs = options.resumeGraceMs ?? 10_000;
    this.delays = options.reconnectDelaysMs?.length ? options.reconnectDelaysMs : [250, 500, 1000, 2000];
  }

  get enabled(): boolean {
    return this.graceMs > 0;
  }

  /** The link dropped at `now`: the first attempt is scheduled. */
  start(now: number): void {
    this.droppedAt = now;
    this.attempts = 0;
    this.scheduleNext(now);
  }

  /** An attempt failed at `now`: schedule the next one. */
  scheduleNext(now: number): void {
    const delay = this.delays[Math.min(this.attempts, this.delays.length - 1)]!;
    this.attempts++;
    this.nextAt = now + delay;
  }

  /** 'expired' when the grace is over, 'attempt' when an attempt is due now (once), else 'wait'. */
  poll(now: number): 'expired' | 'attempt' | 'wait' {
    if (now - this.droppedAt >= this.graceMs) return 'expired';
    if (this.nextAt > 0 && now >= this.nextAt) {
      this.nextAt = 0;
      return 'attempt';
    }
    return 'wait';
  }
}
