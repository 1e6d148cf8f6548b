import { describe, expect, it } from 'vitest';
import { NetcodeError } from '../../../src/core/errors.ts';
import { InterpolationTimeline, type InterpolationOptions } from '../../../src/core/interpolation/index.ts';
import { Rng } from '../../../src/core/rng.ts';
import { tickAdd, tickDiff, type Tick } from '../../../src/core/clock/tick.ts';

const OPTS: InterpolationOptions = { tickRate: 60, snapshotRate: 20 };
const STEP = 1000 / 60;
const FRAME = 1000 / 144;

/** Position of the timeline in ticks relative to `origin` (wrap-safe). */
const pos = (tl: InterpolationTimeline, origin: Tick): number => tickDiff(tl.tick, origin) + tl.fraction;

interface RunStats {
  frames: number;
  backwards: number;
  minScale: number;
  maxScale: number;
  minDelay: number;
  meanDelay: number;
  covered: number;
  strictlyInterpolating: number;
}

/**
 * 20 Hz snapshots of a 60 Hz server starting at `startTick`, one-way delay 50 ms ± uniform(jitter),
 * `loss` dropped, client frames every 1000/144 ms for 60 s. Statistics count frames after the first second.
 */
function simulate(jitterMs: number, loss: number, seed: number, startTick: Tick): RunStats {
  const rng = new Rng(seed);
  const arrivals: { at: number; tick: Tick }[] = [];
  for (let i = 0; i * 50 <= 60_000; i++) {
    if (rng.chance(loss)) continue;
    arrivals.push({ at: i * 50 + 50 + rng.range(-jitterMs, jitterMs), tick: tickAdd(startTick, i * 3) });
  }
  arrivals.sort((a, b) => a.at - b.at);
  const tl = new InterpolationTimeline(OPTS);
  const s: RunStats = { frames: 0, backwards: 0, minScale: Infinity, maxScale: -Infinity, minDelay: Infinity, meanDelay: 0, covered: 0, strictlyInterpolating: 0 };
  let prev = -Infinity;
  let next = 0;
  for (let f = 0; f * FRAME <= 60_000; f++) {
    const now = f * FRAME;
    for (let a = arrivals[next]; a !== undefined && a.at <= now; a = arrivals[++next]) tl.onSnapshot(a.tick, a.at);
    tl.update(now);
    const newest = tl.newestSnapshotTick;
    if (newest === undefined) continue;
    const p = pos(tl, startTick);
    if (p < prev) s.backwards++;
    prev = p;
    if (now < 1000) continue;
    s.frames++;
    s.minScale = Math.min(s.minScale, tl.timeScale);
    s.maxScale = Math.max(s.maxScale, tl.timeScale);
    s.minDelay = Math.min(s.minDelay, tl.delayTicks);
    s.meanDelay += tl.delayTicks;
    if (tickDiff(newest, tl.tick) >= 0) s.covered++; // the displayed tick has a sample at or after it
    if (tl.extrapolationTicks === 0) s.strictlyInterpolating++; // tick + fraction ≤ newest
  }
  s.meanDelay /= s.frames;
  return s;
}

describe('InterpolationTimeline under jitter and loss', () => {
  // Start 1800 ticks (30 s) before the uint32 wrap, so every run crosses it.
  const START = 0x1_0000_0000 - 1800;

  for (const seed of [1, 7, 2024]) {
    it(`is smooth, monotonic and rarely extrapolates (30 ms jitter, 5% loss, seed ${seed})`, () => {
      const jittery = simulate(30, 0.05, seed, START);
      const steady = simulate(0, 0.05, seed, START);
      for (const s of [jittery, steady]) {
        expect(s.frames).toBe(8497); // frames at 1000/144 ms in [1000, 60000] ms: 144..8640 → 8497
        expect(s.backwards).toBe(0);
        expect(s.minScale).toBeGreaterThanOrEqual(0.9);
        expect(s.maxScale).toBeLessThanOrEqual(1.1);
        expect(s.minDelay).toBeGreaterThanOrEqual(6); // 2 snapshot intervals × 60/20 ticks
        expect(s.covered / s.frames).toBeGreaterThanOrEqual(0.99);
        expect(s.strictlyInterpolating / s.frames).toBeGreaterThanOrEqual(0.99);
      }
      // The delay adapts to jitter: arrivals up to 60 ms (3.6 ticks) apart in lateness widen the gap
      // statistics, so the mean delay rises above the steady run's by well over a tick.
      expect(jittery.meanDelay).toBeGreaterThan(steady.meanDelay + 1);
    });
  }

  it('sits exactly 2 snapshot intervals behind on a perfect link', () => {
    const s = simulate(0, 0, 3, 1000);
    // Every gap is 3 ticks with σ = 0: max(6, 3 + 1.25·0) = 6 in every frame.
    expect(s.minDelay).toBe(6);
    expect(s.meanDelay).toBeCloseTo(6, 12);
    expect(s.strictlyInterpolating).toBe(s.frames);
  });
});

