// ClockSync: step 2 of a client frame ("Time"). Pongs and the server's input-margin reports
// feed it; each frame `update(nowMs)` moves the prediction clock (`predictedTime`) towards
// serverTick + one-way trip + slack by scaling time within 0.9–1.1, jumping only on large errors.

import { NetcodeError } from '../errors.ts';
import { tickAdd, tickDiff, type Tick } from './tick.ts';
import { OffsetEstimator, RttEstimator } from './estimators.ts';

export interface ClockSyncOptions {
  /** Simulation ticks per second (the protocol's tick rate). */
  tickRate: number;
  /**
   * Smallest slack, in ticks — or in frames when a frame spans more than one tick (so it covers that many
   * lost input packets). Default 2.
   */
  minSlackTicks?: number;
  /**
   * Slack ≥ jitterSlackSigmas · σ, when that exceeds the minimum: σ of the RTT, or of the server's input-margin
   * reports once 32 have come when theirs is smaller (they measure the inputs' own way). Default 2.5.
   */
  jitterSlackSigmas?: number;
  /** Most the prediction may run ahead of `serverTick`, in ms; the rest becomes input delay. Default 500. */
  maxPredictionMs?: number;
  /** An error (target − predictedTime) beyond this many ticks is a jump, not a time-scale change. Default 10. */
  jumpThresholdTicks?: number;
  /** Packets of slack that reports of missing inputs may add (one per report, at most once per second; 0 turns it off). Default 3. */
  maxMissSlackPackets?: number;
}

/** Time-scale change per tick of error: ±0.1 (the bounds) is reached at an error of 2 ticks. */
const SCALE_GAIN = 0.05;
const MIN_SCALE = 0.9;
const MAX_SCALE = 1.1;
/** Input-margin integrator: the correction moves at (slack − mean margin) / (1 s + 2·RTT) per second,
 *  each report's term clipped to ±4 ticks, at most 250 ms of integration per batch of reports. */
const MARGIN_TAU_MS = 1000;
const MARGIN_ERROR_CLIP = 4;
const MARGIN_MAX_DT_MS = 250;
/** Margin reports needed before their spread may set the slack (below the RTT's jitter). */
const MARGIN_SPREAD_SAMPLES = 32;
/** inputDelayTicks rises as soon as it is needed; it falls only when 1.25 ticks too many (no flicker). */
const DELAY_HYSTERESIS = 0.25;
/** Each report of inputs gone missing adds one packet of slack (at most once per second, up to 3); one is taken back per 20 s without. */
const MISS_BOOST_MAX = 3;
const MISS_BOOST_HOLD_MS = 1000;
const MISS_BOOST_DECAY_MS = 20_000;
/** Frame interval EWMA weight, and the longest frame a sample counts as (longer ones are stalls, not the frame rate). */
const FRAME_ALPHA = 0.1;
const MAX_FRAME_SAMPLE_MS = 250;
/** Ticks and the base tick stay within 2^30 of each other; beyond, the base moves (wrap safety). */
const REBASE_TICKS = 0x4000_0000;

function check(value: number, name: string, min: number, inclusive: boolean): number {
  if (!Number.isFinite(value) || (inclusive ? value < min : value <= min)) {
    throw new NetcodeError('usage', `react-netcode: ClockSyncOptions.${name} must be a finite number ${inclusive ? '>=' : '>'} ${min} (got ${value}); e.g. { tickRate: 60 }.`);
  }
  return value;
}

