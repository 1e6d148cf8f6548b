// InterpolationTimeline: the client-side clock for interpolated (remote) ghosts.
// Snapshot arrivals feed a server-tick estimate and arrival-gap statistics; each
// frame `update(nowMs)` moves `tick + fraction` smoothly, never backwards, a safe delay behind.

import { NetcodeError } from '../errors.ts';
import { tickAdd, tickDiff, type Tick } from '../clock/tick.ts';

export interface InterpolationOptions {
  /** Simulation ticks per second. */
  tickRate: number;
  /** Snapshots the server sends per second. */
  snapshotRate: number;
  /** Smallest delay, in snapshot intervals. Default 2. */
  minDelaySnapshots?: number;
  /** Delay ≥ mean arrival gap + jitterSigmas·σ (in ticks), when that exceeds the minimum. Default 1.25. */
  jitterSigmas?: number;
  /** How far past the newest snapshot the timeline may run before it holds. Default 20 ticks. */
  maxExtrapolationTicks?: number;
}

/** Server-tick estimate: the earliest (least delayed) arrival over the last 1–2 windows. */
const ESTIMATOR_WINDOW_MS = 1000;
/** EWMA weight of a new arrival gap in the mean. */
const MEAN_ALPHA = 1 / 16;
/** EWMA weight of a squared deviation in the variance: fast when arrivals get worse, slow when they improve. */
const VAR_ALPHA_UP = 1 / 2;
const VAR_ALPHA_DOWN = 1 / 128;
/** Gap deviations beyond OUTLIER_SIGMAS·σ + one snapshot interval are clipped. */
const OUTLIER_SIGMAS = 3;
/** Rate change per tick of position error (saturates at ±0.1 beyond 1 tick). */
const RATE_GAIN = 0.1;
const MIN_SCALE = 0.9;
const MAX_SCALE = 1.1;

function check(value: number, name: string, positive: boolean): number {
  if (!Number.isFinite(value) || (positive ? !(value > 0) : !(value >= 0))) {
    throw new NetcodeError('usage', `react-netcode: InterpolationOptions.${name} must be a finite number ${positive ? '> 0' : '>= 0'} (got ${value}); pass e.g. tickRate: 60, snapshotRate: 20.`);
  }
  return value;
}

/**
 * Rules (all in ticks; `stepMs` = 1000 / tickRate, interval = tickRate / snapshotRate):
 * - estimatedServerTick = newest + (now − base) / stepMs, base = the least-delayed arrival of the last
 *   1–2 s mapped onto the newest tick (late packets never drag it; an arrival > 1 s later restarts it).
 * - Each newer snapshot adds a gap sample: how far that estimate had run past the previous newest
 *   (tick gap + lateness). Mean EWMA 1/16; variance EWMA 1/2 up, 1/128 down; deviations clipped at 3σ + 1 interval.
 * - delayTicks = max(minDelaySnapshots · interval, mean + jitterSigmas · σ); target = estimate − delay.
 * - Each update runs at 1 + 0.1 · error (clamped to 0.9–1.1). More than 1 s behind: jump forward.
 *   More than 1 s ahead: freeze (rate 0) until the target is within 1 s, then 0.9. Never backwards.
 * - Never more than maxExtrapolationTicks past the newest snapshot: it holds there (rate 0).
 */
export class InterpolationTimeline {
  readonly stepMs: number;
  /** Ticks between two snapshots (tickRate / snapshotRate). */
  readonly snapshotIntervalTicks: number;
  readonly minDelayTicks: number;
  readonly jitterSigmas: number;
  readonly maxExtrapolationTicks: number;
  /** An error larger than this (1 s of ticks) is a jump or a freeze, not a rate change. */
  private readonly jumpTicks: number;

  // Positions are ticks relative to the newest snapshot tick (re-anchored on every newer snapshot).
  private newest: Tick | undefined;
  /** NaN until the first update after a snapshot (a float field that also holds undefined is a new heap number per write). */
  private position = NaN;
  /** Client ms at which the newest tick would have arrived with the least delay seen in the window. */
  private baseMs = 0;
  private windowMin = Infinity;
  private previousWindowMin = Infinity;
  private windowStartMs = 0;
  private gapMean = 0;
  private gapVar = 0;
  private nowMs = -Infinity;
  private scale = 1;

  constructor(options: InterpolationOptions) {
    const tickRate = check(options.tickRate, 'tickRate', true);
    const snapshotRate = check(options.snapshotRate, 'snapshotRate', true);
    this.stepMs = 1000 / tickRate;
    this.snapshotIntervalTicks = tickRate / snapshotRate;
    this.minDelayTicks = check(options.minDelaySnapshots ?? 2, 'minDelaySnapshots', false) * this.snapshotIntervalTicks;
    this.jitterSigmas = check(options.jitterSigmas ?? 1.25, 'jitterSigmas', false);
    this.maxExtrapolationTicks = check(options.maxExtrapolationTicks ?? 20, 'maxExtrapolationTicks', false);
    this.jumpTicks = tickRate;
    this.reset();
  }

  /** @internal Forget every snapshot and the position (e.g. on reconnect). */
  reset(): void {
    this.newest = undefined;
    this.position = NaN;
    this.baseMs = 0;
    this.windowMin = Infinity;
    this.previousWindowMin = Infinity;
    this.windowStartMs = 0;
    this.gapMean = this.snapshotIntervalTicks;
    this.gapVar = 0;
    this.nowMs = -Infinity;
    this.scale = 1;
  }

