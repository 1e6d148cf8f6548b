// ClockSync and its estimators fed by hand: exact arithmetic for the first sync, the time-scale law,
// jumps, input-delay hysteresis, resync() semantics, RTT/jitter clipping and the drift filter.

import { describe, expect, it } from 'vitest';
import { ClockSync, OffsetEstimator, RttEstimator } from '../../../src/core/clock/index.ts';
import { NetcodeError } from '../../../src/core/errors.ts';
import { tickDiff } from '../../../src/core/clock/tick.ts';

const STEP = 1000 / 60;

/** A pong from a server whose time in ms equals the client's + `offsetMs`, answering at the round trip's midpoint. */
function pong(cs: ClockSync, sent: number, rtt: number, offsetMs = 0): void {
  const serverTicks = (sent + rtt / 2 + offsetMs) / STEP;
  const whole = Math.floor(serverTicks);
  cs.onPong(sent, sent + rtt, whole >>> 0, serverTicks - whole);
}

describe('ClockSync (hand-fed)', () => {
  it('rejects bad options and bad pongs with NetcodeError', () => {
    expect(() => new ClockSync({ tickRate: 0 })).toThrow(NetcodeError);
    expect(() => new ClockSync({ tickRate: 60, maxPredictionMs: -1 })).toThrow(/^react-netcode: ClockSyncOptions.maxPredictionMs/);
    const cs = new ClockSync({ tickRate: 60 });
    expect(() => cs.onPong(100, 50, 0, 0)).toThrow(/^react-netcode:/);
    expect(() => cs.update(Number.NaN)).toThrow(NetcodeError);
  });

  it('holds before the first pong, then jumps exactly to serverTick + RTT/2 + slack across the wrap', () => {
    const cs = new ClockSync({ tickRate: 60 });
    cs.update(0).update(500);
    expect(cs.synced).toBe(false);
    expect(cs.predictedTime).toBe(0);
    // Sent 1000, received 1100: the server was at 2^32 − 2 + 0.5 at the midpoint 1050.
    cs.onPong(1000, 1100, 2 ** 32 - 2, 0.5);
    cs.update(1100);
    // serverTick = (2^32 − 1.5) + 50 / 16.67 = 2^32 + 1.5 → 1.5; lead = 50 / 16.67 + 2 = 5; predicted = 6.5.
    expect(cs.serverTick).toBeCloseTo(1.5, 9);
    expect(cs.predictedTime).toBeCloseTo(6.5, 9);
    expect(cs.predictedTick).toBe(6);
    expect(cs.jumps).toBe(1);
    expect(cs.timeScale).toBe(1);
    // 100 ms later at scale 1: 6 ticks on both clocks, no error.
    cs.update(1200);
    expect(cs.predictedTime).toBeCloseTo(12.5, 9);
    expect(cs.timeScale).toBeCloseTo(1, 9);
  });

  it('scales time by 1 + 0.05 · error and never steps back without a jump', () => {
    const cs = new ClockSync({ tickRate: 60, jitterSlackSigmas: 0 });
    pong(cs, 1000, 100);
    cs.update(1100);
    // A second RTT of 166.67: mean = 100 + 66.67 / 2 (running mean of 2) = 133.33 → lead 4 + 2 = 6, one more tick.
    pong(cs, 1200, 200 / 3 + 100);
    cs.update(1200 + 200 / 3 + 100);
    expect(cs.rttMs).toBeCloseTo(400 / 3, 9);
    expect(cs.leadTicks).toBeCloseTo(6, 9);
    expect(cs.timeScale).toBeCloseTo(1.05, 9);
    // Next 100 ms: the clock gains 0.05 · 6 = 0.3 of the 1-tick error: 0.7 left → 1.035.
    cs.update(1400 + 200 / 3);
    expect(cs.timeScale).toBeCloseTo(1.035, 9);
    // The server now reads 6 ticks (100 ms) behind: below the 10-tick threshold, so slow down, never back.
    let prev = cs.predictedTime;
    for (let t = 1500; t < 3000; t += 100) {
      pong(cs, t - 100, 100, -100);
      cs.update(t);
      expect(tickDiff(cs.predictedTick, Math.floor(prev) >>> 0) + cs.predictedFraction - (prev - Math.floor(prev))).toBeGreaterThan(0);
      prev = cs.predictedTime;
    }
    expect(cs.jumps).toBe(1);
    expect(cs.timeScale).toBeLessThan(1);
  });

  it('jumps back only beyond the threshold: a server 20 ticks behind (twice, to re-seed) is one backward jump', () => {
    const cs = new ClockSync({ tickRate: 60 });
    pong(cs, 1000, 100);
    cs.update(1100);
    pong(cs, 1100, 100, -20 * STEP); // ignored once: could be a glitch
    cs.update(1200);
    expect(cs.jumps).toBe(1);
    pong(cs, 1200, 100, -20 * STEP); // twice: the clocks stepped; the filter re-seeds
    cs.update(1300);
    expect(cs.jumps).toBe(2);
    expect(cs.lastJumpTicks).toBeCloseTo(-20, 6);
  });

  it('re-bases when the server tick moves more than 2^30 from its base (a wrapped or restarted server)', () => {
    const cs = new ClockSync({ tickRate: 60 });
    pong(cs, 1000, 100);
    cs.update(1100);
    const far = 1.5 * 2 ** 30 * STEP; // 1.5 · 2^30 ticks ahead, in ms
    pong(cs, 1100, 100, far);
    pong(cs, 1200, 100, far);
    cs.update(1300);
    // serverTick(1300) = (1300 + far) / 16.67 = 78 + 1.5 · 2^30; + lead 5 = 83 + 1.5 · 2^30 (below 2^32: no wrap).
    expect(cs.jumps).toBe(2);
    expect(cs.predictedTime).toBeCloseTo(83 + 1.5 * 2 ** 30, 4);
    expect(cs.predictedTick).toBe(83 + 1.5 * 2 ** 30);
  });

  it('turns lead beyond maxPredictionMs into input delay, with 0.25-tick hysteresis on the way down', () => {
    const cs = new ClockSync({ tickRate: 60, minSlackTicks: 2.5, jitterSlackSigmas: 0 });
    let t = 0;
    const settle = (rtt: number): void => {
      for (let i = 0; i < 200; i++, t += 100) pong(cs, t, rtt);
      cs.update(t);
    };
    // need = RTT / 2 / 16.67 + 2.5; cap = 30. RTT 1200: need 38.5 → delay ceil(8.5) = 9, lead 29.5.
    settle(1200);
    expect(cs.inputDelayTicks).toBe(9);
    expect(cs.leadTicks).toBeCloseTo(29.5, 6);
    // RTT 1180: need 37.9, x = 7.9 > 9 − 1.25: stays 9, lead = 37.9 − 9 = 28.9.
    settle(1180);
    expect(cs.inputDelayTicks).toBe(9);
    expect(cs.leadTicks).toBeCloseTo(28.9, 6);
    // RTT 1172: x = 7.66 ≤ 7.75: falls to 8, lead = 37.66 − 8 = 29.66.
    settle(1172);
    expect(cs.inputDelayTicks).toBe(8);
    expect(cs.leadTicks).toBeCloseTo(29.66, 6);
    // RTT 1202: x = 8.56: rises at once to 9.
    settle(1202);
    expect(cs.inputDelayTicks).toBe(9);
  });

  it('resync() drops the mapping and the pongs of pings sent before the next update', () => {
    const cs = new ClockSync({ tickRate: 60 });
    pong(cs, 1000, 100);
    cs.update(1100).update(2000);
    const held = cs.predictedTime;
    cs.resync();
    pong(cs, 1950, 100, 10_000); // in flight across the pause: discarded
    cs.update(12_000);
    expect(cs.synced).toBe(false);
    expect(cs.predictedTime).toBe(held);
    pong(cs, 11_990, 100, 10_000); // sent before that update: discarded
    cs.update(12_100);
    expect(cs.synced).toBe(false);
    pong(cs, 12_000, 100, 10_000); // the server is now 10 s (600 ticks) further along
    cs.update(12_100);
    // serverTick(12 100) = (12 100 + 10 000) / 16.67 = 1326; + lead 5 = 1331.
    expect(cs.synced).toBe(true);
    expect(cs.jumps).toBe(2);
    expect(cs.predictedTime).toBeCloseTo(1331, 6);
  });

  it('RttEstimator: a step or an outlier moves the mean by at most max(4σ + 2·step, mean) / 8', () => {
    const est = new RttEstimator(STEP);
    for (let i = 0; i < 20; i++) est.add(50);
    expect(est.jitterMs).toBe(0);
    est.add(10_000);
    // limit = max(0 + 33.3, 50) = 50: mean 50 + 50 / 8 = 56.25; |diff| clipped to 50, weighted 1/20 (sample 21):
    // jitter = 2.5 · √π / 2 ≈ 2.216.
    expect(est.rttMs).toBeCloseTo(56.25, 9);
    expect(est.jitterMs).toBeCloseTo((2.5 * Math.sqrt(Math.PI)) / 2, 9);
  });

  it('OffsetEstimator: learns a 0.4% drift from clean samples and ignores a slow round trip', () => {
    const est = new OffsetEstimator(200);
    // server ms = 1.004 · client ms + 777.
    const serverAt = (c: number): number => 1.004 * c + 777;
    for (let c = 0; c < 30_000; c += 100) est.add(c, c + 80, serverAt(c + 40), STEP);
    expect(est.drift).toBeCloseTo(0.004, 5);
    expect(est.serverMsAt(40_000)).toBeCloseTo(serverAt(40_000), 1);
    const before = est.offsetMs;
    // RTT 380 > min 80 + 16.7: a late pong, its midpoint is not trusted.
    expect(est.add(30_000, 30_380, serverAt(30_300), STEP)).toBe(false);
    expect(est.offsetMs).toBe(before);
  });
});
