import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../src/core/bits.ts';
import { NetcodeError, WireError } from '../../src/core/errors.ts';
import { field, type Field } from '../../src/core/field.ts';
import { Rng } from '../../src/core/rng.ts';
import { compileSchema } from '../../src/core/schema.ts';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof NetcodeError) return e.code;
    throw e;
  }
  return 'no error';
}

/** Write `value`, read it back; returns the decoded value and the bit count. */
function roundTrip<T>(f: Field<T>, value: T): { value: T; bits: number } {
  const w = new BitWriter(8);
  w.writeBits(1, 3); // keep fields off byte boundaries
  f.write(w, value);
  const r = new BitReader(w.toBytes());
  r.readBits(3);
  const out = f.read(r);
  r.expectEnd();
  return { value: out, bits: w.bitLength - 3 };
}

describe('field codecs', () => {
  it('round-trip every kind with the expected bit counts', () => {
    const cases: [Field<unknown>, unknown, number][] = [
      [field.bool(), true, 1],
      [field.bool(), false, 1],
      [field.u8(), 255, 8],
      [field.u16(), 65535, 16],
      [field.u32(), 300, 16],
      [field.u32(), 2 ** 32 - 1, 40],
      [field.i32(), -1, 8],
      [field.i32(), -(2 ** 31), 40],
      [field.f32(), Math.fround(1.1), 32],
      [field.f32({ quantize: 100 }), 1.25, 16],
      [field.vec2(), { x: 1.5, y: -2 }, 64],
      [field.vec3({ quantize: 10 }), { x: 1.5, y: -2, z: 0 }, 24],
      [field.quat(), { x: 0, y: 0, z: 0, w: 1 }, 38],
      [field.quat({ bits: 8 }), { x: 0, y: 0, z: 0, w: 1 }, 26],
      [field.string(16), 'héllo', 56],
      [field.enum(['idle', 'run', 'jump']), 'jump', 2],
      [field.enum(['only']), 'only', 0],
      [field.event(), 2 ** 32 - 1, 40],
    ];
    for (const [f, value, bits] of cases) {
      const got = roundTrip(f, value);
      expect(got.value).toEqual(value);
      expect(got.bits).toBe(bits);
    }
  });

  it('encodes enums in ceil(log2(n)) bits and rejects unknown values and out-of-range indices', () => {
    const widths: [number, number][] = [[1, 0], [2, 1], [3, 2], [4, 2], [5, 3], [8, 3], [9, 4], [256, 8], [257, 9]];
    for (const [n, bits] of widths) {
      const values = Array.from({ length: n }, (_, i) => `v${i}`) as [string, ...string[]];
      const f = field.enum(values);
      expect(roundTrip(f, `v${n - 1}`)).toEqual({ value: `v${n - 1}`, bits });
    }
    const f = field.enum(['a', 'b', 'c']);
    expect(code(() => f.write(new BitWriter(), 'd' as never))).toBe('wire/bad-value');
    const w = new BitWriter();
    w.writeBits(3, 2);
    expect(code(() => f.read(new BitReader(w.toBytes())))).toBe('wire/bad-value');
  });

  it('quantize() is exactly the value that a round trip decodes', () => {
    const rng = new Rng(5);
    const f32 = field.f32();
    const f32q = field.f32({ quantize: 100 });
    const v2 = field.vec2({ quantize: 3 });
    const v3 = field.vec3();
    const q = field.quat({ bits: 10 });
    for (let i = 0; i < 2000; i++) {
      const n = rng.range(-1000, 1000);
      expect(Object.is(roundTrip(f32, n).value, f32.quantize(n))).toBe(true);
      expect(Object.is(roundTrip(f32q, n).value, f32q.quantize(n))).toBe(true);
      const vec = { x: rng.range(-50, 50), y: rng.range(-50, 50), z: rng.range(-1, 1) };
      expect(roundTrip(v2, vec).value).toStrictEqual(v2.quantize(vec));
      expect(roundTrip(v3, vec).value).toStrictEqual(v3.quantize(vec));
      const rot = { x: rng.range(-1, 1), y: rng.range(-1, 1), z: rng.range(-1, 1), w: rng.range(-1, 1) };
      expect(roundTrip(q, rot).value).toStrictEqual(q.quantize(rot));
    }
    expect(f32.quantize(0.1)).toBe(Math.fround(0.1));
    expect(f32q.quantize(1.234)).toBe(1.23);
    expect(Object.is(f32q.quantize(-0.001), 0)).toBe(true); // no -0
    const vec = { x: 0.1, y: 0.2 };
    const qv = v2.quantize(vec);
    expect(qv).not.toBe(vec);
    expect(qv).toEqual({ x: 0, y: 1 / 3 });
    expect(q.quantize({ x: 0, y: 0, z: 0, w: -2 })).toEqual({ x: 0, y: 0, z: 0, w: 1 });
    expect(field.string(4).quantize('ab')).toBe('ab');
  });

  it('rejects values it cannot encode', () => {
    const bad: [Field<unknown>, unknown, string][] = [
      [field.u8(), 256, 'wire/bad-value'],
      [field.u8(), -1, 'wire/bad-value'],
      [field.u8(), 1.5, 'wire/bad-value'],
      [field.u16(), 65536, 'wire/bad-value'],
      [field.u32(), 2 ** 32, 'wire/bad-value'],
      [field.u32(), -1, 'wire/bad-value'],
      [field.i32(), 2 ** 31, 'wire/bad-value'],
      [field.i32(), -(2 ** 31) - 1, 'wire/bad-value'],
      [field.bool(), 1, 'wire/bad-value'],
      [field.f32(), NaN, 'wire/bad-value'],
      [field.f32(), 1e39, 'wire/bad-value'],
      [field.f32({ quantize: 100 }), 3e7, 'wire/bad-value'],
      [field.vec3(), { x: 0, y: Infinity, z: 0 }, 'wire/bad-value'],
      [field.quat(), { x: 0, y: 0, z: 0, w: 0 }, 'wire/bad-value'],
      [field.string(3), 'abcd', 'wire/too-large'],
      [field.string(3), '\uD800', 'wire/bad-value'],
      [field.event(), -1, 'wire/bad-value'],
    ];
    for (const [f, value, expected] of bad) {
      expect(code(() => f.write(new BitWriter(), value as never))).toBe(expected);
      expect(f.validate(value)).toEqual(expect.any(String));
    }
  });

  it('says when the quantized value is what overflows an int32, with both numbers', () => {
    expect(field.vec3({ quantize: 1000 }).validate({ x: 0, y: -2_700_000, z: 0 })).toBe(
      '.y must be a finite number whose quantized value fits an int32, got -2700000 (round(-2700000 × 1000) = -2700000000, beyond ±2147483647)',
    );
    expect(field.f32({ quantize: 100 }).validate(NaN)).toBe('must be a finite number whose quantized value fits an int32, got NaN');
    expect(field.f32().validate(1e39)).toBe('must be a finite number within float32 range, got 1e+39');
  });

  it('rejects invalid definitions with protocol/invalid', () => {
    const defs: (() => unknown)[] = [
      () => field.f32({ quantize: 0 }),
      () => field.f32({ quantize: -1 }),
      () => field.f32({ quantize: NaN }),
      () => field.vec2({ quantize: Infinity }),
      () => field.vec3({ quantize: 0 }),
      () => field.quat({ bits: 3 }),
      () => field.quat({ bits: 17 }),
      () => field.quat({ bits: 12.5 }),
      () => field.string(0),
      () => field.string(2.5),
      () => field.enum([] as unknown as [string]),
      () => field.enum(['a', 'b', 'a']),
      () => field.u8({ sendTo: 'everyone' as never }),
      () => field.f32({ smoothing: 'cubic' as never }),
      () => field.u8({ tolerance: -1 }),
      () => field.u8({ maxSmoothingDistance: NaN }),
    ];
    for (const def of defs) expect(code(def)).toBe('protocol/invalid');
  });

  it('describes exactly what affects the wire', () => {
    const described: [Field<unknown>, string][] = [
      [field.bool(), 'bool'],
      [field.u8({ sendTo: 'owner', smoothing: 'extrapolate', tolerance: 3 }), 'u8'],
      [field.i32(), 'i32'],
      [field.f32(), 'f32'],
      [field.f32({ quantize: 100 }), 'f32(q=100)'],
      [field.vec3({ quantize: 1000 }), 'vec3(q=1000)'],
      [field.quat(), 'quat(bits=12)'],
      [field.quat({ bits: 8 }), 'quat(bits=8)'],
      [field.string(24), 'string(max=24)'],
      [field.enum(['idle', 'run']), 'enum(idle,run)'],
      [field.enum(['a b', 'c']), 'enum("a b",c)'],
      [field.event(), 'event'],
      [field.u8({ replicated: false }), 'u8[local]'],
    ];
    for (const [f, text] of described) expect(f.describe).toBe(text);
  });

  it('resolves option defaults per kind', () => {
    expect(field.u8().options).toEqual({ sendTo: 'all', smoothing: 'clamp', maxSmoothingDistance: Infinity, replicated: true, tolerance: 0, required: false });
    expect(field.f32().options.smoothing).toBe('interpolate');
    expect(field.f32().options.tolerance).toBe(0);
    expect(field.f32({ quantize: 100 }).options.tolerance).toBe(0.01); // one step: 1 / 100
    expect(field.vec3({ quantize: 10 }).options.tolerance).toBeCloseTo(Math.sqrt(3) / 10, 15); // one step per axis: √3 / 10
    expect(field.quat({ bits: 4 }).options.tolerance).toBeCloseTo(Math.SQRT1_2 / 14, 15);
    expect(field.enum(['a']).options.smoothing).toBe('clamp');
    expect(field.event().options.smoothing).toBe('clamp');
    expect(field.vec2({ sendTo: 'nonOwner', maxSmoothingDistance: 5, replicated: false }).options).toEqual({ sendTo: 'nonOwner', smoothing: 'interpolate', maxSmoothingDistance: 5, replicated: false, tolerance: 0, required: false });
    expect(field.string(4, { required: true }).options.required).toBe(true);
  });

  it('gives fresh defaults', () => {
    expect([field.bool(), field.u8(), field.i32(), field.f32(), field.string(3), field.event()].map((f) => f.defaultValue())).toEqual([false, 0, 0, 0, '', 0]);
    expect(field.enum(['idle', 'run']).defaultValue()).toBe('idle');
    const v = field.vec3();
    expect(v.defaultValue()).toEqual({ x: 0, y: 0, z: 0 });
    expect(v.defaultValue()).not.toBe(v.defaultValue());
    expect(field.vec2().defaultValue()).toStrictEqual({ x: 0, y: 0 });
    expect(field.quat().defaultValue()).toEqual({ x: 0, y: 0, z: 0, w: 1 });
  });

  it('measures distance and equality', () => {
    expect(field.i32().distance(-3, 4)).toBe(7);
    expect(field.f32().distance(1.5, -1)).toBe(2.5);
    expect(field.vec3().distance({ x: 0, y: 0, z: 0 }, { x: 3, y: 4, z: 12 })).toBe(13);
    expect(field.vec2().distance({ x: 1, y: 1 }, { x: 4, y: 5 })).toBe(5);
    expect([field.bool().distance(true, false), field.bool().distance(true, true)]).toEqual([1, 0]);
    expect([field.string(5).distance('a', 'b'), field.enum(['a', 'b']).distance('a', 'a')]).toEqual([1, 0]);
    expect(field.event().distance(0, 2 ** 32 - 1)).toBe(1);
    expect(field.event().distance(10, 4)).toBe(6);
    const q = field.quat();
    const s = Math.SQRT1_2;
    const id = { x: 0, y: 0, z: 0, w: 1 };
    expect(q.distance(id, { ...id })).toBe(0);
    expect(q.distance(id, { x: 0, y: 0, z: 0, w: -1 })).toBe(0);
    expect(q.distance(id, { x: 0, y: 0, z: s, w: s })).toBeCloseTo(Math.PI / 2, 12);
    expect(q.distance(id, { x: 1, y: 0, z: 0, w: 0 })).toBeCloseTo(Math.PI, 12);
    expect(q.distance(id, { x: 0, y: Math.sin(5e-5), z: 0, w: Math.cos(5e-5) })).toBeCloseTo(1e-4, 15);
    expect(field.vec3().equals({ x: 1, y: 2, z: 3 }, { x: 1, y: 2, z: 3 })).toBe(true);
    expect(field.vec3().equals({ x: 1, y: 2, z: 3 }, { x: 1, y: 2, z: 3.5 })).toBe(false);
    expect(q.equals(id, { x: 0, y: 0, z: 0, w: -1 })).toBe(false);
  });

  it('copies objects into the target and returns primitives', () => {
    const v = field.vec3();
    const to = { x: 0, y: 0, z: 0 };
    expect(v.copy({ x: 1, y: 2, z: 3 }, to)).toBe(to);
    expect(to).toEqual({ x: 1, y: 2, z: 3 });
    const q = field.quat();
    const qt = { x: 0, y: 0, z: 0, w: 1 };
    expect(q.copy({ x: 1, y: 0, z: 0, w: 0 }, qt)).toBe(qt);
    expect(qt.x).toBe(1);
    expect(field.u8().copy(5, 7)).toBe(5);
    expect(field.string(4).copy('a', 'b')).toBe('a');
    const w = new BitWriter();
    v.write(w, { x: 7, y: 8, z: 9 });
    expect(v.readInto(new BitReader(w.toBytes()), to)).toBe(to);
    expect(to).toEqual({ x: 7, y: 8, z: 9 });
  });
});