/**
 * Control law (ticks; stepMs = 1000 / tickRate; all times are client ms):
 * - need = rttMs / 2 / stepMs + slackTicks + frameLagTicks + marginCorrection; frameTicks = mean frame
 *   interval (observeFrame) / stepMs, EWMA 0.1, samples capped at 250 ms; frameLagTicks = max(0, frameTicks − 1);
 *   P = max(1, frameTicks); slackTicks = max(minSlackTicks · P, jitterSlackSigmas · σ / stepMs) + missSlackPackets · P,
 *   σ = the RTT's jitter, or the spread of the input-margin reports when smaller (after 32 reports): the RTT
 *   counts the way back and the time a busy client takes to handle a message, which inputs never wait for;
 *   missSlackPackets rising by one per report of missing inputs (onInputsMissing, ≤ 1/s, ≤ maxMissSlackPackets) and
 *   falling by one per 20 s;
 *   cap = maxPredictionMs / stepMs. The excess x = need − cap
 *   becomes inputDelayTicks = ceil(x) (rises at once, falls only once x ≤ inputDelayTicks − 1.25), and
 *   leadTicks = need − inputDelayTicks (≤ cap): prediction lead + input delay is exactly the need.
 * - target = serverTick(now) + leadTicks; error = target − predictedTime.
 * - Each update first advances predictedTime by elapsed / stepMs · timeScale (the scale chosen by the
 *   previous update), then: on the first sync, after resync(), or when |error| > jumpThresholdTicks it jumps
 *   to the target (forward or backward; only then does time go back); otherwise
 *   timeScale = clamp(1 + drift + 0.05 · error, 0.9, 1.1), where drift is the measured client-clock drift
 *   (so a steady state needs no error: a client clock 0.5% fast runs at 1/1.005 ≈ 0.995).
 * - onInputMargin: each update integrates the mean of the reports since the last one,
 *   marginCorrection += mean(clip(slack − margin, ±4)) · dt / (1000 + 2 · rttMs), dt = ms since the previous
 *   batch (≤ 250), total clamped to [−max(jumpThresholdTicks / 2, rttMs / 2 / stepMs), +jumpThresholdTicks / 2]:
 *   down as far as cancelling the one-way term, which a client that handles messages late measures too long
 *   (its sends are not late). Inputs then arrive `slack` ticks early on
 *   average whatever the server's input-buffer convention or the frame quantization of sends. (Route
 *   asymmetry needs no correction: the midpoint error and RTT / 2 cancel for input arrival.)
 */
export class ClockSync {
  readonly stepMs: number;
  readonly minSlackTicks: number;
  readonly jitterSlackSigmas: number;
  readonly maxPredictionMs: number;
  readonly jumpThresholdTicks: number;
  readonly maxMissSlackPackets: number;

  private readonly rtt: RttEstimator;
  /** The spread of the server's margin reports (ms): how much the arrival of our inputs varies. */
  private readonly marginSpread: RttEstimator;
  private readonly offset: OffsetEstimator;
  /** Server tick that relative positions count from (the first pong's, moved on rebase). */
  private base: Tick = 0;
  private hasBase = false;
  private isSynced = false;
  private pendingJump = true;
  private predictedRel = 0;
  private serverRel = 0;
  // NaN until the first update (a float field that also holds undefined is a new heap number per write).
  private lastNowMs = NaN;
  /** Mean interval between updates (the client's frame time), ms; 0 until measured. */
  private frameMs = 0;
  /** Pongs for pings sent before this client time are stale (set by resync() and the update after it). */
  private discardBeforeMs = -Infinity;
  private boundaryPending = false;
  private scale = 1;
  private slack: number;
  private missBoost = 0;
  private lastMissAt = -Infinity;
  private lastDecayAt = -Infinity;
  private delay = 0;
  private lead = 0;
  private correction = 0;
  private marginSum = 0;
  private marginCount = 0;
  private lastMarginMs = NaN;
  private jumpCount = 0;
  private lastJump = 0;

  constructor(options: ClockSyncOptions) {
    this.stepMs = 1000 / check(options.tickRate, 'tickRate', 0, false);
    this.minSlackTicks = check(options.minSlackTicks ?? 2, 'minSlackTicks', 0, true);
    this.jitterSlackSigmas = check(options.jitterSlackSigmas ?? 2.5, 'jitterSlackSigmas', 0, true);
    this.maxPredictionMs = check(options.maxPredictionMs ?? 500, 'maxPredictionMs', 0, true);
    this.jumpThresholdTicks = check(options.jumpThresholdTicks ?? 10, 'jumpThresholdTicks', 0, false);
    this.maxMissSlackPackets = Math.floor(check(options.maxMissSlackPackets ?? MISS_BOOST_MAX, 'maxMissSlackPackets', 0, true));
    this.rtt = new RttEstimator(this.stepMs);
    this.marginSpread = new RttEstimator(this.stepMs);
    this.offset = new OffsetEstimator(this.jumpThresholdTicks * this.stepMs);
    this.slack = this.minSlackTicks;
  }

