import { describe, expect, it } from 'vitest';
import { field, type Quat, type Vec3 } from '../../../src/core/field.ts';
import { HistoryBuffer } from '../../../src/core/history.ts';
import { lerpField, sampleField, sampleValues } from '../../../src/core/interpolation/index.ts';
import { compileSchema, type Values } from '../../../src/core/schema.ts';

function history<T>(entries: readonly (readonly [number, T])[], capacity = 64): HistoryBuffer<T> {
  const h = new HistoryBuffer<T>(capacity);
  for (const [tick, value] of entries) h.set(tick, value);
  return h;
}

const v3 = (x: number, y: number, z: number): Vec3 => ({ x, y, z });
const S = Math.SQRT1_2;

describe('sampleField: interpolate', () => {
  it('blends numbers at the exact fractions between two samples', () => {
    const f = field.f32();
    const h = history([[10, 0], [12, 10]]);
    expect(sampleField(f, h, 10, 0, 0, 20)).toBe(0); // on a sample: that sample
    expect(sampleField(f, h, 11, 0, 0, 20)).toBe(5); // (11 − 10) / (12 − 10) = 0.5 → 5
    expect(sampleField(f, h, 11, 0.5, 0, 20)).toBe(7.5); // 1.5 / 2 = 0.75 → 7.5
    expect(sampleField(f, h, 10, 1.5, 0, 20)).toBe(7.5); // a fraction ≥ 1 carries into the tick
    expect(sampleField(f, h, 12, 0, 0, 20)).toBe(10);
  });

  it('writes vectors into out (no allocation) and returns out', () => {
    const f = field.vec3();
    const h = history([[10, v3(0, 0, 0)], [14, v3(4, 8, -2)]]);
    const out = v3(99, 99, 99);
    const got = sampleField(f, h, 12, 0, out, 20); // (12 − 10) / 4 = 0.5
    expect(got).toBe(out);
    expect(out).toEqual({ x: 2, y: 4, z: -1 });
    expect(sampleField(f, h, 13, 0.5, out, 20)).toBe(out); // 3.5 / 4 = 0.875
    expect(out).toEqual({ x: 3.5, y: 7, z: -1.75 });
    expect(sampleField(f, h, 20, 0, out, 20)).toBe(out); // beyond the newest: hold it
    expect(out).toEqual({ x: 4, y: 8, z: -2 });
    expect(h.get(14)).toEqual({ x: 4, y: 8, z: -2 }); // the history is never written
    const v2 = { x: 0, y: 0 };
    expect(sampleField(field.vec2(), history([[0, { x: 0, y: 2 }], [2, { x: 2, y: 0 }]]), 1, 0, v2, 20)).toBe(v2);
    expect(v2).toEqual({ x: 1, y: 1 });
  });

  it('interpolates quaternions on the shorter arc and normalizes', () => {
    const f = field.quat();
    const b: Quat = { x: 0, y: 0, z: S, w: S }; // 90° about z
    const out: Quat = { x: 0, y: 0, z: 0, w: 1 };
    const mid = { x: 0, y: 0, z: Math.sin(Math.PI / 8), w: Math.cos(Math.PI / 8) }; // 45° about z
    expect(sampleField(f, history([[0, { x: 0, y: 0, z: 0, w: 1 }], [2, b]]), 1, 0, out, 20)).toBe(out);
    // nlerp: (0,0,0.3536,0.8536) / 0.9239 = (0,0,0.3827,0.9239) = (sin 22.5°, cos 22.5°)
    for (const k of ['x', 'y', 'z', 'w'] as const) expect(out[k]).toBeCloseTo(mid[k], 12);
    expect(Math.hypot(out.x, out.y, out.z, out.w)).toBeCloseTo(1, 12);
    // −b is the same rotation: the shorter arc gives the same midpoint, not a 270° swing.
    sampleField(f, history([[0, { x: 0, y: 0, z: 0, w: 1 }], [2, { x: -0, y: -0, z: -S, w: -S }]]), 1, 0, out, 20);
    for (const k of ['x', 'y', 'z', 'w'] as const) expect(out[k]).toBeCloseTo(mid[k], 12);
  });

  it('snaps across a teleport larger than maxSmoothingDistance (never an in-between value)', () => {
    const f = field.vec3({ maxSmoothingDistance: 1 });
    const h = history([[10, v3(0, 0, 0)], [11, v3(10, 0, 0)], [12, v3(10.5, 0, 0)]]);
    const out = v3(0, 0, 0);
    const seen = new Set<number>();
    for (let i = 0; i < 10; i++) {
      sampleField(f, h, 10, i / 10, out, 20);
      seen.add(out.x);
    }
    sampleField(f, h, 11, 0, out, 20);
    seen.add(out.x);
    expect([...seen]).toEqual([0, 10]); // a 10 m jump: a, then b
    sampleField(f, h, 11, 0.5, out, 20); // 0.5 m ≤ 1: blends again → 10.25
    expect(out.x).toBe(10.25);
  });

  it('blends across sparse samples using their actual ticks, also across the uint32 wrap', () => {
    const f = field.f32();
    expect(sampleField(f, history([[10, 0], [20, 100]]), 13, 0.5, 0, 20)).toBe(35); // 3.5 / 10 → 35
    const wrap = history([[0xffff_fffe, 0], [2, 40]]); // 4 ticks apart across the wrap
    expect(sampleField(f, wrap, 0, 0.5, 0, 20)).toBe(25); // (2 + 0.5) / 4 = 0.625 → 25
  });

  it('holds the oldest sample before the history starts and returns undefined when empty', () => {
    const f = field.f32();
    expect(sampleField(f, history([[10, 7], [12, 9]]), 5, 0.5, 0, 20)).toBe(7);
    expect(sampleField(f, new HistoryBuffer<number>(8), 5, 0, 0, 20)).toBeUndefined();
  });
});

