// Why a correction happened (client side). Prediction reports each correction of a
// shown transform with the window of ticks its misprediction arose in; this log
// names the cause once the server's input reports cover that window: inputs that
// went missing or arrived late, a stall that skipped ticks, a clock jump or an
// input-delay change, or a ghost driven by someone else. For deterministic
// movement anything else is a bug worth a report: 'unexplained'.

import type { InputReports } from './input/index.ts';
import type { CorrectionRecord } from './prediction.ts';
import { isNewer, tickAdd, type Tick } from './clock/tick.ts';

export type CorrectionCause = 'input-missing' | 'input-late' | 'stall' | 'clock-jump' | 'input-delay' | 'remote' | 'unexplained';

/**
 * A correction with its cause. The log reuses its objects: the one a `correction` listener gets
 * is rewritten once 64 newer corrections are kept in `recent` — copy what you keep longer
 * (`{ ...c }` copies every field, `detail` included).
 */
export interface Correction extends CorrectionRecord {
  cause: CorrectionCause;
  /** A human-readable explanation of the cause (built when read). */
  readonly detail: string;
}

/** What the client knows about events that make a prediction diverge. */
export interface CorrectionContext {
  readonly reports: InputReports;
  /** Newest range of ticks the frame cap skipped. */
  readonly lastSkip: { from: Tick; to: Tick } | undefined;
  /** Predicted-tick ranges the clock jumped across (from, to; from ≤ to), newest last. */
  readonly clockJumps: readonly { from: Tick; to: Tick }[];
  /** Predicted ticks at which the input delay changed, newest last. */
  readonly delayChanges: readonly Tick[];
}

/** A correction waits at most this long for an input report covering its tick. */
const RESOLVE_WITHIN_MS = 1000;
/** Corrections kept in `recent`. */
const RECENT = 64;
/** Skipped ranges remembered for classification (a second's worth of 2 fps frames and more). */
const RECENT_SKIPS = 16;

interface Pending {
  readonly record: CorrectionRecord;
  at: number;
}

/**
 * A named correction, reused once it leaves `recent`. Its `detail` is an own enumerable getter
 * (a spread copy or JSON keeps it) that builds the sentence from the cause's figures when read:
 * no string per correction for a log no one reads.
 */
class CorrectionEntry implements Correction {
  ghostId = 0;
  type = '';
  local = false;
  tick = 0 as Tick;
  fromTick = 0 as Tick;
  distance = 0;
  cause: CorrectionCause = 'unexplained';
  declare readonly detail: string;
  /** The cause's figures: a skipped or jumped range (a..b), late and missing inputs, the tick of a delay change. */
  #a = 0;
  #b = 0;

  constructor() {
    Object.defineProperty(this, 'detail', { enumerable: true, get: () => this.#describe() });
  }

  set(r: CorrectionRecord, cause: CorrectionCause, a = 0, b = 0): this {
    copyRecord(r, this);
    this.cause = cause;
    this.#a = a;
    this.#b = b;
    return this;
  }

  #describe(): string {
    const a = this.#a;
    const b = this.#b;
    const from = this.fromTick + 1;
    switch (this.cause) {
      case 'stall':
        return `prediction skipped ticks ${a}..${b} after a stall (of this client, or of the server's snapshots): the server ran them without our input`;
      case 'input-late':
        return `the server got ${a} of our inputs after their tick (${b} ticks ran without one) in ticks ${from}..${this.tick}: check the link, or raise ClientOptions.clock.minSlackTicks`;
      case 'input-missing':
        return `the server ran ${b} ticks in ${from}..${this.tick} without our input (lost packets beyond the redundancy)`;
      case 'clock-jump':
        return `the prediction clock jumped across ticks ${a}..${b} (the server's clock stepped, e.g. after it stalled)`;
      case 'input-delay':
        return `the input delay changed at tick ${a}`;
      case 'remote':
        return 'the ghost is not driven by our input: another player, or contact with one, moved it differently';
      default:
        return 'no late or missing input, stall or clock change explains it: a nondeterministic system or a field whose tolerance is too tight';
    }
  }
}

/** A correction record's fields, field by field (into a pooled record or a reused Correction). */
function copyRecord(from: CorrectionRecord, to: CorrectionRecord): void {
  to.ghostId = from.ghostId;
  to.type = from.type;
  to.local = from.local;
  to.tick = from.tick;
  to.fromTick = from.fromTick;
  to.distance = from.distance;
}

function within(tick: Tick, from: Tick, to: Tick): boolean {
  return isNewer(tick, from) && !isNewer(tick, to);
}

export class CorrectionLog {
  /** The newest corrections with their causes (oldest first, at most 64; the oldest one's object is reused for the next). */
  readonly recent: Correction[] = [];
  readonly byCause: Record<CorrectionCause, number> = { 'input-missing': 0, 'input-late': 0, stall: 0, 'clock-jump': 0, 'input-delay': 0, remote: 0, unexplained: 0 };
  total = 0;
  /** Corrections waiting for their cause, oldest first; their entries are reused (none per correction). */
  private readonly pending: Pending[] = [];
  private readonly free: Pending[] = [];
  /** Recent ranges the frame cap skipped (newest last): a frame may skip again before an older correction is named. */
  private readonly skips: { from: Tick; to: Tick }[] = [];

