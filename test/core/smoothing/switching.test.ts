import { describe, expect, it } from 'vitest';
import { field } from '../../../src/core/field.ts';
import { compileSchema } from '../../../src/core/schema.ts';
import { DEFAULT_TRANSITION_MS, desiredMode, ModeTransition, type PredictionMode, type SwitchingOptions } from '../../../src/core/smoothing/index.ts';

const OPTIONS: SwitchingOptions = { radius: 10, margin: 2 };

/** Run desiredMode along a path of distances; returns [step index, new mode] for every switch. */
function walk(distances: readonly number[], start: PredictionMode, options: SwitchingOptions = OPTIONS): [number, PredictionMode][] {
  let mode = start;
  const switches: [number, PredictionMode][] = [];
  distances.forEach((d, i) => {
    const next = desiredMode(mode, d, options);
    if (next !== mode) switches.push([i, next]);
    mode = next;
  });
  return switches;
}

describe('desiredMode (hysteresis)', () => {
  it('switches in below radius and out only beyond radius + margin', () => {
    expect(desiredMode('interpolated', 9.99, OPTIONS)).toBe('predicted');
    expect(desiredMode('interpolated', 10, OPTIONS)).toBe('interpolated'); // strictly inside
    expect(desiredMode('predicted', 11, OPTIONS)).toBe('predicted'); // inside the margin band
    expect(desiredMode('predicted', 12, OPTIONS)).toBe('predicted'); // 12 = 10 + 2 is not beyond
    expect(desiredMode('predicted', 12.01, OPTIONS)).toBe('interpolated');
  });

  it('a ghost crossing the radius once (in, then out) switches exactly once each way', () => {
    // 20 → 0 → 20 in 0.5 m steps: i = 0..40 inward, 41..80 outward (d = (i − 40) · 0.5).
    const path = Array.from({ length: 81 }, (_, i) => Math.abs(20 - i * 0.5));
    // In at the first d < 10: i = 21 (d = 9.5). Out at the first d > 12: i = 65 (d = 12.5).
    expect(walk(path, 'interpolated')).toEqual([
      [21, 'predicted'],
      [65, 'interpolated'],
    ]);
  });

  it('a ghost oscillating within ± margin / 2 around the radius switches at most once', () => {
    // d = 10 + sin(0.7 i): in [9, 11] ⊂ (−∞, radius + margin = 12], so once predicted it stays.
    const path = Array.from({ length: 200 }, (_, i) => 10 + Math.sin(0.7 * i));
    expect(walk(path, 'interpolated')).toEqual([[5, 'predicted']]); // sin(3.5) = −0.35 is the first dip below 0
    expect(walk(path, 'predicted')).toEqual([]);
    // Control: without a margin the same path flips on nearly every crossing.
    expect(walk(path, 'interpolated', { radius: 10, margin: 0 }).length).toBeGreaterThan(20);
  });

  it('rejects a negative radius or margin', () => {
    expect(() => desiredMode('predicted', 1, { radius: -1, margin: 0 })).toThrow(/^react-netcode: .*radius >= 0/);
    expect(() => desiredMode('predicted', 1, { radius: 1, margin: Number.NaN })).toThrow(/margin/);
  });
});

const codec = compileSchema({ pos: field.vec3(), hp: field.u8() });

describe('ModeTransition', () => {
  it('blends from the shown transform to the moving target without a jump and ends exactly on it', () => {
    const t = new ModeTransition(codec, { transitionMs: 250 });
    const shown = { pos: { x: 0, y: 0, z: 0 }, hp: 100 }; // what the interpolated ghost showed at the switch
    const target = { pos: { x: 10, y: 0, z: 0 }, hp: 90 }; // the predicted transform: 10 m ahead
    t.start(shown, 1000);
    expect(t.active).toBe(true);
    shown.pos.x = 99; // start copied its input
    const out = codec.defaults();
    let last = 0;
    // Frames every 10 ms; the target moves at 5 m/s = 0.05 m per frame. Per frame the shown position
    // moves at most |target'| · dt + max s' · |target − from| · dt = 0.05 + (1.5 / 250) · 11.25 · 10 = 0.725
    // (smoothstep's steepest slope is 1.5 / T; |target − from| ≤ 10 + 1.25), against a 10 m jump unblended.
    for (let ms = 0; ms <= 300; ms += 10) {
      target.pos.x = 10 + 0.005 * ms;
      const blending = t.apply(target, 1000 + ms, out);
      expect(blending).toBe(ms < 250);
      expect(Math.abs(out.pos.x - last)).toBeLessThanOrEqual(0.725);
      if (ms === 0) expect(out.pos.x).toBe(0); // smoothstep(0) = 0: exactly the shown transform
      if (ms === 120) expect(out.pos.x).toBeCloseTo(0.470016 * 10.6, 12); // u = 0.48: u²(3 − 2u) = 0.2304 · 2.04 = 0.470016; target 10.6
      last = out.pos.x;
      expect(out.hp).toBe(90); // a clamp field takes the target at once
    }
    expect(out.pos).toEqual(target.pos); // exactly the target after the transition
    expect(t.active).toBe(false);
  });

  it('transitionMs 0 does not blend; bad durations throw; the default is 250 ms', () => {
    expect(new ModeTransition(codec).transitionMs).toBe(DEFAULT_TRANSITION_MS);
    expect(DEFAULT_TRANSITION_MS).toBe(250);
    const t = new ModeTransition(codec, { transitionMs: 0 });
    t.start({ pos: { x: 0, y: 0, z: 0 }, hp: 1 }, 0);
    expect(t.active).toBe(false);
    const out = codec.defaults();
    expect(t.apply({ pos: { x: 5, y: 0, z: 0 }, hp: 2 }, 0, out)).toBe(false);
    expect(out.pos.x).toBe(5);
    expect(() => new ModeTransition(codec, { transitionMs: -1 })).toThrow(/^react-netcode: transitionMs/);
  });

  it('a switch back mid-blend restarts from the shown transform (no jump)', () => {
    const t = new ModeTransition(codec, { transitionMs: 100 });
    const out = codec.defaults();
    t.start({ pos: { x: 0, y: 0, z: 0 }, hp: 1 }, 0);
    t.apply({ pos: { x: 10, y: 0, z: 0 }, hp: 1 }, 50, out); // u = 0.5 → s = 0.5 → x = 5
    expect(out.pos.x).toBe(5);
    t.start(out, 50); // switch back: blend from the shown x = 5 toward the old mode at x = 0
    t.apply({ pos: { x: 0, y: 0, z: 0 }, hp: 1 }, 50, out);
    expect(out.pos.x).toBe(5);
    t.apply({ pos: { x: 0, y: 0, z: 0 }, hp: 1 }, 100, out); // u = 0.5 → 5 · 0.5 = 2.5
    expect(out.pos.x).toBe(2.5);
    t.cancel();
    expect(t.apply({ pos: { x: 0, y: 0, z: 0 }, hp: 1 }, 101, out)).toBe(false);
    expect(out.pos.x).toBe(0);
  });
});
