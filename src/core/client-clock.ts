// The client's side of clock sync (stage 2 of a client frame): each frame's time and stalls, the
// server's Pongs (RTT, server tick, input margin, late and missing inputs) fed into ClockSync —
// margin reports held after a resume until inputs sent since have made a round trip, inputs missed
// because this client stalled not counted as loss — and the record of clock jumps and input-delay
// changes that corrections are classified by (corrections.ts).

import { ClockSync, type ClockSyncOptions } from './clock/index.ts';
import { tickAdd, tickDiff, type Tick } from './clock/tick.ts';
import type { InputReports } from './input/index.ts';
import type { Pong } from './messages.ts';

/** A frame this long after the previous one is a stall (the inputs the server misses meanwhile are not loss). */
const STALL_MS = 250;
/** Entries kept in each change log. */
const KEPT = 8;

export class ClientClock {
  readonly sync: ClockSync;
  /** Predicted-tick ranges the clock jumped across (from ≤ to), newest last. */
  readonly clockJumps: { from: Tick; to: Tick }[] = [];
  /** Predicted ticks at which the input delay changed, newest last. */
  readonly delayChanges: Tick[] = [];
  private seenJumps = 0;
  private seenDelay = 0;
  /** The last frame that came more than STALL_MS after the one before (client clock). */
  private lastStallAt = -Infinity;
  /** NaN before the first frame (a float field that also holds undefined is a new heap number per write). */
  private lastFrameAt = NaN;
  private marginHoldUntil = 0;

  constructor(options: ClockSyncOptions, private readonly reports: InputReports) {
    this.sync = new ClockSync(options);
  }

  /** Stage 2 of an in-game frame at `now`: the frame's length (a clock that steps back: 0) into the clock, then its update. Returns it. */
  frame(now: number): number {
    const dt = Number.isNaN(this.lastFrameAt) ? 0 : Math.max(0, now - this.lastFrameAt);
    if (dt > STALL_MS) this.lastStallAt = now;
    const c = this.sync;
    c.observeFrame(dt);
    this.lastFrameAt = now;
    c.update(now);
    if (c.jumps !== this.seenJumps) {
      this.seenJumps = c.jumps;
      const after = c.predictedTick;
      const before = tickAdd(after, -Math.round(c.lastJumpTicks));
      remember(this.clockJumps, tickDiff(after, before) >= 0 ? { from: before, to: after } : { from: after, to: before });
    }
    if (c.inputDelayTicks !== this.seenDelay) {
      this.seenDelay = c.inputDelayTicks;
      remember(this.delayChanges, c.predictedTick);
    }
    return dt;
  }

  /**
   * A Pong received at `at` (its echo is the low 32 bits of our ms clock: the full send time is rebuilt).
   * The server's reports on our inputs are stale while `paused` and until inputs sent after a resume
   * have made a round trip.
   */
  onPong(pong: Readonly<Pong>, at: number, now: number, paused: boolean): void {
    const sentAt = at - ((Math.round(at) - pong.echoMs) >>> 0);
    this.sync.onPong(sentAt, at, pong.serverTick, pong.serverFraction);
    const missingBefore = this.reports.missing;
    this.reports.onPong(pong.inputsLate, pong.inputsMissing, pong.serverTick);
    if (paused || now < this.marginHoldUntil) return;
    this.sync.onInputMargin(pong.inputMarginTicks);
    // Inputs the server missed because this client stalled are not packet loss: no extra slack.
    if (at - this.lastStallAt > 2 * this.sync.rttMs + 500) this.sync.onInputsMissing(this.reports.missing - missingBefore, at);
  }

  /** Back from a pause at `now`: resync, and hold the margin reports for a round trip. */
  resume(now: number): void {
    this.sync.resync();
    this.marginHoldUntil = now + 2 * this.sync.rttMs + 250;
    this.lastFrameAt = NaN;
  }

  /** A new session (not a resume): forget the change logs. */
  clearChanges(): void {
    this.clockJumps.length = this.delayChanges.length = 0;
  }
}

function remember<T>(list: T[], entry: T): void {
  if (list.length >= KEPT) list.shift();
  list.push(entry);
}
