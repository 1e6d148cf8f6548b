// ClockSync against a simulated link in virtual time: a server with its own true tick clock, a client
// clock with an offset and drift, pings every 100 ms, each leg delayed by latency ± uniform jitter from a
// seeded Rng, some lost. Each frame the simulated client sends the input of every new predicted tick.

import { describe, expect, it } from 'vitest';
import { ClockSync, type ClockSyncOptions } from '../../../src/core/clock/index.ts';
import { Rng } from '../../../src/core/rng.ts';
import { tickDiff, type Tick } from '../../../src/core/tick.ts';

const STEP = 1000 / 60;
const FRAME = 1000 / 144;

interface Spec {
  seed: number;
  /** Server time (unwrapped float ticks) at true time 0; near 2^32 so the run crosses the wrap. */
  serverStart?: number;
  clockOffsetMs?: number;
  /** Client clock rate − 1 (+0.005: the client clock runs 0.5% fast). */
  drift?: number;
  oneWayMs: (t: number) => number;
  jitterMs: number;
  loss?: number;
  /** Feed the server's input-margin reports back (they ride the downlink). */
  margins?: boolean;
  /** Client clock stopped (device asleep): no frames, no pings; on return resync() (if asked). */
  sleep?: { from: number; to: number; resync: boolean };
  options?: Omit<ClockSyncOptions, 'tickRate'>;
  warmupMs?: number;
}

interface Frame { t: number; cs: ClockSync; server: number; predicted: number; jumped: boolean }
interface Event { at: number; sentC: number; serverTime: number; margin?: number }

/** Unwrap a uint32 tick to the float timeline near `near`. */
const unwrap = (tick: Tick, near: number): number => Math.floor(near) + tickDiff(tick, Math.floor(near) >>> 0);

function run(spec: Spec, durationMs: number, onFrame: (f: Frame) => void = () => {}) {
  const rng = new Rng(spec.seed);
  const cs = new ClockSync({ tickRate: 60, ...spec.options });
  const s0 = spec.serverStart ?? 2 ** 32 - 300;
  const sleep = spec.sleep;
  const slept = (t: number): number => (sleep ? Math.max(0, Math.min(t, sleep.to) - sleep.from) : 0);
  const clientAt = (t: number): number => (spec.clockOffsetMs ?? 0) + (t - slept(t)) * (1 + (spec.drift ?? 0));
  const serverAt = (t: number): number => s0 + t / STEP;
  const leg = (t: number): number => spec.oneWayMs(t) + rng.range(-spec.jitterMs, spec.jitterMs);
  const lost = (): boolean => rng.chance(spec.loss ?? 0.02);
  const queue: Event[] = [];
  const push = (e: Event): void => {
    let i = queue.length;
    while (i > 0 && (queue[i - 1] as Event).at > e.at) i--;
    queue.splice(i, 0, e);
  };
  let nextPing = 0;
  let lastTick: Tick | undefined;
  let inputs = 0;
  let late = 0;
  let wasAsleep = false;
  for (let t = 0; t < durationMs; t += FRAME) {
    if (sleep && t >= sleep.from && t < sleep.to) { wasAsleep = true; continue; }
    if (wasAsleep) { wasAsleep = false; if (sleep?.resync) cs.resync(); nextPing = t; }
    while (queue.length > 0 && (queue[0] as Event).at <= t) {
      const e = queue.shift() as Event;
      if (e.margin !== undefined) cs.onInputMargin(e.margin);
      else cs.onPong(e.sentC, clientAt(e.at), Math.floor(e.serverTime) >>> 0, e.serverTime - Math.floor(e.serverTime));
    }
    if (t >= nextPing) {
      nextPing += 100;
      const up = t + leg(t);
      if (!lost()) { const back = up + leg(up); if (!lost()) push({ at: back, sentC: clientAt(t), serverTime: serverAt(up) }); }
    }
    const jumpsBefore = cs.jumps;
    cs.update(clientAt(t));
    const server = serverAt(t);
    const jumped = cs.jumps !== jumpsBefore;
    if (cs.synced) {
      const tick = cs.predictedTick;
      const fresh = lastTick === undefined || jumped ? 0 : tickDiff(tick, lastTick);
      for (let k = fresh - 1; k >= 0; k--) {
        // The input for tick (tick − k) + inputDelay leaves now; the server simulates tick T when its clock reaches T.
        const target = unwrap(tick, server) - k + cs.inputDelayTicks;
        const arrival = t + leg(t);
        if (lost()) continue;
        const margin = target - serverAt(arrival);
        if (t >= (spec.warmupMs ?? 3000)) { inputs++; if (margin < 0) late++; }
        if (spec.margins) push({ at: arrival + leg(arrival), sentC: 0, serverTime: 0, margin });
      }
      lastTick = tick;
      onFrame({ t, cs, server, predicted: unwrap(tick, server) + cs.predictedFraction, jumped });
    }
  }
  return { cs, inputs, late };
}

