// Reconnection policy of the client: after an unexpected drop (or a server silent for too long), retry with growing
// delays until the resume grace runs out. Pure bookkeeping on the injected clock;
// the client engine opens the link and sends the resume Hello.

import { NetcodeError } from './errors.ts';

/**
 * A dropped session is resumed only inside `receive` (frames). With no frame for `resumeGraceMs` after the
 * drop (a hidden page gets no animation frames; an app that stopped its loop) it is closed on the real clock;
 * while frames do run, the grace is theirs (retry()) and the drop watch looks again after three of their mean gaps, at
 * least this long.
 */
export const DROP_WATCH_RECHECK_MS = 500;

/**
 * A client paused through a drop (a hidden page) is not closed when its grace runs out: back, it tries once more
 * (the server, its own grace over, starts a fresh session: `resumeFailed`), for at most this long.
 */
export const LAST_ATTEMPT_MS = 5000;

export interface ReconnectOptions {
  /** How long after a drop the client keeps trying to resume (default 10,000 ms). */
  resumeGraceMs?: number;
  /** Delays between attempts (default [250, 500, 1000, 2000], the last repeats). */
  reconnectDelaysMs?: readonly number[];
  /**
   * Nothing from the server for this long (ms) while in game — a frozen or vanished host, a link that died
   * without closing — counts as a dropped link: the client closes it and resumes (default 8000; 0: never).
   * In game the server answers the client's Pings (every `pingIntervalMs`, 100) and sends snapshots, so silence
   * is abnormal; before the join (a lobby, an onJoin still checking) nothing need come, and nothing is checked.
   */
  silenceTimeoutMs?: number;
}

export class Reconnector {
  readonly graceMs: number;
  private readonly delays: readonly number[];
  private droppedAt = 0;
  private attempts = 0;
  /** When the next attempt is due (client clock; NaN: none is). */
  private nextAt = Number.NaN;
  readonly silenceMs: number;
  /** When the server was last heard from (client clock; NaN: not yet). */
  private heardAt = Number.NaN;
  /** The newest frame's time (client clock; NaN: none yet). */
  private lastFrameAt = Number.NaN;

  constructor(options: ReconnectOptions) {
    this.graceMs = options.resumeGraceMs ?? 10_000;
    this.delays = options.reconnectDelaysMs?.length ? options.reconnectDelaysMs : [250, 500, 1000, 2000];
    if (!this.delays.every((d) => d >= 0 && d < Infinity)) {
      throw new NetcodeError('usage', `react-netcode: reconnectDelaysMs must be finite numbers >= 0 (got [${this.delays.join(', ')}]); the default is [250, 500, 1000, 2000].`);
    }
    this.silenceMs = options.silenceTimeoutMs ?? 8000;
    if (!(this.silenceMs >= 0)) throw new NetcodeError('usage', `react-netcode: silenceTimeoutMs must be a number >= 0 (got ${String(options.silenceTimeoutMs)}); 0 turns the check off, the default is 8000.`);
  }

  /** The server was heard from at `at` (a message arrived, the link opened; also the app is back from a pause). */
  heard(at: number): void {
    if (at > this.heardAt || Number.isNaN(this.heardAt)) this.heardAt = at;
  }

  /**
   * A frame at `now`. After a gap of more than half the silence timeout the client itself stalled (a stopped process, a
   * page's main thread blocked): what the server sent meanwhile may still wait in the socket, read only after this frame,
   * so the silence counts from now, not from before the stall.
   */
  frame(now: number): void {
    if (now - this.lastFrameAt > this.silenceMs / 2) this.heard(now);
    this.lastFrameAt = now;
  }

  /** Whether the server has been silent for more than `silenceTimeoutMs` at `now`. */
  silent(now: number): boolean {
    return this.silenceMs > 0 && now - this.heardAt > this.silenceMs;
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
    if (now >= this.nextAt) {
      this.nextAt = Number.NaN;
      return 'attempt';
    }
    return 'wait';
  }
}
