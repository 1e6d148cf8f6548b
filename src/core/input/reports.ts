// What the server says about this client's inputs (client side). Every Pong carries
// the connection's running counts (mod 2^16) of inputs that arrived after their tick
// was simulated (late) and of ticks simulated without their input (missing). This
// unwraps them into totals, keeps when they last grew (for explaining corrections)
// and feeds the per-second figures of useNetStats / NetGraph.

import { isNewer, tickDiff, type Tick } from '../clock/tick.ts';

/** One report that showed new problems: the server tick it covers up to, and what grew. */
export interface InputProblem {
  /** Server tick the Pong was written at: the problems happened at ticks before it. */
  beforeTick: Tick;
  late: number;
  missing: number;
}

/** Reports kept for explaining corrections (a ring; about 3 s of pings at the default 100 ms). */
const KEEP = 32;

export class InputReports {
  /** Totals since the session began. */
  late = 0;
  missing = 0;
  /** Server tick of the newest Pong seen (problems before it are known). */
  newestTick: Tick | undefined;
  private lastLate: number | undefined;
  private lastMissing: number | undefined;
  private readonly problems: InputProblem[] = [];
  private readonly problemStart: Tick[] = [];

  /** A Pong's counts (mod 2^16) at server tick `serverTick`. */
  onPong(late16: number, missing16: number, serverTick: Tick): void {
    if (this.newestTick !== undefined && !isNewer(serverTick, this.newestTick)) return; // reordered or repeated
    const dLate = this.lastLate === undefined ? late16 : (late16 - this.lastLate) & 0xffff;
    const dMissing = this.lastMissing === undefined ? missing16 : (missing16 - this.lastMissing) & 0xffff;
    this.lastLate = late16;
    this.lastMissing = missing16;
    this.late += dLate;
    this.missing += dMissing;
    if (dLate > 0 || dMissing > 0) {
      if (this.problems.length >= KEEP) {
        this.problems.shift();
        this.problemStart.shift();
      }
      this.problems.push({ beforeTick: serverTick, late: dLate, missing: dMissing });
      this.problemStart.push(this.newestTick ?? serverTick);
    }
    this.newestTick = serverTick;
  }

  /** True once a report covers every tick up to and including `tick`. */
  covers(tick: Tick): boolean {
    return this.newestTick !== undefined && isNewer(this.newestTick, tick);
  }

  /**
   * A server tick by which our input of `tick` had run, or a later input of ours carrying its presses (an InputEvent
   * counts presses, and the server counts a late input's presses at the next input it received in time), as far as the
   * reports tell; undefined while they do not tell yet. A report window without missing inputs ran every tick with its
   * own input (a late input is one whose tick was counted missing, in its window or an earlier one). One with fewer
   * missing inputs than it has ticks from the bound on ran one of them with its input, so by the window's end. One with
   * as many may have run them all without: the bound moves to its end, and on through the windows right after it, and
   * holds once a report without missing inputs covers it. Undefined too when the window of `tick` left the reports kept.
   */
  appliedBy(tick: Tick): Tick | undefined {
    if (this.problems.length >= KEEP && isNewer(this.problemStart[0]!, tick)) return undefined;
    let by = tick;
    for (let i = 0; i < this.problems.length; i++) {
      const p = this.problems[i]!;
      // Report i's problems happened in [start, end): does the window hold `by`, with missing inputs?
      if (p.missing === 0 || !isNewer(p.beforeTick, by) || isNewer(this.problemStart[i]!, by)) continue;
      const ticks = tickDiff(p.beforeTick, by);
      by = p.beforeTick;
      if (p.missing < ticks) return by;
    }
    return this.covers(by) ? by : undefined;
  }

  /** The problems reported for server ticks in [from, to] (inclusive), summed; undefined if none. */
  within(from: Tick, to: Tick): { late: number; missing: number } | undefined {
    let late = 0;
    let missing = 0;
    for (let i = 0; i < this.problems.length; i++) {
      const p = this.problems[i]!;
      // The problems of report i happened in [start, beforeTick): overlap with [from, to]?
      if (isNewer(p.beforeTick, from) && !isNewer(this.problemStart[i]!, to)) {
        late += p.late;
        missing += p.missing;
      }
    }
    return late + missing > 0 ? { late, missing } : undefined;
  }

  reset(): void {
    this.late = this.missing = 0;
    this.newestTick = undefined;
    this.lastLate = this.lastMissing = undefined;
    this.problems.length = 0;
    this.problemStart.length = 0;
  }
}
