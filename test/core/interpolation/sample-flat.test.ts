// sampleFlatAt (a ghost's confirmed history in flat storage, what the client samples every frame) against
// sampleValuesAt on a HistoryBuffer of value objects, the same samples: every field kind and smoothing, sparse
// histories, sample times before, between and past the samples, teleports beyond maxSmoothingDistance. Every
// number of the result must be the same (Object.is), and a sample time on an empty history must leave `out` alone.
import { describe, expect, it } from 'vitest';
import { field } from '../../../src/core/field.ts';
import { FlatHistory } from '../../../src/core/flat-history.ts';
import { HistoryBuffer } from '../../../src/core/history.ts';
import { sampleFlatAt, sampleValuesAt, setSampleTime } from '../../../src/core/interpolation/index.ts';
import { createRng, type Rng } from '../../../src/core/rng.ts';
import { compileSchema, type Schema, type Values } from '../../../src/core/schema.ts';

const schema = {
  hp: field.u8(),
  speed: field.f32({ smoothing: 'interpolate' }),
  lean: field.f32({ quantize: 100, smoothing: 'extrapolate', maxSmoothingDistance: 3 }),
  flat: field.vec2({ quantize: 100, smoothing: 'extrapolate' }),
  position: field.vec3({ quantize: 1000, maxSmoothingDistance: 8 }),
  velocity: field.vec3(),
  rotation: field.quat(),
  held: field.quat({ smoothing: 'clamp' }),
  alive: field.bool(),
  name: field.string(8),
  team: field.enum(['red', 'blue']),
  shots: field.event(),
} satisfies Schema;
const codec = compileSchema(schema as Schema);

function randomQuat(rng: Rng): { x: number; y: number; z: number; w: number } {
  const q = { x: rng.range(-1, 1), y: rng.range(-1, 1), z: rng.range(-1, 1), w: rng.range(-1, 1) };
  const len = Math.hypot(q.x, q.y, q.z, q.w) || 1;
  return { x: q.x / len, y: q.y / len, z: q.z / len, w: q.w / len };
}

function randomValues(rng: Rng, tick: number): Values<Schema> {
  const jump = rng.chance(0.1) ? 20 : 1; // now and then a teleport beyond maxSmoothingDistance
  return {
    hp: rng.int(256), speed: rng.range(-5, 5), lean: Math.round(rng.range(-4, 4) * 100) / 100,
    flat: { x: tick * 0.5, y: rng.range(-1, 1) },
    position: { x: tick * jump, y: rng.range(-2, 2), z: -tick },
    velocity: { x: rng.range(-3, 3), y: 0, z: rng.range(-3, 3) },
    rotation: randomQuat(rng), held: randomQuat(rng),
    alive: rng.chance(0.5), name: rng.chance(0.5) ? 'ana' : 'bo', team: rng.chance(0.5) ? 'red' : 'blue', shots: tick * 3,
  } as unknown as Values<Schema>;
}

/** Every number of a value, in key order (vectors component by component; the others as they are). */
function flatten(v: Values<Schema>): unknown[] {
  return codec.keys.flatMap((key) => {
    const x = (v as Record<string, unknown>)[key];
    return typeof x === 'object' && x !== null ? Object.values(x as Record<string, number>) : [x];
  });
}

describe('sampleFlatAt (flat confirmed history) against sampleValuesAt (value objects)', () => {
  it('gives the same value, bit for bit, over 2,000 random histories and sample times', () => {
    const rng = createRng(0x5a3, 1);
    let blended = 0;
    for (let round = 0; round < 2000; round++) {
      const objects = new HistoryBuffer<Values<Schema>>(16);
      const flat = new FlatHistory(codec, 16);
      const start = rng.chance(0.1) ? 0xffff_fff0 : rng.int(1000); // some across the uint32 wrap
      let tick = start;
      for (let n = rng.int(6); n > 0; n--) {
        tick = (tick + 1 + rng.int(4)) >>> 0; // sparse: snapshots every few ticks
        const v = randomValues(rng, tick);
        objects.set(tick, v);
        flat.record(v, tick);
      }
      const at = (start + rng.int(tick - start + 30 >>> 0) - 3) >>> 0; // before, between and past the samples
      const fraction = rng.chance(0.2) ? rng.range(-1, 2.5) : rng.next();
      const extrapolation = rng.int(3) * 4;
      const a = codec.defaults();
      const b = codec.defaults();
      setSampleTime(at, fraction);
      const sampledObjects = sampleValuesAt(codec, objects, a, extrapolation);
      setSampleTime(at, fraction);
      const sampledFlat = sampleFlatAt(codec, flat, b, extrapolation);
      expect(sampledFlat).toBe(sampledObjects);
      const want = flatten(a);
      const got = flatten(b);
      for (let i = 0; i < want.length; i++) expect(Object.is(got[i], want[i]), `round ${round}, number ${i}: ${String(got[i])} vs ${String(want[i])}`).toBe(true);
      if (sampledObjects && (a as { speed: number }).speed !== 0) blended++;
    }
    expect(blended).toBeGreaterThan(1300); // most rounds sampled a non-empty history
  });

  it('leaves `out` alone and returns false on an empty history', () => {
    const out = codec.defaults();
    (out as { hp: number }).hp = 7;
    setSampleTime(10, 0.5);
    expect(sampleFlatAt(codec, new FlatHistory(codec, 8), out, 20)).toBe(false);
    expect((out as { hp: number }).hp).toBe(7);
  });
});