describe('compileSchema', () => {
  const schema = {
    alive: field.bool(),
    hp: field.u8(),
    pos: field.vec3({ quantize: 100 }),
    rot: field.quat(),
    mood: field.enum(['calm', 'angry']),
    name: field.string(8),
    local: field.f32({ replicated: false }),
  };
  const codec = compileSchema(schema);
  const values = { alive: true, hp: 90, pos: { x: 1.234, y: -5, z: 0.5 }, rot: { x: 0, y: 0, z: 0, w: 1 }, mood: 'angry' as const, name: 'bob', local: 7.5 };

  it('describes fields in declaration order and lists keys in wire order', () => {
    expect(codec.keys).toEqual(['alive', 'hp', 'pos', 'rot', 'mood', 'name', 'local']);
    expect(codec.describe).toBe('{alive:bool,hp:u8,pos:vec3(q=100),rot:quat(bits=12),mood:enum(calm,angry),name:string(max=8),local:f32[local]}');
    expect(compileSchema({ b: field.u8(), a: field.f32({ quantize: 100 }) }).describe).toBe('{b:u8,a:f32(q=100)}');
    expect(compileSchema({ 'odd key': field.u8() }).describe).toBe('{"odd key":u8}');
  });

  it('round-trips replicated fields and skips the others', () => {
    const w = new BitWriter();
    codec.write(w, values);
    // bool 1 + u8 8 + zigzag varints (123 → 246: 16, -500 → 999: 16, 50 → 100: 8) + quat 38 + enum 1 + string (8 + 24); `local` is not sent
    expect(w.bitLength).toBe(1 + 8 + 40 + 38 + 1 + 32);
    const got = codec.read(new BitReader(w.toBytes()));
    expect(got).toEqual({ ...codec.quantize(values), local: 0 });
    expect(got.pos).toEqual({ x: 1.23, y: -5, z: 0.5 });

    const out = codec.defaults();
    const pos = out.pos;
    out.local = 3;
    expect(codec.readInto(new BitReader(w.toBytes()), out)).toBe(out);
    expect(out.pos).toBe(pos);
    expect(out).toEqual({ ...codec.quantize(values), local: 3 });
  });

  it('throws a usage error naming a missing field instead of writing garbage', () => {
    const w = new BitWriter();
    const { hp: _hp, ...partial } = values;
    expect(() => codec.write(w, partial as never)).toThrowError(/"hp"/);
    expect(code(() => codec.write(w, partial as never))).toBe('usage');
    const { local: _local, ...noLocal } = values;
    expect(code(() => codec.write(new BitWriter(), noLocal as never))).toBe('no error');
  });

  it('gives defaults and quantized copies', () => {
    expect(codec.defaults()).toEqual({ alive: false, hp: 0, pos: { x: 0, y: 0, z: 0 }, rot: { x: 0, y: 0, z: 0, w: 1 }, mood: 'calm', name: '', local: 0 });
    const q = codec.quantize({ ...values, local: 0.1 });
    expect(q.pos).toEqual({ x: 1.23, y: -5, z: 0.5 });
    expect(q.pos).not.toBe(values.pos);
    expect(q.local).toBe(Math.fround(0.1));
  });

  it('validates untrusted values', () => {
    expect(codec.validate(values)).toBeNull();
    expect(codec.validate(JSON.parse(JSON.stringify(values)))).toBeNull();
    expect(codec.validate(null)).toMatch(/expected an object/);
    expect(codec.validate([])).toMatch(/expected an object/);
    expect(codec.validate({ ...values, hp: 256 })).toBe('field "hp" must be an integer in 0..255, got 256');
    expect(codec.validate({ ...values, hp: '5' })).toMatch(/^field "hp"/);
    expect(codec.validate({ ...values, mood: 'sad' })).toMatch(/^field "mood" must be one of/);
    expect(codec.validate({ ...values, pos: { x: 1, y: 'a', z: 0 } })).toMatch(/^field "pos" \.y/);
    expect(codec.validate({ ...values, name: 'x'.repeat(9) })).toMatch(/^field "name" must be at most 8/);
    expect(codec.validate({ ...values, rot: { x: 0, y: 0, z: 0, w: 0 } })).toMatch(/^field "rot" must be a non-zero/);
    expect(codec.validate({ ...values, alive: undefined })).toBe('field "alive" is missing');
  });

  it('rejects schemas with non-field entries', () => {
    expect(code(() => compileSchema({ a: 5 } as never))).toBe('protocol/invalid');
    expect(code(() => compileSchema({ ['__proto__']: field.u8() }))).toBe('protocol/invalid');
    expect(code(() => compileSchema(null as never))).toBe('protocol/invalid');
  });
});