  /**
   * A Pong: Ping sent at `sentAtMs`, Pong received at `receivedAtMs` (client clock); the server was at
   * `serverTick` + `serverFraction` when it answered.
   * @internal
   */
  onPong(sentAtMs: number, receivedAtMs: number, serverTick: Tick, serverFraction: number): void {
    if (!Number.isFinite(sentAtMs) || !Number.isFinite(receivedAtMs) || !Number.isFinite(serverFraction) || receivedAtMs < sentAtMs) {
      throw new NetcodeError('usage', `react-netcode: ClockSync.onPong needs finite times with receivedAtMs >= sentAtMs (got sent ${sentAtMs}, received ${receivedAtMs}, fraction ${serverFraction}); pass the client's monotonic clock for both.`);
    }
    if (sentAtMs < this.discardBeforeMs) return; // sent before resync(): its RTT spans the pause
    const tick = serverTick >>> 0;
    if (!this.hasBase) {
      this.base = tick;
      this.hasBase = true;
    }
    let rel = tickDiff(tick, this.base);
    if (Math.abs(rel) > REBASE_TICKS) {
      this.rebase(rel);
      rel = 0;
    }
    this.rtt.add(receivedAtMs - sentAtMs);
    this.updateSlack();
    const fraction = Math.min(1, Math.max(0, serverFraction));
    const tolerance = Math.max(this.stepMs, 2 * this.rtt.jitterMs);
    if (this.offset.add(sentAtMs, receivedAtMs, (rel + fraction) * this.stepMs, tolerance)) this.isSynced = true;
  }

  /** @internal The server received our newest input `marginTicks` ticks before it simulated that tick (negative = late). */
  onInputMargin(marginTicks: number): void {
    if (!this.isSynced || !Number.isFinite(marginTicks)) return;
    this.marginSpread.add(marginTicks * this.stepMs);
    this.marginSum += Math.min(MARGIN_ERROR_CLIP, Math.max(-MARGIN_ERROR_CLIP, this.slack - marginTicks));
    this.marginCount++;
  }

  /**
   * One rendered frame took `dtMs` (the client engine reports every frame). Frames that span several
   * ticks send their inputs in one packet: the lead and the slack grow with the mean frame interval
   * (EWMA 0.1; a sample counts at most 250 ms — longer frames are stalls, not the frame rate).
   * @internal
   */
  observeFrame(dtMs: number): void {
    if (!(dtMs > 0) || !Number.isFinite(dtMs)) return;
    const sample = Math.min(dtMs, MAX_FRAME_SAMPLE_MS);
    this.frameMs = this.frameMs === 0 ? sample : this.frameMs + FRAME_ALPHA * (sample - this.frameMs);
  }

  /**
   * The server ran `ticks` ticks without our input (reported in Pongs): lost packets beyond what the
   * slack covers. Adds one packet of slack (at most once per second, up to maxMissSlackPackets), taken
   * back one per 20 s.
   * @internal
   */
  onInputsMissing(ticks: number, nowMs: number): void {
    if (!(ticks > 0) || !this.isSynced || nowMs - this.lastMissAt < MISS_BOOST_HOLD_MS) return;
    this.lastMissAt = this.lastDecayAt = nowMs;
    this.missBoost = Math.min(this.maxMissSlackPackets, this.missBoost + 1);
  }

