// Clock-sync estimators, fed by Ping/Pong round trips: RTT and jitter (RttEstimator)
// and the client→server time mapping (OffsetEstimator). ClockSync turns their output
// into serverTick / predictedTick; these classes know nothing of ticks or targets.

/** Weight of a new RTT sample in the mean (after the first 8 samples, which are averaged). */
const RTT_ALPHA = 1 / 8;
/** Weight of a new |successive RTT difference| in the jitter mean: 1/32 when larger, 1/64 when smaller
 *  (a running mean for the first samples). Worsening is seen within seconds; the slack it sets stays steady. */
const JITTER_ALPHA_UP = 1 / 32;
const JITTER_ALPHA_DOWN = 1 / 64;
/** σ ≈ E|X₁ − X₂| · √π / 2 for normally distributed X (E|X₁ − X₂| = 2σ/√π). */
const DIFF_TO_SIGMA = Math.sqrt(Math.PI) / 2;
/** Offset filter: position gain floor (1/n before that: a running mean) and velocity (drift) gain. */
const OFFSET_ALPHA = 1 / 8;
const DRIFT_BETA = 1 / 128;
/** Clock drift beyond ±2% is not a clock, it is a bug or a discontinuity: the drift estimate is clamped. */
const MAX_DRIFT = 0.02;
/** The minimum RTT is taken over the current and the previous window (1–2 s). */
const MIN_WINDOW_MS = 1000;

/**
 * Round-trip time and jitter, in client milliseconds.
 * - `rttMs`: EWMA (1/8, a running mean for the first 8 samples) of the RTT, each deviation clipped to
 *   ±max(4·jitter + 2·floorMs, rttMs), so one pong delayed by seconds moves the mean by at most 1/8 of itself.
 * - `jitterMs`: a σ estimate from the EWMA (1/32 up, 1/64 down) of |RTT − previous RTT| (RFC 3550 style),
 *   × √π/2. The asymmetric weights make it lean high (≈ 1.2σ for uniform leg jitter): slack errs safe.
 *   Successive differences make a step change in latency (a route change) one large sample, not
 *   seconds of inflated variance around a lagging mean.
 */
export class RttEstimator {
  rttMs = 0;
  jitterMs = 0;
  samples = 0;
  private meanAbsDiff = 0;
  private last = 0;

  constructor(private readonly floorMs: number) {}

  add(rtt: number): void {
    this.samples++;
    if (this.samples === 1) {
      this.rttMs = rtt;
      this.last = rtt;
      return;
    }
    const limit = Math.max(4 * this.jitterMs + 2 * this.floorMs, this.rttMs);
    const dev = Math.min(limit, Math.max(-limit, rtt - this.rttMs));
    this.rttMs += dev * Math.max(RTT_ALPHA, 1 / this.samples);
    const diff = Math.min(limit, Math.abs(rtt - this.last));
    this.last = rtt;
    const w = diff > this.meanAbsDiff ? JITTER_ALPHA_UP : JITTER_ALPHA_DOWN;
    this.meanAbsDiff += (diff - this.meanAbsDiff) * Math.max(w, 1 / (this.samples - 1));
    this.jitterMs = this.meanAbsDiff * DIFF_TO_SIGMA;
  }
}

/**
 * Maps client time to server time: serverMs(c) = c + offsetMs + drift · (c − anchorMs), where serverMs is
 * server ticks × stepMs relative to ClockSync's base tick. Each sample is the NTP estimate at the round
 * trip's midpoint: serverMs − (sent + received) / 2.
 * - Only samples with an RTT ≤ (minimum RTT of the last 1–2 s) + toleranceMs are used: a slow round trip
 *   is a late packet whose midpoint says little, and must not drag the clock.
 * - Accepted samples feed an alpha-beta filter: offset gain max(1/8, 1/n), drift gain 1/128 (drift
 *   clamped to ±2%). The drift term removes the lag a plain EWMA would have under a ±0.5% clock drift.
 * - A residual beyond `reseedMs` is ignored once; twice in a row re-seeds the filter (the clocks
 *   stepped, e.g. the device slept), keeping the drift.
 */
export class OffsetEstimator {
  offsetMs = 0;
  drift = 0;
  anchorMs = 0;
  /** Accepted samples since the last seed (0 = no mapping yet). */
  accepted = 0;
  private strikes = 0;
  private windowMin = Infinity;
  private previousWindowMin = Infinity;
  private windowStartMs = -Infinity;

  constructor(private readonly reseedMs: number) {}

  /** Forget the mapping and the minimum-RTT window; keep the drift estimate unless told otherwise. */
  reset(keepDrift: boolean): void {
    this.accepted = 0;
    this.strikes = 0;
    this.windowMin = Infinity;
    this.previousWindowMin = Infinity;
    this.windowStartMs = -Infinity;
    if (!keepDrift) this.drift = 0;
  }

  /** Server ms (relative to the base tick) at client time `clientMs`. */
  serverMsAt(clientMs: number): number {
    return clientMs + this.offsetMs + this.drift * (clientMs - this.anchorMs);
  }

  /** One round trip; returns true when it was used. */
  add(sentMs: number, receivedMs: number, serverMs: number, toleranceMs: number): boolean {
    const rtt = receivedMs - sentMs;
    if (receivedMs - this.windowStartMs >= MIN_WINDOW_MS) {
      this.previousWindowMin = receivedMs - this.windowStartMs >= 2 * MIN_WINDOW_MS ? Infinity : this.windowMin;
      this.windowMin = Infinity;
      this.windowStartMs = receivedMs;
    }
    if (rtt < this.windowMin) this.windowMin = rtt;
    if (rtt > Math.min(this.windowMin, this.previousWindowMin) + toleranceMs) return false;
    const mid = (sentMs + receivedMs) / 2;
    const measured = serverMs - mid;
    if (this.accepted === 0) return this.seed(mid, measured);
    const dt = mid - this.anchorMs;
    const predicted = this.offsetMs + this.drift * dt;
    const r = measured - predicted;
    if (Math.abs(r) > this.reseedMs) {
      if (++this.strikes >= 2) return this.seed(mid, measured);
      return false;
    }
    this.strikes = 0;
    this.accepted++;
    const a = Math.max(OFFSET_ALPHA, 1 / this.accepted);
    if (dt > 0) {
      this.offsetMs = predicted + a * r;
      this.anchorMs = mid;
      this.drift = Math.min(MAX_DRIFT, Math.max(-MAX_DRIFT, this.drift + (DRIFT_BETA * r) / dt));
    } else {
      // Out-of-order midpoint: correct the offset at the current anchor, learn no drift from it.
      this.offsetMs += a * r;
    }
    return true;
  }

  /** Shift the server origin by `ms` (ClockSync moved its base tick). */
  rebase(ms: number): void {
    this.offsetMs -= ms;
  }

  private seed(mid: number, measured: number): boolean {
    this.offsetMs = measured;
    this.anchorMs = mid;
    this.accepted = 1;
    this.strikes = 0;
    return true;
  }
}