describe('InterpolationTimeline arithmetic', () => {
  it('estimates the server tick from arrivals and converges to estimate − delay', () => {
    const tl = new InterpolationTimeline(OPTS);
    expect(tl.update(0).newestSnapshotTick).toBeUndefined(); // nothing until the first snapshot
    expect(tl.tick).toBe(0);
    // Tick 100 + 3i arrives at 80 + 50i ms (constant 30 ms latency).
    let last = 0;
    for (let i = 0; i < 40; i++) {
      tl.onSnapshot(100 + 3 * i, 80 + 50 * i);
      for (let t = 80 + 50 * i; t < 130 + 50 * i; t += 5) tl.update((last = t));
    }
    // Last arrival: tick 217 at 2030 ms; last update at 2075 ms → 217 + 45 / 16.67 = 219.7
    expect(tl.newestSnapshotTick).toBe(217);
    expect(tl.estimatedServerTick).toBeCloseTo(217 + (last - 2030) / STEP, 9);
    expect(tl.delayTicks).toBe(6);
    // The first update jumped to 100 − 6 = 94; since then rate 1 exactly: on target.
    expect(tl.tick + tl.fraction).toBeCloseTo(219.7 - 6, 9);
    expect(tl.tick).toBe(213);
    expect(tl.timeScale).toBeCloseTo(1, 9);
    expect(tl.extrapolationTicks).toBe(0);
  });

  it('ignores duplicate and older snapshots', () => {
    const a = new InterpolationTimeline(OPTS);
    const b = new InterpolationTimeline(OPTS);
    for (const tl of [a, b]) {
      tl.onSnapshot(100, 50);
      tl.onSnapshot(103, 100);
    }
    b.onSnapshot(103, 110); // duplicate, later
    b.onSnapshot(97, 120); // older
    a.onSnapshot(106, 150);
    b.onSnapshot(106, 150);
    a.update(160);
    b.update(160);
    expect([b.tick, b.fraction, b.delayTicks, b.estimatedServerTick]).toEqual([a.tick, a.fraction, a.delayTicks, a.estimatedServerTick]);
  });

  it('lowers the delay slowly once jitter stops and follows it within 0.9–1.1, never jumping', () => {
    const rng = new Rng(11);
    const tl = new InterpolationTimeline(OPTS);
    let next = 0; // snapshot i: tick 3i, sent at 50i ms, 50 ms latency; ±40 ms jitter for the first 10 s
    const arrivalOf = (i: number): number => 50 * i + 50 + (i < 200 ? rng.range(-40, 40) : 0);
    let due = arrivalOf(0);
    let prev: number | undefined;
    let delayAt10s = 0;
    for (let f = 0; f * FRAME <= 40_000; f++) {
      const now = f * FRAME;
      while (due <= now) {
        tl.onSnapshot(3 * next, due);
        due = Math.max(due, arrivalOf(++next)); // jitter below 50 ms cannot reorder; clamp keeps it monotonic
      }
      if (tl.update(now).newestSnapshotTick === undefined) continue;
      const p = pos(tl, 0);
      if (prev !== undefined) {
        const maxStep = (1.1 * FRAME) / STEP; // 1.1 × 0.4167 ticks per frame
        expect(p - prev).toBeGreaterThanOrEqual(0);
        expect(p - prev).toBeLessThanOrEqual(maxStep + 1e-9);
      }
      prev = p;
      if (now <= 10_000) delayAt10s = tl.delayTicks;
    }
    // ±40 ms lateness spans 4.8 ticks: the delay was well above the 6-tick floor after 10 s...
    expect(delayAt10s).toBeGreaterThan(7);
    // ...and 600 clean gaps later σ has decayed by (127/128)^600 ≈ 0.009 in variance: back near the floor.
    expect(tl.delayTicks).toBeLessThan(6.5);
    expect(tl.delayTicks).toBeGreaterThanOrEqual(6);
    expect(tl.estimatedServerTick - tl.delayTicks - pos(tl, 0)).toBeCloseTo(0, 1); // converged onto the target
  });

  it('validates options with a usage error', () => {
    for (const bad of [{ tickRate: 0, snapshotRate: 20 }, { tickRate: 60, snapshotRate: NaN }, { ...OPTS, maxExtrapolationTicks: -1 }, { ...OPTS, jitterSigmas: Infinity }]) {
      let caught: unknown;
      try {
        new InterpolationTimeline(bad);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(NetcodeError);
      expect((caught as NetcodeError).code).toBe('usage');
      expect((caught as NetcodeError).message).toMatch(/^react-netcode: InterpolationOptions\.\w+ must be/);
    }
  });

  it('reset forgets everything', () => {
    const tl = new InterpolationTimeline(OPTS);
    tl.onSnapshot(500, 0);
    tl.update(110);
    expect(tl.tick).toBe(500); // 500 + 110 / 16.67 − 6 = 500.6
    tl.reset();
    expect([tl.update(200).tick, tl.fraction, tl.newestSnapshotTick, tl.extrapolationTicks]).toEqual([0, 0, undefined, 0]);
    tl.onSnapshot(10, 300);
    expect(tl.update(300).tick).toBe(4); // a fresh start: 10 − 6
  });
});