/** Error of the prediction clock against the ideal: true server + mean one-way / step + the client's slack. */
const errorOf = (f: Frame, oneWayMs: number): number => f.predicted - (f.server + oneWayMs / STEP + f.cs.slackTicks);

describe('ClockSync', () => {
  it('converges from an unknown offset across the tick wrap within 3 s, jumping once', () => {
    let maxLateError = 0;
    let minScale = Infinity;
    let maxScale = -Infinity;
    const { cs } = run({ seed: 1, clockOffsetMs: 987_654.3, drift: -0.005, oneWayMs: () => 50, jitterMs: 10 }, 10_000, (f) => {
      minScale = Math.min(minScale, f.cs.timeScale);
      maxScale = Math.max(maxScale, f.cs.timeScale);
      if (f.t >= 3000) maxLateError = Math.max(maxLateError, Math.abs(errorOf(f, 50)));
    });
    // The server starts at 2^32 − 300 and runs 600 ticks: the test crosses the wrap.
    expect(maxLateError).toBeLessThan(1);
    expect(cs.jumps).toBe(1);
    expect(minScale).toBeGreaterThanOrEqual(0.9);
    expect(maxScale).toBeLessThanOrEqual(1.1);
    // A client clock 0.5% slow needs 1/0.995 ≈ 1.005 to keep pace.
    expect(cs.timeScale).toBeGreaterThan(1.0);
    expect(cs.rttMs).toBeCloseTo(100 * 0.995, -1);
  });

  it('±20 ms jitter at 150 ms RTT: slack grows above 2 ticks, ≤ 0.1% of inputs arrive late', () => {
    let minSlack = Infinity;
    const { cs, inputs, late } = run({ seed: 7, clockOffsetMs: -42_000, drift: 0.003, oneWayMs: () => 75, jitterMs: 20, margins: true }, 60_000, (f) => {
      if (f.t >= 3000) minSlack = Math.min(minSlack, f.cs.slackTicks);
    });
    // RTT = two legs of 75 ± U(20): σ = 20·√(2/3) ≈ 16.3 ms; slack ≈ 2.5 · 16.3 / 16.67 ≈ 2.45 ticks.
    expect(minSlack).toBeGreaterThan(2);
    expect(cs.slackTicks).toBeGreaterThan(2.2);
    expect(cs.slackTicks).toBeLessThan(3);
    // 57 s of inputs at 60 Hz, ~2% lost: about 3350 inputs; 0.1% is 3.
    expect(inputs).toBeGreaterThan(3000);
    expect(late / inputs).toBeLessThanOrEqual(0.001);
    expect(cs.jumps).toBe(1);
  });

  it('tracks a client clock 0.5% fast with timeScale ≈ 1/1.005 ≈ 0.995 and no further jumps', () => {
    let sum = 0;
    let n = 0;
    let lo = Infinity;
    let hi = -Infinity;
    let maxError = 0;
    const { cs } = run({ seed: 3, clockOffsetMs: 5_000, drift: 0.005, oneWayMs: () => 40, jitterMs: 5 }, 40_000, (f) => {
      if (f.t < 10_000) return;
      sum += f.cs.timeScale;
      n++;
      lo = Math.min(lo, f.cs.timeScale);
      hi = Math.max(hi, f.cs.timeScale);
      maxError = Math.max(maxError, Math.abs(errorOf(f, 40)));
    });
    expect(sum / n).toBeCloseTo(1 / 1.005, 3);
    expect(lo).toBeGreaterThan(0.985);
    expect(hi).toBeLessThan(1.005);
    expect(maxError).toBeLessThan(0.5);
    expect(cs.jumps).toBe(1);
  });
});