describe('errors', () => {
  it('are WireErrors with actionable messages', () => {
    try {
      field.u8().write(new BitWriter(), 300);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(WireError);
      expect((e as Error).message).toMatch(/^react-netcode: cannot write 300 as a 8-bit unsigned integer .* at bit 0/);
    }
  });
});

describe('field distances (unrolled) against their definition', () => {
  it('vec2/vec3: the square root of the sum over the axes in order; quat: 4·atan2(|a−b|, |a+b|) of the normalized 4-vectors', () => {
    const rng = new Rng(0xd157);
    const v2 = field.vec2();
    const v3 = field.vec3();
    const q = field.quat();
    const axes3 = ['x', 'y', 'z'] as const;
    const quatKeys = ['x', 'y', 'z', 'w'] as const;
    for (let i = 0; i < 2000; i++) {
      const r = (): number => rng.range(-100, 100) * (rng.next() < 0.1 ? 1e-6 : 1);
      const a = { x: r(), y: r(), z: r() };
      const b = { x: r(), y: r(), z: r() };
      expect(v3.distance(a, b)).toBe(Math.sqrt(axes3.reduce((sum, k) => sum + (a[k] - b[k]) ** 2, 0)));
      expect(v2.distance(a, b)).toBe(Math.sqrt(['x', 'y'].reduce((sum, k) => sum + (a[k as 'x'] - b[k as 'x']) ** 2, 0)));
      const qa = { x: r(), y: r(), z: r(), w: r() };
      const qb = { x: r(), y: r(), z: r(), w: r() };
      const la = Math.sqrt(qa.x * qa.x + qa.y * qa.y + qa.z * qa.z + qa.w * qa.w);
      const lb = Math.sqrt(qb.x * qb.x + qb.y * qb.y + qb.z * qb.z + qb.w * qb.w);
      const s = qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w < 0 ? -1 / lb : 1 / lb;
      let diff = 0;
      let sum = 0;
      for (const k of quatKeys) {
        diff += (qa[k] / la - qb[k] * s) ** 2;
        sum += (qa[k] / la + qb[k] * s) ** 2;
      }
      expect(q.distance(qa, qb)).toBe(4 * Math.atan2(Math.sqrt(diff), Math.sqrt(sum)));
    }
  });
});