describe('sampleField: clamp and extrapolate', () => {
  it('never blends clamp fields or kinds that cannot blend', () => {
    expect(sampleField(field.u8(), history([[10, 1], [12, 5]]), 11, 0.9, 0, 20)).toBe(1); // u8 defaults to clamp
    expect(sampleField(field.u8(), history([[10, 1], [12, 5]]), 12, 0, 0, 20)).toBe(5);
    expect(sampleField(field.f32({ smoothing: 'clamp' }), history([[10, 0], [12, 10]]), 11, 0.9, 0, 20)).toBe(0);
    const out = v3(0, 0, 0);
    sampleField(field.vec3({ smoothing: 'clamp' }), history([[10, v3(0, 0, 0)], [12, v3(2, 2, 2)]]), 11, 0.9, out, 20);
    expect(out).toEqual({ x: 0, y: 0, z: 0 });
    // Asking a bool / enum / string / event to interpolate or extrapolate still does not blend.
    expect(sampleField(field.bool({ smoothing: 'interpolate' }), history([[10, false], [12, true]]), 11, 0.9, false, 20)).toBe(false);
    const e = field.enum(['idle', 'run'], { smoothing: 'extrapolate' });
    expect(sampleField(e, history<'idle' | 'run'>([[10, 'idle'], [12, 'run']]), 11, 0.9, 'idle', 20)).toBe('idle');
    expect(sampleField(field.string(8, { smoothing: 'interpolate' }), history([[10, 'a'], [12, 'b']]), 11, 0.5, '', 20)).toBe('a');
    expect(sampleField(field.event({ smoothing: 'interpolate' }), history([[10, 4], [12, 6]]), 11, 0.5, 0, 20)).toBe(4);
  });

  it('extrapolates linearly from the last two samples, at most maxExtrapolationTicks, then holds', () => {
    const f = field.f32({ smoothing: 'extrapolate' });
    const h = history([[8, 0], [12, 4], [13, 6]]); // last two: 4 → 6, 2 per tick
    expect(sampleField(f, h, 12, 0.5, 0, 20)).toBe(5); // between samples: interpolation
    expect(sampleField(f, h, 15, 0.5, 0, 20)).toBe(11); // 6 + 2.5 × 2
    expect(sampleField(f, h, 33, 0, 0, 20)).toBe(46); // 20 ticks past 13: 6 + 20 × 2
    expect(sampleField(f, h, 100, 0, 0, 20)).toBe(46); // beyond the bound: held
    expect(sampleField(f, h, 15, 0, 0, 0)).toBe(6); // maxExtrapolationTicks 0: hold
    expect(sampleField(field.f32(), h, 15, 0, 0, 20)).toBe(6); // interpolate fields hold the newest
    expect(sampleField(f, history([[13, 6]]), 15, 0, 0, 20)).toBe(6); // one sample: nothing to extrapolate from
    // Sparse: the last two samples 8 → 12 are 4 ticks apart (1 per tick).
    expect(sampleField(f, history([[8, 0], [12, 4]]), 14, 0, 0, 20)).toBe(6);
  });

  it('does not extrapolate out of a teleport', () => {
    const f = field.vec3({ smoothing: 'extrapolate', maxSmoothingDistance: 1 });
    const h = history([[10, v3(0, 0, 0)], [11, v3(10, 0, 0)]]);
    const out = v3(0, 0, 0);
    sampleField(f, h, 14, 0, out, 20);
    expect(out).toEqual({ x: 10, y: 0, z: 0 });
    sampleField(field.vec3({ smoothing: 'extrapolate' }), h, 12, 0.5, out, 20); // no limit: 10 + 1.5 × 10
    expect(out).toEqual({ x: 25, y: 0, z: 0 });
  });
});

