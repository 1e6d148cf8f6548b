import { describe, expect, it } from 'vitest';
import { InterpolationTimeline, type InterpolationOptions } from '../../../src/core/interpolation/index.ts';
import { tickDiff } from '../../../src/core/clock/tick.ts';

const STEP = 1000 / 60;
const FRAME = 1000 / 144;

interface Frame {
  now: number;
  /** Position relative to tick 0 (wrap-safe). */
  pos: number;
  tick: number;
  extrapolation: number;
  scale: number;
  newest: number;
}

/**
 * Perfect 20 Hz link, snapshot i = tick 3i sent at 50i ms. `arrival(i)` gives its arrival time (or
 * undefined when it never arrives). Frames every 1000/144 ms up to `untilMs`.
 */
function run(arrival: (i: number) => number | undefined, untilMs: number, options: Partial<InterpolationOptions> = {}): { frames: Frame[]; tl: InterpolationTimeline } {
  const tl = new InterpolationTimeline({ tickRate: 60, snapshotRate: 20, ...options });
  const frames: Frame[] = [];
  let i = 0;
  for (let f = 0; f * FRAME <= untilMs; f++) {
    const now = f * FRAME;
    for (; i * 50 <= now; i++) {
      const at = arrival(i);
      if (at === undefined) continue;
      if (at > now) break; // arrivals are in order in these scenarios
      tl.onSnapshot(3 * i, at);
    }
    const newest = tl.update(now).newestSnapshotTick;
    if (newest === undefined) continue;
    frames.push({ now, pos: tickDiff(tl.tick, 0) + tl.fraction, tick: tl.tick, extrapolation: tl.extrapolationTicks, scale: tl.timeScale, newest });
  }
  return { frames, tl };
}

function expectMonotonic(frames: readonly Frame[]): void {
  let backwards = 0;
  for (let k = 1; k < frames.length; k++) if (frames[k]!.pos < frames[k - 1]!.pos) backwards++;
  expect(backwards).toBe(0);
}

/** The last frame at or before `ms`. */
function at(frames: readonly Frame[], ms: number): Frame {
  let found: Frame | undefined;
  for (const f of frames) if (f.now <= ms) found = f;
  if (found === undefined) throw new Error(`no frame at ${ms} ms`);
  return found;
}

describe('InterpolationTimeline when snapshots stop', () => {
  it('extrapolates at most maxExtrapolationTicks, holds, then jumps forward when a long outage ends', () => {
    // Latency 30 ms; snapshots 40..99 (sent 2000..4950 ms) are lost: the newest before the outage is
    // tick 117 (arrived 1980 ms); tick 300 (snapshot 100) arrives at 5030 ms.
    const { frames } = run((i) => (i >= 40 && i < 100 ? undefined : 50 * i + 30), 7000);
    expectMonotonic(frames);
    const during = frames.filter((f) => f.now >= 1980 && f.now < 5030);
    expect(Math.max(...during.map((f) => f.extrapolation))).toBe(20);
    for (let k = 1; k < during.length; k++) expect(during[k]!.extrapolation).toBeGreaterThanOrEqual(during[k - 1]!.extrapolation);
    // At 1980 ms the position is 117 − 6 = 111; it reaches 117 + 20 after 26 ticks = 433 ms (≈ 2413 ms)...
    expect(at(frames, 2400).extrapolation).toBeLessThan(20);
    expect(at(frames, 2430).extrapolation).toBe(20);
    // ...and holds at tick 137 until the outage ends, reporting rate 0.
    expect(at(frames, 5000)).toMatchObject({ tick: 137, extrapolation: 20, scale: 0 });
    // Tick 300 at 5030 ms: the target 300 − 6 = 294 is 157 ticks (> 1 s) ahead: jump there.
    expect(at(frames, 5035).tick).toBe(294);
    expect(at(frames, 5035).extrapolation).toBe(0);
    expect(frames.filter((f) => f.now > 5030).every((f) => f.extrapolation === 0)).toBe(true);
  });

  it('catches up within 1.1× after a short outage without jumping or inflating the delay', () => {
    // Snapshots 40..51 lost (600 ms): tick 117 at 1980 ms, then tick 156 at 2630 ms.
    const { frames, tl } = run((i) => (i >= 40 && i < 52 ? undefined : 50 * i + 30), 8000);
    expectMonotonic(frames);
    const after = frames.filter((f) => f.now >= 2630);
    for (let k = 1; k < after.length; k++) {
      // 1.1 × 6.94 ms / 16.67 ms = 0.458 ticks per frame at most: no jump.
      expect(after[k]!.pos - after[k - 1]!.pos).toBeLessThanOrEqual((1.1 * FRAME) / STEP + 1e-9);
      expect(after[k]!.extrapolation).toBe(0);
    }
    // Held at 117 + 20 = 137 when 156 arrived, 19 − 6 = 13 ticks behind the target 150: at +10% it
    // needs ≥ 130 ticks (2.2 s). By 8000 ms the position is back on 2 intervals behind the estimate.
    const last = after[after.length - 1]!;
    const estimate = (last.now - 30) / STEP; // tick 3i arrives at 50i + 30 ms
    expect(estimate - last.pos).toBeCloseTo(6, 1);
    expect(tl.delayTicks).toBe(6);
  });

  it('re-estimates after a server stall and freezes (never steps back) when far ahead of the target', () => {
    // The server pauses 3 s after tick 117 and resumes with tick 120 (its clock lost 3 s): from then
    // on tick 3i arrives at 50i + 3030 ms. maxExtrapolationTicks 120 lets the timeline run 2 s past it.
    const { frames } = run((i) => (i < 40 ? 50 * i + 30 : 50 * i + 3030), 12_000, { maxExtrapolationTicks: 120 });
    expectMonotonic(frames);
    // Held at 117 + 120 = 237 when tick 120 arrives (5030 ms). The arrival is 3 s later than the best
    // recent one, so the estimate restarts there: target 120 − 6 = 114, 123 ticks (> 1 s) behind: freeze.
    const resumed = frames.filter((f) => f.now >= 5030);
    expect(resumed[0]).toMatchObject({ tick: 237, scale: 0 });
    // Frozen until the target is within 60 ticks: 123 − 60 = 63 ticks = 1050 ms later; then 0.9.
    const frozen = resumed.filter((f) => f.scale === 0);
    expect(frozen.every((f) => f.tick === 237)).toBe(true);
    expect(frozen[frozen.length - 1]!.now).toBeGreaterThan(5030 + 1000);
    expect(frozen[frozen.length - 1]!.now).toBeLessThan(5030 + 1100);
    // Then it slows to 0.9 until it meets the target: 60 ticks at −0.1 take ≥ 600 ticks (10 s)... so
    // at 12 s it is still converging at 0.9, always ahead of the newest by less than before.
    const slowing = resumed.filter((f) => f.now > 6200);
    expect(slowing.every((f) => f.scale >= 0.9 && f.scale <= 1.1)).toBe(true);
    expect(slowing[slowing.length - 1]!.extrapolation).toBeLessThan(slowing[0]!.extrapolation);
  });
});
