import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../../src/core/bits.ts';
import { NetcodeError } from '../../../src/core/errors.ts';
import { field } from '../../../src/core/field.ts';
import { quantizeInput, sanitizeInput } from '../../../src/core/input/sanitize.ts';
import { Rng } from '../../../src/core/rng.ts';
import { compileSchema, type Values } from '../../../src/core/schema.ts';

const schema = {
  move: field.vec2({ quantize: 100, maxLength: 1 }),
  look: field.vec3({ maxLength: 2 }),
  aim: field.f32({ quantize: 1000, min: -3, max: 3 }),
  throttle: field.f32({ min: 0, max: 1 }),
  slot: field.u8({ min: 1, max: 4 }),
  turn: field.i32(),
  facing: field.quat(),
  mode: field.enum(['walk', 'run']),
  jump: field.event(),
};
const codec = compileSchema(schema);
type V = Values<typeof schema>;

function valid(): V {
  return { move: { x: 0.6, y: 0.8 }, look: { x: 0, y: 1, z: 0 }, aim: 1.5, throttle: 0.5, slot: 2, turn: -7, facing: { x: 0, y: 0, z: 0, w: 1 }, mode: 'run', jump: 12 };
}

describe('sanitizeInput', () => {
  it('leaves a valid input alone', () => {
    const v = valid();
    expect(sanitizeInput(codec, v)).toBe(0);
    expect(v).toEqual(valid());
  });

  it('replaces NaN and ±Infinity with the default, then clamps', () => {
    const v = valid();
    v.aim = NaN; // → 0, inside [-3, 3]
    v.throttle = Infinity; // → 0, inside [0, 1]
    v.slot = NaN; // → 0, then clamped to min 1
    v.turn = -Infinity; // → 0
    expect(sanitizeInput(codec, v)).toBe(4);
    expect([v.aim, v.throttle, v.slot, v.turn]).toEqual([0, 0, 1, 0]);
  });

  it('clamps scalars to min/max and integers into their type', () => {
    const v = valid();
    v.aim = 99; // → max 3
    v.throttle = -0.5; // → min 0
    v.slot = 200; // u8 in range but above max 4 → 4
    v.turn = 2.6; // not an integer → 3
    expect(sanitizeInput(codec, v)).toBe(4);
    expect([v.aim, v.throttle, v.slot, v.turn]).toEqual([3, 0, 4, 3]);
  });

  it('gives vectors finite components and a length of at most maxLength', () => {
    const v = valid();
    v.move = { x: 3, y: 4 }; // length 5 → scaled by 1/5 to (0.6, 0.8), on the 0.01 grid
    v.look = { x: NaN, y: Infinity, z: 4 }; // → (0, 0, 4), length 4 → (0, 0, 2)
    expect(sanitizeInput(codec, v)).toBe(2);
    expect(v.move.x).toBeCloseTo(0.6, 12);
    expect(v.move.y).toBeCloseTo(0.8, 12);
    expect(v.look).toEqual({ x: 0, y: 0, z: 2 });
  });

  it('rounds a clamped vector towards zero onto the wire grid, so a second pass changes nothing', () => {
    const v = valid();
    v.move = { x: 1, y: 1 }; // length √2 → (0.7071…, 0.7071…) → truncated to (0.70, 0.70), length 0.98995
    expect(sanitizeInput(codec, v)).toBe(1);
    expect(v.move).toEqual({ x: 0.7, y: 0.7 });
    expect(sanitizeInput(codec, v)).toBe(0);
  });

  it('fixes quaternions without direction, unknown enum values and bad event counts', () => {
    const v = valid();
    v.facing = { x: 0, y: 0, z: 0, w: 0 }; // no direction → identity
    (v as { mode: string }).mode = 'fly'; // not listed → first value
    v.jump = -1; // a running count is a uint32 → 0
    expect(sanitizeInput(codec, v)).toBe(3);
    expect(v.facing).toEqual({ x: 0, y: 0, z: 0, w: 1 });
    expect(v.mode).toBe('walk');
    expect(v.jump).toBe(0);
  });

  it('makes any garbage encodable, and client then server passes agree exactly', () => {
    // The client commits s(q(s(x))); the server decodes it (q) and sanitizes (s): it must get the same values.
    const rng = new Rng(17);
    const junk = [NaN, Infinity, -Infinity, 1e40, -5, 0.004, 2.9996, 1e10];
    const pick = (): number => (rng.chance(0.3) ? junk[rng.int(junk.length)]! : rng.range(-4, 4));
    const w = new BitWriter();
    const r = new BitReader();
    for (let i = 0; i < 500; i++) {
      const v: V = { ...valid(), move: { x: pick(), y: pick() }, look: { x: pick(), y: pick(), z: pick() }, aim: pick(), throttle: pick(), slot: pick(), turn: pick() };
      sanitizeInput(codec, v);
      quantizeInput(codec, v);
      sanitizeInput(codec, v);
      w.reset();
      codec.write(w, v); // throws if anything is still unencodable
      const server = codec.read(r.reset(w.toBytes()));
      expect(sanitizeInput(codec, server)).toBe(0);
      expect(server).toEqual(v);
      expect(Math.hypot(v.move.x, v.move.y)).toBeLessThanOrEqual(1 + 1e-9);
    }
  });
});

describe('quantizeInput', () => {
  it('rounds in place exactly like a wire round trip', () => {
    const rng = new Rng(5);
    for (let i = 0; i < 200; i++) {
      const v: V = { ...valid(), move: { x: rng.range(-1, 1) * 0.7, y: rng.range(-1, 1) * 0.7 }, look: { x: rng.range(-1, 1), y: rng.range(-1, 1), z: rng.range(-1, 1) }, aim: rng.range(-3, 3), facing: { x: rng.next(), y: rng.next(), z: rng.next(), w: rng.next() } };
      const expected = codec.quantize(v);
      const move = v.move;
      quantizeInput(codec, v);
      expect(v).toEqual(expected);
      expect(v.move).toBe(move); // in place: no new objects
    }
  });
});

describe('field input bounds', () => {
  it('are not part of the wire description', () => {
    expect(field.f32({ quantize: 1000, min: -3, max: 3 }).describe).toBe(field.f32({ quantize: 1000 }).describe);
    expect(field.vec2({ quantize: 100, maxLength: 1 }).describe).toBe('vec2(q=100)');
    expect(field.u8({ min: 1 }).options.min).toBe(1);
    expect('min' in field.u8().options).toBe(false);
  });

  it('reject bounds that cannot work, saying what to pass', () => {
    expect(() => field.f32({ min: 2, max: 1 })).toThrow(/min <= max/);
    expect(() => field.u8({ max: 2.5 })).toThrow(/integers/);
    expect(() => field.vec3({ maxLength: 0 })).toThrow(/maxLength 0 is invalid/);
    expect(() => field.bool({ min: 0 } as never)).toThrow(NetcodeError);
    expect(() => field.event({ max: 1 } as never)).toThrow(/does not take min\/max/);
    expect(() => field.f32({ maxLength: 1 } as never)).toThrow(/only vec2\/vec3/);
  });
});
