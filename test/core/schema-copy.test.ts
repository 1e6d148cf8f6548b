// The schema codec's copy: the generated straight-line copy (compileCopy) against the
// reference loop over Field.copy (referenceCopy), for every field kind, replicated and
// predicted-only fields, all fields and the replicated ones only.
import { describe, expect, it } from 'vitest';
import { field } from '../../src/core/field.ts';
import { Rng } from '../../src/core/rng.ts';
import { compileCopy, compileSchema, referenceCopy } from '../../src/core/schema.ts';

const schema = {
  alive: field.bool(),
  hp: field.u8(),
  ammo: field.u16({ replicated: false }),
  score: field.u32(),
  delta: field.i32(),
  speed: field.f32({ quantize: 100 }),
  aim: field.vec2(),
  position: field.vec3({ quantize: 1000 }),
  rotation: field.quat(),
  velocity: field.vec3({ replicated: false }),
  name: field.string(12),
  state: field.enum(['idle', 'run', 'jump']),
  'odd key-1': field.f32(),
  fire: field.event(),
};

function random(rng: Rng): Record<string, unknown> {
  const q = { x: rng.range(-1, 1), y: rng.range(-1, 1), z: rng.range(-1, 1), w: rng.range(-1, 1) };
  return {
    alive: rng.next() < 0.5, hp: rng.int(256), ammo: rng.int(65536), score: rng.nextUint32(), delta: rng.int(1000) - 500,
    speed: rng.range(-10, 10), aim: { x: rng.range(-1, 1), y: rng.range(-1, 1) },
    position: { x: rng.range(-100, 100), y: rng.range(-100, 100), z: rng.range(-100, 100) }, rotation: q,
    velocity: { x: rng.range(-5, 5), y: rng.range(-5, 5), z: rng.range(-5, 5) }, name: `p${rng.int(1000)}`,
    state: ['idle', 'run', 'jump'][rng.int(3)], 'odd key-1': rng.range(0, 1), fire: rng.nextUint32(),
  };
}

describe('schema copy', () => {
  it('the generated copy writes exactly what the reference copy writes, into the same objects', () => {
    const codec = compileSchema(schema);
    const entries = codec.keys.map((key) => ({ key, field: schema[key] }));
    const wire = entries.filter((e) => e.field.options.replicated);
    const rng = new Rng(0x5c0e);
    for (let i = 0; i < 200; i++) {
      for (const list of [entries, wire]) {
        const from = random(rng);
        const a = codec.defaults() as Record<string, unknown>;
        const b = codec.defaults() as Record<string, unknown>;
        const objectsA = Object.values(a).filter((v) => typeof v === 'object');
        const objectsB = Object.values(b).filter((v) => typeof v === 'object');
        referenceCopy(list)(from, a);
        compileCopy(list)(from, b);
        expect(b).toEqual(a);
        // Vectors and quaternions are written into the existing objects, never replaced by `from`'s.
        expect(Object.values(b).filter((v) => typeof v === 'object')).toEqual(objectsB);
        for (let k = 0; k < objectsA.length; k++) expect(Object.values(b).filter((v) => typeof v === 'object')[k]).toBe(objectsB[k]);
        expect(objectsA.every((o) => !Object.values(from).includes(o))).toBe(true);
      }
    }
  });

  it('codec.copy (generated here) leaves predicted-only fields alone with replicatedOnly', () => {
    const codec = compileSchema(schema);
    const from = random(new Rng(3)) as never;
    const to = codec.defaults() as Record<string, unknown>;
    codec.copy(from, to as never, true);
    expect(to['ammo']).toBe(0); // predicted-only: untouched
    expect(to['velocity']).toEqual({ x: 0, y: 0, z: 0 });
    expect(to['position']).toEqual((from as Record<string, unknown>)['position']);
    codec.copy(from, to as never);
    expect(to).toEqual(from);
  });
});
