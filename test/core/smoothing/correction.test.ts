import { describe, expect, it } from 'vitest';
import { NetcodeError } from '../../../src/core/errors.ts';
import type { Quat, Vec3 } from '../../../src/core/field.ts';
import { DEFAULT_CORRECTION_OPTIONS, VisualCorrection } from '../../../src/core/smoothing/index.ts';

const v3 = (x: number, y: number, z: number): Vec3 => ({ x, y, z });
const ORIGIN = Object.freeze(v3(0, 0, 0));
const IDENTITY: Readonly<Quat> = Object.freeze({ x: 0, y: 0, z: 0, w: 1 });
/** Rotation of `deg` degrees about z. */
const aboutZ = (deg: number): Quat => ({ x: 0, y: 0, z: Math.sin((deg * Math.PI) / 360), w: Math.cos((deg * Math.PI) / 360) });

describe('VisualCorrection: linear decay', () => {
  it('documents its defaults', () => {
    const c = new VisualCorrection();
    expect(DEFAULT_CORRECTION_OPTIONS).toEqual({ smoothingMs: 100, minDistance: 0.001, teleportDistance: 2, minAngle: 0.001, teleportAngle: Infinity });
    expect([c.smoothingMs, c.minDistance, c.teleportDistance]).toEqual([100, 0.001, 2]);
    expect(c.active).toBe(false);
  });

  it('decays a 0.5 m error linearly to exactly 0 over 100 ms', () => {
    const c = new VisualCorrection();
    // The ghost was predicted at x = 0.5, resimulation put it at x = 0: offset = before − after = +0.5.
    expect(c.onCorrection(v3(0.5, 0, 0), ORIGIN)).toBe('smoothed');
    expect(c.offset).toEqual({ x: 0.5, y: 0, z: 0 });
    const expected = [0.375, 0.25, 0.125, 0]; // 0.5 · (1 − t / 100) at t = 25, 50, 75, 100
    for (const want of expected) {
      c.update(25);
      expect(c.offset.x).toBe(want);
      expect(c.offsetMagnitude).toBe(want);
    }
    expect(c.active).toBe(false);
    c.update(25); // stays at zero afterwards
    expect(c.offset).toEqual({ x: 0, y: 0, z: 0 });
  });

  it('is monotonic non-increasing and never overshoots (no component changes sign) at uneven frame times', () => {
    const c = new VisualCorrection();
    c.onCorrection(v3(0.3, -0.4, 0), ORIGIN); // |(0.3, −0.4, 0)| = 0.5
    expect(c.offsetMagnitude).toBeCloseTo(0.5, 12);
    const frames = [7, 16.6, 3, 33.3, 11, 16.6, 16.6, 40]; // sums past 100 ms
    let last = c.offsetMagnitude;
    for (const dt of frames) {
      c.update(dt);
      expect(c.offsetMagnitude).toBeLessThanOrEqual(last);
      expect(c.offset.x).toBeGreaterThanOrEqual(0);
      expect(c.offset.y).toBeLessThanOrEqual(0);
      last = c.offsetMagnitude;
    }
    // 7 + 16.6 + 3 + 33.3 + 11 + 16.6 + 16.6 = 104.1 ≥ 100 → exactly zero before the last frame
    expect(c.offset).toEqual({ x: 0, y: 0, z: 0 });
  });

  it('adds a second error to the remaining offset and restarts the decay of the sum', () => {
    const c = new VisualCorrection();
    c.onCorrection(v3(0.5, 0, 0), ORIGIN);
    c.update(50); // 0.5 · 0.5 = 0.25 remaining
    expect(c.offset.x).toBe(0.25);
    expect(c.onCorrection(v3(2, 0.1, 0), v3(2, 0, 0))).toBe('smoothed'); // new error (0, 0.1, 0)
    expect(c.offset.x).toBe(0.25); // no jump in the rendered position
    expect(c.offset.y).toBeCloseTo(0.1, 12);
    c.update(50); // (0.25, 0.1) · (1 − 50 / 100) = (0.125, 0.05)
    expect(c.offset.x).toBe(0.125);
    expect(c.offset.y).toBeCloseTo(0.05, 12);
    c.update(50);
    expect(c.active).toBe(false);
  });
});