describe('lerpField', () => {
  it('returns a at t = 0 and b at t = 1 exactly and tolerates out aliasing a', () => {
    const f = field.vec3();
    const a = v3(0.1, 0.2, 0.3);
    const b = v3(7.7, -3.3, 1e6);
    expect(lerpField(f, a, b, 0, v3(0, 0, 0))).toEqual(a);
    expect(lerpField(f, a, b, 1, v3(0, 0, 0))).toEqual(b);
    expect(lerpField(field.f32(), 0.1, 0.7, 1, 0)).toBe(0.7);
    const c = v3(0.25, 0.5, 1);
    expect(lerpField(f, c, v3(8, -4, 1e6), 0.5, c)).toBe(c); // out === a: each axis read before written
    expect(c).toEqual({ x: 4.125, y: -1.75, z: 500000.5 }); // (0.25 + 8) / 2, (0.5 − 4) / 2, (1 + 1e6) / 2
  });
});

describe('sampleValues', () => {
  const codec = compileSchema({ pos: field.vec3(), hp: field.u8(), yaw: field.f32(), mode: field.enum(['walk', 'fly']) });
  type V = Values<typeof codec.schema>;
  const at = (x: number, hp: number, yaw: number, mode: 'walk' | 'fly'): V => ({ pos: v3(x, 0, 0), hp, yaw, mode });

  it('samples every field at once, in place', () => {
    const h = history<V>([[100, at(0, 10, 0, 'walk')], [104, at(8, 20, 2, 'fly')]]);
    const out = codec.defaults();
    const pos = out.pos;
    expect(sampleValues(codec, h, 103, 0, out, 20)).toBe(true); // (103 − 100) / 4 = 0.75
    expect(out).toEqual({ pos: { x: 6, y: 0, z: 0 }, hp: 10, yaw: 1.5, mode: 'walk' });
    expect(out.pos).toBe(pos); // written in place
    expect(sampleValues(codec, h, 104, 0, out, 20)).toBe(true);
    expect(out).toEqual({ pos: { x: 8, y: 0, z: 0 }, hp: 20, yaw: 2, mode: 'fly' });
  });

  it('leaves out untouched on an empty history', () => {
    const out = codec.defaults();
    expect(sampleValues(codec, new HistoryBuffer<V>(8), 5, 0, out, 20)).toBe(false);
    expect(out).toEqual(codec.defaults());
  });
});