  constructor(
    private readonly context: CorrectionContext,
    private readonly report: (c: Correction) => void,
  ) {}

  add(record: CorrectionRecord, nowMs: number): void {
    this.noteSkip();
    const p = this.free.pop() ?? { record: { ghostId: 0, type: '', local: false, tick: 0, fromTick: 0, distance: 0 }, at: 0 };
    copyRecord(record, p.record);
    p.at = nowMs;
    this.pending.push(p);
  }

  /** Name the causes of the corrections whose window the input reports now cover (or that waited long enough). */
  resolve(nowMs: number): void {
    this.noteSkip();
    while (this.pending.length > 0) {
      const p = this.pending[0]!;
      if (!this.context.reports.covers(p.record.tick) && nowMs - p.at < RESOLVE_WITHIN_MS) return;
      this.pending.shift();
      // Reuse the oldest kept entry: ours unless the app put something else in the (public, mutable) list.
      const oldest = this.recent.length >= RECENT ? this.recent.shift() : undefined;
      const c = this.classify(p.record, oldest instanceof CorrectionEntry ? oldest : new CorrectionEntry());
      this.free.push(p);
      this.total++;
      this.byCause[c.cause]++;
      this.recent.push(c);
      this.report(c);
    }
  }

  clear(): void {
    for (const p of this.pending) this.free.push(p);
    this.pending.length = 0;
    this.skips.length = 0;
  }

  /** Keep the context's newest skip if it is new (called at least once per frame, so none is missed). */
  private noteSkip(): void {
    const skip = this.context.lastSkip;
    const newest = this.skips[this.skips.length - 1];
    if (skip === undefined || (newest !== undefined && newest.from === skip.from && newest.to === skip.to)) return;
    if (this.skips.length >= RECENT_SKIPS) this.skips.shift();
    this.skips.push({ from: skip.from, to: skip.to });
  }

  private classify(r: CorrectionRecord, c: CorrectionEntry): Correction {
    const { reports, clockJumps, delayChanges } = this.context;
    // The state at fromTick agreed with the server: the cause lies in (fromTick, tick].
    const from = r.fromTick;
    const to = r.tick;
    for (let i = this.skips.length - 1; i >= 0; i--) {
      const skip = this.skips[i]!;
      if (!isNewer(skip.from, to) && isNewer(tickAdd(skip.to, 1), from)) {
        return c.set(r, 'stall', skip.from, skip.to);
      }
    }
    const problems = reports.within(tickAdd(from, 1), to);
    if (problems) {
      return c.set(r, problems.late > 0 ? 'input-late' : 'input-missing', problems.late, problems.missing);
    }
    // Indexed loops: for-of over these arrays built an iterator per classification.
    for (let i = 0; i < clockJumps.length; i++) {
      const j = clockJumps[i]!;
      // A jump across ticks [j.from, j.to] explains a window that overlaps it or lies after it within the rollback.
      if (!isNewer(j.from, to) && !isNewer(from, tickAdd(j.to, 64))) return c.set(r, 'clock-jump', j.from, j.to);
    }
    for (let i = 0; i < delayChanges.length; i++) {
      const t = delayChanges[i]!;
      if (within(t, from, to)) return c.set(r, 'input-delay', t);
    }
    return c.set(r, r.local ? 'unexplained' : 'remote');
  }
}