describe('VisualCorrection: thresholds', () => {
  it('ignores a 0.5 mm error and keeps decaying the remaining offset', () => {
    const c = new VisualCorrection();
    expect(c.onCorrection(v3(0.0005, 0, 0), ORIGIN)).toBe('ignored'); // 0.5 mm < 1 mm
    expect(c.active).toBe(false);
    c.onCorrection(v3(0.4, 0, 0), ORIGIN);
    c.update(50); // 0.2 left, 50 ms into the decay
    expect(c.onCorrection(v3(0, 0.0005, 0), ORIGIN)).toBe('ignored');
    c.update(25); // still on the first ramp: 0.4 · (1 − 75 / 100) = 0.1
    expect(c.offset.x).toBeCloseTo(0.1, 12);
    expect(c.offset.y).toBe(0);
  });

  it('snaps a 5 m error: the whole offset is dropped', () => {
    const c = new VisualCorrection();
    c.onCorrection(v3(0.5, 0, 0), ORIGIN);
    expect(c.onCorrection(v3(5, 0, 0), ORIGIN)).toBe('snapped'); // 5 m > 2 m
    expect(c.offset).toEqual({ x: 0, y: 0, z: 0 });
    expect(c.offsetMagnitude).toBe(0);
    expect(c.active).toBe(false);
  });

  it('snaps when the summed offset passes the teleport distance', () => {
    const c = new VisualCorrection({ teleportDistance: 1 });
    expect(c.onCorrection(v3(0.8, 0, 0), ORIGIN)).toBe('smoothed');
    expect(c.onCorrection(v3(0.8, 0, 0), ORIGIN)).toBe('snapped'); // 0.8 + 0.8 = 1.6 > 1
    expect(c.offsetMagnitude).toBe(0);
  });

  it('smoothingMs 0 turns smoothing off; bad options and frame times throw', () => {
    const c = new VisualCorrection({ smoothingMs: 0 });
    expect(c.onCorrection(v3(0.5, 0, 0), ORIGIN)).toBe('snapped');
    expect(c.onCorrection(v3(0.0005, 0, 0), ORIGIN)).toBe('ignored');
    expect(() => new VisualCorrection({ minDistance: -1 })).toThrow(NetcodeError);
    expect(() => new VisualCorrection({ smoothingMs: Number.NaN })).toThrow(/^react-netcode: /);
    expect(() => c.update(-1)).toThrow(/frame time >= 0/);
    expect(() => c.onCorrection(ORIGIN, ORIGIN, IDENTITY)).toThrow(/both rotations/);
  });
});

describe('VisualCorrection: apply and rotation', () => {
  it('writes sim + offset into out and never mutates the sim objects', () => {
    const c = new VisualCorrection();
    const simPos = Object.freeze(v3(10, 1, -2)); // frozen: any write would throw in strict mode
    const simRot = Object.freeze(aboutZ(30));
    c.onCorrection(v3(10.5, 1, -2), simPos, aboutZ(30), simRot);
    const outPos = v3(0, 0, 0);
    const outRot: Quat = { x: 0, y: 0, z: 0, w: 1 };
    c.update(25);
    c.apply(simPos, outPos, simRot, outRot);
    expect(outPos).toEqual({ x: 10.375, y: 1, z: -2 }); // 10 + 0.5 · 0.75
    expect(outRot).toEqual(simRot); // no rotation error: identity · simRot
    expect(simPos).toEqual({ x: 10, y: 1, z: -2 });
  });

  it('decays a rotation offset along the shortest arc to identity', () => {
    const c = new VisualCorrection();
    // Shown at 90° about z, resimulated to 0°: offset 90°, so offset · after = before.
    expect(c.onCorrection(ORIGIN, ORIGIN, aboutZ(90), IDENTITY)).toBe('smoothed');
    expect(c.offsetAngle).toBeCloseTo(Math.PI / 2, 12);
    const out: Quat = { x: 0, y: 0, z: 0, w: 1 };
    c.apply(ORIGIN, v3(0, 0, 0), IDENTITY, out);
    for (const k of ['x', 'y', 'z', 'w'] as const) expect(out[k]).toBeCloseTo(aboutZ(90)[k], 12);
    c.update(50); // 90° · (1 − 50 / 100) = 45°
    for (const k of ['x', 'y', 'z', 'w'] as const) expect(c.rotationOffset[k]).toBeCloseTo(aboutZ(45)[k], 12);
    c.update(25); // 22.5°
    expect(c.offsetAngle).toBeCloseTo(Math.PI / 8, 12);
    c.update(25);
    expect(c.rotationOffset).toEqual({ x: 0, y: 0, z: 0, w: 1 });
    // A rotation error composes with a non-identity simulation rotation: 10° error on a 20° sim shows 30°.
    c.onCorrection(ORIGIN, ORIGIN, aboutZ(30), aboutZ(20));
    c.apply(ORIGIN, v3(0, 0, 0), aboutZ(20), out);
    for (const k of ['x', 'y', 'z', 'w'] as const) expect(out[k]).toBeCloseTo(aboutZ(30)[k], 12);
  });

  it('ignores a rotation below minAngle and snaps one above teleportAngle', () => {
    const c = new VisualCorrection({ teleportAngle: Math.PI / 2 });
    expect(c.onCorrection(ORIGIN, ORIGIN, aboutZ(0.01), IDENTITY)).toBe('ignored'); // 0.01° ≈ 0.000175 rad < 0.001
    expect(c.onCorrection(ORIGIN, ORIGIN, aboutZ(120), IDENTITY)).toBe('snapped'); // 2.09 rad > π/2
    // −q is the same rotation: a 10° error given as −q is 10°, not 350°.
    const q = aboutZ(10);
    expect(c.onCorrection(ORIGIN, ORIGIN, { x: -q.x, y: -q.y, z: -q.z, w: -q.w }, IDENTITY)).toBe('smoothed');
    expect(c.offsetAngle).toBeCloseTo((10 * Math.PI) / 180, 12);
  });
});
