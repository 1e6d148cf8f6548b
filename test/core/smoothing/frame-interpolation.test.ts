import { describe, expect, it } from 'vitest';
import { field } from '../../../src/core/field.ts';
import { compileSchema, type Values } from '../../../src/core/schema.ts';
import { FrameInterpolator, frameInterpolate } from '../../../src/core/smoothing/index.ts';

const codec = compileSchema({
  pos: field.vec3(),
  yaw: field.f32(),
  rot: field.quat(),
  hp: field.u8(), // integers default to 'clamp'
  ammo: field.f32({ smoothing: 'clamp' }),
  alive: field.bool(),
  state: field.enum(['idle', 'run']),
  lead: field.vec3({ smoothing: 'extrapolate' }),
  portal: field.vec3({ maxSmoothingDistance: 1 }),
});
type V = Values<typeof codec.schema>;

const S = Math.SQRT1_2;

function values(x: number, over: Partial<V> = {}): V {
  return {
    pos: { x, y: 2 * x, z: -x },
    yaw: x,
    rot: { x: 0, y: 0, z: 0, w: 1 },
    hp: 100,
    ammo: 10,
    alive: true,
    state: 'idle',
    lead: { x, y: 0, z: 0 },
    portal: { x: 0, y: 0, z: 0 },
    ...over,
  };
}

describe('frameInterpolate', () => {
  it('blends interpolated fields at the exact fraction', () => {
    const prev = values(0);
    const cur = values(4, { rot: { x: 0, y: 0, z: S, w: S } }); // 90° about z
    const out = codec.defaults();
    const pos = out.pos;
    expect(frameInterpolate(codec, prev, cur, 0.5, out)).toBe(out);
    expect(out.pos).toBe(pos); // written in place
    expect(out.pos).toEqual({ x: 2, y: 4, z: -2 }); // (0 + 4) / 2, (0 + 8) / 2, (0 − 4) / 2
    expect(out.yaw).toBe(2);
    expect(out.lead).toEqual({ x: 2, y: 0, z: 0 }); // extrapolate blends like interpolate between ticks
    // nlerp of identity and 90° at 0.5 = 45° about z = (0, 0, sin 22.5°, cos 22.5°)
    expect(out.rot.z).toBeCloseTo(Math.sin(Math.PI / 8), 12);
    expect(out.rot.w).toBeCloseTo(Math.cos(Math.PI / 8), 12);
    frameInterpolate(codec, prev, cur, 0.25, out);
    expect(out.pos).toEqual({ x: 1, y: 2, z: -1 }); // 4 · 0.25, 8 · 0.25, −4 · 0.25
    expect(prev).toEqual(values(0)); // inputs are only read
  });

  it('fraction 0 shows the previous tick, 1 the current; out of range is clamped', () => {
    const prev = values(0);
    const cur = values(4);
    const out = codec.defaults();
    frameInterpolate(codec, prev, cur, 0, out);
    expect(out.pos).toEqual(prev.pos);
    frameInterpolate(codec, prev, cur, 1, out);
    expect(out.pos).toEqual(cur.pos);
    frameInterpolate(codec, prev, cur, 1.5, out); // clamped to 1: no extrapolation past the current tick
    expect(out.pos).toEqual(cur.pos);
    frameInterpolate(codec, prev, cur, -0.5, out); // clamped to 0
    expect(out.pos).toEqual(prev.pos);
  });

  it('does not blend clamp fields or discrete kinds: they show the current tick', () => {
    const prev = values(0, { hp: 100, ammo: 10, alive: true, state: 'idle' });
    const cur = values(4, { hp: 50, ammo: 4, alive: false, state: 'run' });
    const out = codec.defaults();
    frameInterpolate(codec, prev, cur, 0.5, out);
    expect(out.hp).toBe(50); // a blend would give 75
    expect(out.ammo).toBe(4); // a blend would give 7
    expect(out.alive).toBe(false);
    expect(out.state).toBe('run');
  });

  it('snaps a jump beyond maxSmoothingDistance to the current tick', () => {
    const out = codec.defaults();
    frameInterpolate(codec, values(0), values(0, { portal: { x: 10, y: 0, z: 0 } }), 0.5, out);
    expect(out.portal).toEqual({ x: 10, y: 0, z: 0 }); // 10 > 1: never (5, 0, 0)
    frameInterpolate(codec, values(0), values(0, { portal: { x: 0.8, y: 0, z: 0 } }), 0.5, out);
    expect(out.portal.x).toBeCloseTo(0.4, 12); // 0.8 ≤ 1 blends: 0.8 · 0.5
  });

  it('may write into the current values (out aliasing)', () => {
    const cur = values(4);
    frameInterpolate(codec, values(0), cur, 0.75, cur);
    expect(cur.pos).toEqual({ x: 3, y: 6, z: -3 }); // 4 · 0.75, 8 · 0.75, −4 · 0.75
  });
});

describe('FrameInterpolator', () => {
  it('remembers the previous tick per ghost and interpolates the frame', () => {
    const fi = new FrameInterpolator(codec);
    const sim = values(0); // one ghost's live simulation state
    const out = codec.defaults();
    expect(fi.render(7, sim, 0.5, out)).toBe(false); // no previous tick yet: shows the sim
    expect(out.pos).toEqual(sim.pos);
    expect(out.pos).not.toBe(sim.pos); // copied, not aliased

    fi.beforeTick(7, sim); // tick N − 1 ends at x = 0
    sim.pos.x = 6; // the tick moves the ghost
    sim.yaw = 6;
    expect(fi.render(7, sim, 0.5, out)).toBe(true);
    expect(out.pos.x).toBe(3); // (0 + 6) / 2
    expect(out.yaw).toBe(3);
    fi.beforeTick(7, sim); // next tick starts from x = 6
    sim.pos.x = 8;
    fi.render(7, sim, 0.25, out);
    expect(out.pos.x).toBe(6.5); // 6 + (8 − 6) · 0.25
    expect(fi.size).toBe(1);
  });

  it('keeps ghosts apart and reuses storage from deleted ghosts', () => {
    const fi = new FrameInterpolator(codec);
    const a = values(0);
    const b = values(10);
    fi.beforeTick(1, a);
    fi.beforeTick(2, b);
    a.pos.x = 2;
    b.pos.x = 20;
    const out = codec.defaults();
    fi.render(1, a, 0.5, out);
    expect(out.pos.x).toBe(1); // (0 + 2) / 2
    fi.render(2, b, 0.5, out);
    expect(out.pos.x).toBe(15); // (10 + 20) / 2
    expect(fi.delete(1)).toBe(true);
    expect(fi.delete(1)).toBe(false);
    expect(fi.has(1)).toBe(false);
    expect(fi.render(1, a, 0.5, out)).toBe(false);
    fi.beforeTick(3, values(100)); // takes the pooled slot of ghost 1
    fi.render(3, values(200), 0.5, out);
    expect(out.pos.x).toBe(150); // (100 + 200) / 2: the reused slot holds ghost 3's values
    fi.clear();
    expect(fi.size).toBe(0);
  });
});