  /** @internal Advance to `nowMs` (client clock): move predictedTime, recompute the target, then the time scale or a jump. */
  update(nowMs: number): this {
    if (!Number.isFinite(nowMs)) throw new NetcodeError('usage', `react-netcode: ClockSync.update(nowMs) needs a finite monotonic time (got ${nowMs}).`);
    if (this.boundaryPending) {
      this.discardBeforeMs = nowMs;
      this.boundaryPending = false;
    }
    const first = Number.isNaN(this.lastNowMs);
    const elapsed = first ? 0 : Math.max(0, nowMs - this.lastNowMs);
    if (first || nowMs > this.lastNowMs) this.lastNowMs = nowMs;
    if (!this.isSynced) return this; // no time base: predictedTime holds
    this.predictedRel += (elapsed / this.stepMs) * this.scale;
    this.serverRel = this.offset.serverMsAt(this.lastNowMs) / this.stepMs;
    if (this.marginCount > 0) this.integrateMargins(elapsed);
    if (this.missBoost > 0 && this.lastNowMs - this.lastDecayAt >= MISS_BOOST_DECAY_MS) {
      this.missBoost--;
      this.lastDecayAt = this.lastNowMs;
    }
    this.updateSlack();
    const lead = this.rtt.rttMs / 2 / this.stepMs + this.slack + this.frameLagTicks + this.correction;
    const cap = this.maxPredictionMs / this.stepMs;
    this.updateDelay(lead - cap);
    // The whole ticks of input delay cover the excess; the prediction runs the rest (≤ cap), so lead +
    // delay is exactly the need and the margin loop has no integer step to hunt around.
    this.lead = Math.min(cap, lead - this.delay);
    const error = this.serverRel + this.lead - this.predictedRel;
    if (this.pendingJump || Math.abs(error) > this.jumpThresholdTicks) {
      this.predictedRel += error;
      this.lastJump = error;
      this.jumpCount++;
      this.pendingJump = false;
      this.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, 1 + this.offset.drift));
    } else {
      this.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, 1 + this.offset.drift + SCALE_GAIN * error));
    }
    return this;
  }

  /**
   * Slack = max(minSlackTicks × P, jitterSlackSigmas × σ in ticks) + missBoost × P (σ: see the class), P = max(1, frame
   * interval in ticks): one Input packet leaves per frame, so the minimum counts lost packets — 2 ticks
   * at 60 fps, 2 frames (12 ticks) at 10 fps, where one lost packet delays its inputs by a whole frame.
   */
  /** Writes `slack` (a float returned from a call V8 does not inline would be a new heap number). */
  private updateSlack(): void {
    const packet = Math.max(1, this.frameMs / this.stepMs);
    const margins = this.marginSpread;
    const spread = margins.samples >= MARGIN_SPREAD_SAMPLES ? Math.min(this.rtt.jitterMs, margins.jitterMs) : this.rtt.jitterMs;
    this.slack = Math.max(this.minSlackTicks * packet, (this.jitterSlackSigmas * spread) / this.stepMs) + this.missBoost * packet;
  }

  /** Time-based, so the loop gain does not depend on how often the server reports; slow against the RTT, so it cannot ring. */
  private integrateMargins(elapsed: number): void {
    const nowMs = this.lastNowMs;
    const dt = Math.min(MARGIN_MAX_DT_MS, Number.isNaN(this.lastMarginMs) ? elapsed : nowMs - this.lastMarginMs);
    const limit = this.jumpThresholdTicks / 2;
    // Down as far as the whole one-way term: an RTT inflated on the way back (a busy main thread) is cancelled.
    const floor = Math.max(limit, this.rtt.rttMs / 2 / this.stepMs);
    const step = ((this.marginSum / this.marginCount) * dt) / (MARGIN_TAU_MS + 2 * this.rtt.rttMs);
    this.correction = Math.min(limit, Math.max(-floor, this.correction + step));
    this.marginSum = 0;
    this.marginCount = 0;
    this.lastMarginMs = nowMs;
  }

  private updateDelay(excess: number): void {
    const up = excess > 0 ? Math.ceil(excess - 1e-9) : 0;
    const down = excess + DELAY_HYSTERESIS > 0 ? Math.ceil(excess + DELAY_HYSTERESIS - 1e-9) : 0;
    if (up > this.delay) this.delay = up;
    else if (down < this.delay) this.delay = down;
  }

  private rebase(ticks: number): void {
    this.base = tickAdd(this.base, ticks);
    this.offset.rebase(ticks * this.stepMs);
    this.predictedRel -= ticks;
    this.serverRel -= ticks;
  }

  /**
   * Forget the time base (page hidden, app paused, device slept). Pongs for pings sent before the next
   * update are discarded. Without `keepEstimates`, the client→server mapping is dropped (RTT, jitter and
   * drift are kept): `synced` is false and predictedTime holds until a fresh pong, then the next update jumps
   * to the target. With `keepEstimates`, the next update jumps at once to the target of the kept mapping.
   * Either way the elapsed time of the pause is not run as ticks.
   * @internal
   */
  resync(keepEstimates = false): void {
    this.pendingJump = true;
    // Margins measured before (e.g. for the neutral inputs of a paused page) no longer apply.
    this.correction = 0;
    this.lastNowMs = NaN;
    this.lastMarginMs = NaN;
    this.marginSum = 0;
    this.marginCount = 0;
    this.discardBeforeMs = Infinity;
    this.boundaryPending = true;
    if (!keepEstimates) {
      this.offset.reset(true);
      this.isSynced = false;
    }
  }

  /** True once a pong gave a time base (false again after resync() until the next pong). */
  get synced(): boolean { return this.isSynced; }
  /** Round-trip time, EWMA, in client ms. */
  get rttMs(): number { return this.rtt.rttMs; }
  /** σ of the RTT in ms, estimated from successive RTT differences. */
  get jitterMs(): number { return this.rtt.jitterMs; }
  /** Float ticks, wrapped to [0, 2^32): the estimate of the tick the server simulates now (at the last update). */
  get serverTick(): number { return this.absolute(this.serverRel); }
  /**
   * Float ticks, wrapped to [0, 2^32): the client's simulation clock; its floor is the tick being predicted.
   * Compare via tickDiff on predictedTick.
   */
  get predictedTime(): number { return this.absolute(this.predictedRel); }
  /** floor(predictedTime) as a uint32: the tick the client simulates and sends input for. */
  get predictedTick(): Tick { return tickAdd(this.base, Math.floor(this.predictedRel)); }
  /** Progress of predictedTime into predictedTick, in [0, 1). */
  get predictedFraction(): number { return this.predictedRel - Math.floor(this.predictedRel); }
  /**
   * Frame quantization, in ticks: a frame commits and sends the inputs of every tick it predicts at
   * once, so the first of them is sent (frame − 1 tick) later than a per-tick client would send it.
   * The lead covers that: max(0, mean frame interval / stepMs − 1); 0 at 60 fps and above.
   */
  get frameLagTicks(): number {
    return Math.max(0, this.frameMs / this.stepMs - 1);
  }
  /** Packets of slack added after the server reported missing inputs (0–3). */
  get missSlackPackets(): number {
    return this.missBoost;
  }
  /** Current adaptive slack, in ticks. */
  get slackTicks(): number { return this.slack; }
  /** Ticks of lead beyond maxPredictionMs, served as input delay: inputs sampled now are for predictedTick + inputDelayTicks. */
  get inputDelayTicks(): number { return this.delay; }
  /** How far predictedTime runs ahead of serverTick at target: need − inputDelayTicks, ≤ maxPredictionMs (ticks). */
  get leadTicks(): number { return this.lead; }
  /** The running input-margin correction included in the lead (ticks). */
  get marginCorrectionTicks(): number { return this.correction; }
  /** Multiplier of elapsed time for the prediction clock, within [0.9, 1.1]. */
  get timeScale(): number { return this.scale; }
  /** How many times predictedTime jumped (the first sync counts). */
  get jumps(): number { return this.jumpCount; }
  /** Size of the latest jump in ticks (negative = backwards); 0 before any. */
  get lastJumpTicks(): number { return this.lastJump; }

  private absolute(rel: number): number {
    const whole = Math.floor(rel);
    return tickAdd(this.base, whole) + (rel - whole);
  }
}
