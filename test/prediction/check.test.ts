// The rollback's tolerance check: the generated straight-line check (compileBeyondTolerance)
// against its reference loop over Field.distance (referenceBeyondTolerance), for every field kind,
// predicted-only and nonOwner fields, local and remote ghosts, and values near each tolerance.
import { describe, expect, it } from 'vitest';
import { field } from '../../src/core/field.ts';
import { compileBeyondTolerance, referenceBeyondTolerance } from '../../src/core/prediction-check.ts';
import { Rng } from '../../src/core/rng.ts';
import { compileSchema, type Schema, type Values } from '../../src/core/schema.ts';

const schema = {
  alive: field.bool(),
  hp: field.u8(),
  ammo: field.u16({ replicated: false }),
  speed: field.f32({ quantize: 100 }),
  aim: field.vec2({ tolerance: 0.01 }),
  position: field.vec3({ quantize: 1000 }),
  rotation: field.quat(),
  velocity: field.vec3({ replicated: false }),
  heading: field.f32({ sendTo: 'nonOwner', tolerance: 0.5 }),
  state: field.enum(['idle', 'run', 'jump']),
  'odd key-1': field.f32(),
};

/** A copy of `base` where each field, with probability 1/8, moves by up to twice its tolerance (or to NaN, rarely). */
function near(rng: Rng, base: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(base);
  const nudge = (v: number): number => (rng.next() < 0.02 ? Number.NaN : v + (rng.next() < 0.5 ? rng.range(-0.002, 0.002) : rng.range(-1, 1)));
  for (const key of Object.keys(out)) {
    if (rng.next() > 1 / 8) continue;
    const v = out[key];
    if (typeof v === 'number') out[key] = key === 'hp' ? (v + 1) % 256 : nudge(v);
    else if (typeof v === 'boolean') out[key] = !v;
    else if (typeof v === 'string') out[key] = v === 'run' ? 'jump' : 'run';
    else for (const c of Object.keys(v as object)) (v as Record<string, number>)[c] = nudge((v as Record<string, number>)[c]!);
  }
  return out;
}

describe('rollback tolerance check', () => {
  it('the generated check answers exactly what the reference check answers', () => {
    const codec = compileSchema(schema as Schema);
    const reference = referenceBeyondTolerance(codec);
    const compiled = compileBeyondTolerance(codec);
    const rng = new Rng(0xbe70);
    let beyond = 0;
    for (let i = 0; i < 2000; i++) {
      const base = {
        alive: true, hp: rng.int(256), ammo: rng.int(65536), speed: rng.range(-10, 10), aim: { x: rng.range(-1, 1), y: rng.range(-1, 1) },
        position: { x: rng.range(-100, 100), y: rng.range(-100, 100), z: rng.range(-100, 100) },
        rotation: { x: 0, y: Math.sin(i), z: 0, w: Math.cos(i) }, velocity: { x: 1, y: 2, z: 3 }, heading: rng.range(0, 6),
        state: 'idle', 'odd key-1': rng.range(0, 1),
      };
      const other = near(rng, base);
      for (const local of [false, true]) {
        const want = reference(base as Values<Schema>, other as Values<Schema>, local);
        expect(compiled(base as Values<Schema>, other as Values<Schema>, local)).toBe(want);
        if (want) beyond++;
      }
    }
    // Both answers occur often: the comparison above is not of two constant functions.
    expect(beyond).toBeGreaterThan(400);
    expect(beyond).toBeLessThan(3600);
  });

  it('ignores predicted-only fields always and nonOwner fields on the local ghost', () => {
    const codec = compileSchema(schema as Schema);
    const a = codec.defaults() as Record<string, unknown>;
    const b = codec.defaults() as Record<string, unknown>;
    (b['velocity'] as { x: number }).x = 5;
    b['ammo'] = 7;
    for (const check of [referenceBeyondTolerance(codec), compileBeyondTolerance(codec)]) {
      expect(check(a as Values<Schema>, b as Values<Schema>, false)).toBe(false);
      b['heading'] = 1;
      expect(check(a as Values<Schema>, b as Values<Schema>, true)).toBe(false);
      expect(check(a as Values<Schema>, b as Values<Schema>, false)).toBe(true);
      b['heading'] = 0;
    }
  });
});