  /** @internal A snapshot for server tick `tick` arrived at client time `nowMs` (monotonic ms). Duplicates/old ticks update nothing. */
  onSnapshot(tick: Tick, nowMs: number): void {
    tick = tick >>> 0;
    if (this.newest === undefined) {
      this.newest = tick;
      this.restartWindow(nowMs);
      return;
    }
    const d = tickDiff(tick, this.newest);
    if (d <= 0) return;
    // How far the estimate had run past the previous newest when this one arrived: the gap to bridge.
    const gap = (nowMs - this.baseMs) / this.stepMs;
    // Re-anchor on the new newest tick.
    this.newest = tick;
    const shiftMs = d * this.stepMs;
    this.baseMs += shiftMs;
    this.windowMin += shiftMs;
    this.previousWindowMin += shiftMs;
    this.position -= d; // NaN stays NaN
    if (nowMs - this.baseMs > this.jumpTicks * this.stepMs) {
      // Over a second later than the best recent arrival: the server stalled or the route changed. Re-estimate.
      this.restartWindow(nowMs);
      return;
    }
    if (nowMs - this.windowStartMs >= ESTIMATOR_WINDOW_MS) {
      this.previousWindowMin = nowMs - this.windowStartMs >= 2 * ESTIMATOR_WINDOW_MS ? Infinity : this.windowMin;
      this.windowMin = Infinity;
      this.windowStartMs = nowMs;
    }
    this.windowMin = Math.min(this.windowMin, nowMs);
    this.baseMs = Math.min(this.windowMin, this.previousWindowMin);
    // Deviations are clipped at 3σ + one interval, so an outage (a burst of losses) nudges the
    // statistics instead of inflating the delay for seconds; sustained worsening still compounds.
    const sigma = Math.sqrt(this.gapVar);
    const dev = Math.min(Math.max(0, gap) - this.gapMean, OUTLIER_SIGMAS * sigma + this.snapshotIntervalTicks);
    this.gapMean += dev * MEAN_ALPHA;
    const sq = dev * dev;
    this.gapVar += (sq - this.gapVar) * (sq > this.gapVar ? VAR_ALPHA_UP : VAR_ALPHA_DOWN);
  }

  private restartWindow(nowMs: number): void {
    this.baseMs = nowMs;
    this.windowMin = nowMs;
    this.previousWindowMin = Infinity;
    this.windowStartMs = nowMs;
  }

  /** @internal Advance to client time `nowMs`. Returns this. Never moves backwards. */
  update(nowMs: number): this {
    const elapsed = nowMs > this.nowMs ? nowMs - this.nowMs : 0;
    if (nowMs > this.nowMs) this.nowMs = nowMs;
    if (this.newest === undefined) return this;
    const target = this.estimatedRel() - this.delayTicks;
    const advance = elapsed / this.stepMs;
    let p = this.position;
    if (Number.isNaN(p) || target - p > this.jumpTicks) {
      // First snapshot, or over a second behind (an outage): jump forward, never back.
      p = Number.isNaN(p) ? target : Math.max(p, target);
      this.scale = 1;
    } else {
      // The error left if this frame ran at rate 1; correct a share of it within 0.9–1.1.
      const error = target - (p + advance);
      if (error < -this.jumpTicks) {
        this.scale = 0; // over a second ahead of the target: freeze until it catches up (never back)
      } else {
        this.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, 1 + error * RATE_GAIN));
        let correction = (this.scale - 1) * advance;
        if (Math.abs(correction) > Math.abs(error)) {
          correction = error; // a long frame: land on the target instead of overshooting it
          this.scale = 1 + correction / advance;
        }
        p += advance + correction;
      }
    }
    if (p > this.maxExtrapolationTicks) {
      // Too far past the newest snapshot: hold there (position never exceeds the cap, so this is never a step back).
      if (this.position >= this.maxExtrapolationTicks) this.scale = 0; // false while NaN
      p = this.maxExtrapolationTicks;
    }
    this.position = p;
    return this;
  }

  private estimatedRel(): number {
    return this.nowMs === -Infinity ? 0 : (this.nowMs - this.baseMs) / this.stepMs;
  }

  /** interpolationTick: the whole tick shown (sample between it and the next). */
  get tick(): Tick {
    return this.newest === undefined || Number.isNaN(this.position) ? 0 : tickAdd(this.newest, Math.floor(this.position));
  }

  /** Progress from `tick` towards the next tick, in [0, 1). */
  get fraction(): number {
    if (Number.isNaN(this.position)) return 0;
    return this.position - Math.floor(this.position);
  }

  /** Current target delay (ticks) behind `estimatedServerTick`: max(minDelay, meanGap + jitterSigmas·σ). */
  get delayTicks(): number {
    return Math.max(this.minDelayTicks, this.gapMean + this.jitterSigmas * Math.sqrt(this.gapVar));
  }

  /** Float estimate of the server tick at the last `update` time, as seen by arrivals (excludes the one-way trip). Wrapped to uint32. */
  get estimatedServerTick(): number {
    if (this.newest === undefined) return 0;
    const rel = this.estimatedRel();
    const whole = Math.floor(rel);
    return tickAdd(this.newest, whole) + (rel - whole);
  }

  get newestSnapshotTick(): Tick | undefined {
    return this.newest;
  }

  /** Ticks beyond the newest snapshot (0 while interpolating), at most maxExtrapolationTicks. */
  get extrapolationTicks(): number {
    return Number.isNaN(this.position) || this.position <= 0 ? 0 : this.position;
  }

  /** The rate the timeline ran at in the last update: 0.9..1.1 while converging, 1 after a jump, 0 when frozen or holding. */
  get timeScale(): number {
    return this.scale;
  }
}
