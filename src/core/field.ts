// Field codecs: the typed building blocks of schemas (ghost fields, inputs, RPC
// payloads). Each knows its wire encoding, exact quantization, default, equality
// and distance, plus the ghost options later stages read (sendTo, smoothing...).

import { quantizeQuat, utf8Length, type BitReader, type BitWriter } from './bits.ts';
import { WireError } from './errors.ts';
import {
  checkQuantize, DEFAULT_MAX_PRESSES_PER_TICK, describeToken, invalid, resolve, show,
  type EventOptions, type FieldKind, type FieldOptions, type FloatOptions, type IntOptions, type Quat, type QuatOptions,
  type ResolvedFieldOptions, type Vec2, type Vec3, type VecOptions,
} from './field-options.ts';
export { DEFAULT_MAX_PRESSES_PER_TICK, describeToken } from './field-options.ts';
export type {
  EventOptions, FieldKind, FieldOptions, FloatOptions, IntOptions, LengthOptions, Quat, QuatOptions, RangeOptions,
  ResolvedFieldOptions, SendTo, Smoothing, Vec2, Vec3, VecOptions,
} from './field-options.ts';
import { DEFAULT_QUAT_BITS, MAX_QUAT_BITS, MIN_QUAT_BITS } from './wire.ts';

/** The options type of a builder called without options. */
type NoOptions = Record<never, never>;
/** A field declared `{ required: true }`: a spawn must give its value. */
export type RequiredField<T> = Field<T> & { readonly options: { readonly required: true } };
/** What a field builder returns for options `O`: a RequiredField when `O` has `required: true`. */
export type FieldFor<T, O> = O extends { readonly required: true } ? RequiredField<T> : Field<T>;

export interface Field<T> {
  readonly kind: FieldKind;
  readonly options: ResolvedFieldOptions;
  /** Canonical text of everything that affects the wire (protocol hash input). */
  readonly describe: string;
  /** Throws WireError bad-value / too-large on values it cannot encode. */
  write(w: BitWriter, value: T): void;
  /** A new value; throws WireError on bad data. */
  read(r: BitReader): T;
  /** Like `read`, but decodes objects into `to` (returned); primitives are returned. */
  readInto(r: BitReader, to: T): T;
  /** A fresh default value. */
  defaultValue(): T;
  /** The value exactly as it decodes after a round trip (a new object for vectors). */
  quantize(value: T): T;
  equals(a: T, b: T): boolean;
  /** |a-b|, Euclidean for vectors, radians for quat, 0/1 for bool/string/enum. */
  distance(a: T, b: T): number;
  /** Copy into `to` for objects (returns to); returns `from` for primitives. */
  copy(from: T, to: T): T;
  /** Problem with an untrusted value ("must be ..., got ..."), or null when `write` accepts it. */
  validate(value: unknown): string | null;
  // Codec parameters, for codecs that re-encode values (the snapshot delta codec):
  /** f32/vec2/vec3 only: the `quantize` factor, or undefined for raw float32. */
  readonly quantizeFactor?: number | undefined;
  /** quat only: bits per smallest-three component. */
  readonly bits?: number;
  /** enum only: the values; a value's wire code is its index. */
  readonly values?: readonly string[];
  /** string only: the most UTF-16 code units. */
  readonly maxLength?: number;
  /** event only: the most presses one input tick may carry (default DEFAULT_MAX_PRESSES_PER_TICK). */
  readonly maxPerTick?: number;
}

type CodecParams = Pick<Field<unknown>, 'quantizeFactor' | 'bits' | 'values' | 'maxLength' | 'maxPerTick'>;

export type FieldValue<F> = F extends Field<infer T> ? T : never;

type Impl<T> = Omit<Field<T>, 'kind' | 'options' | 'describe' | 'readInto' | 'copy'> & Partial<Pick<Field<T>, 'readInto' | 'copy'>>;

function make<T>(kind: FieldKind, base: string, options: ResolvedFieldOptions, impl: Impl<T>, params: CodecParams = {}): Field<T> {
  const describe = options.replicated ? base : `${base}[local]`;
  return Object.freeze({ kind, options, describe, readInto: (r: BitReader) => impl.read(r), copy: (from: T) => from, ...impl, ...params });
}

const isNum = (v: unknown): v is number => typeof v === 'number';

/** An integer field encoded by `write`/`read`, valid in [min, max]. */
function integer(
  kind: FieldKind, min: number, max: number, opts: IntOptions, write: (w: BitWriter, v: number) => void, read: (r: BitReader) => number,
): Field<number> {
  return make<number>(kind, kind, resolve(kind, opts, 'clamp', 0), {
    write,
    read,
    defaultValue: () => 0,
    quantize: (v) => v,
    equals: (a, b) => a === b,
    distance: absDistance,
    validate: (v) => (isNum(v) && Number.isInteger(v) && v >= min && v <= max ? null : `must be an integer in ${min}..${max}, got ${show(v)}`),
  });
}

/** Scalar codec shared by f32 and the vector components. */
/** Why a number fails its scalar codec, for a validation message: the quantized value too when that is what overflows. */
function badNumber(v: unknown, q: number | undefined): string {
  if (q === undefined) return `a finite number within float32 range, got ${show(v)}`;
  const over = isNum(v) && Number.isFinite(v) ? ` (round(${show(v)} × ${q}) = ${Math.round(v * q)}, beyond ±2147483647)` : '';
  return `a finite number whose quantized value fits an int32, got ${show(v)}${over}`;
}

function scalar(q: number | undefined) {
  return q === undefined
    ? { write: (w: BitWriter, v: number) => w.writeF32(v), read: (r: BitReader) => r.readF32(), quantize: Math.fround, suffix: '', tolerance: 0,
        check: (v: unknown) => isNum(v) && Number.isFinite(Math.fround(v)) }
    : { write: (w: BitWriter, v: number) => w.writeQuantized(v, q), read: (r: BitReader) => r.readQuantized(q),
        quantize: (v: number) => (Math.round(v * q) + 0) / q,
        suffix: `(q=${q})`, tolerance: 1 / q, check: (v: unknown) => isNum(v) && Math.abs(Math.round(v * q)) <= 0x7fff_ffff };
}

type Components = Record<string, number>;

/** The distance of every integer and f32 field (one function: rollback's generated check recognises it and inlines it). */
export const absDistance = (a: number, b: number): number => Math.abs(a - b);
/** The distance of every vec2 field: one function (rollback's generated check recognises it and compares squares). */
export const vec2Distance = (a: Vec2, b: Vec2): number => Math.sqrt((a.x - b.x) ** 2 + (a.y - b.y) ** 2);
/** The distance of every vec3 field (as vec2Distance). */
export const vec3Distance = (a: Vec3, b: Vec3): number => Math.sqrt((a.x - b.x) ** 2 + (a.y - b.y) ** 2 + (a.z - b.z) ** 2);

/**
 * The distance of every quat field: the rotation angle between `a` and `b` in radians (one function: rollback's generated
 * check recognises it and inlines these operations, in this order).
 */
export const quatDistance = (a: Quat, b: Quat): number => {
  const la = Math.sqrt(a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w);
  const lb = Math.sqrt(b.x * b.x + b.y * b.y + b.z * b.z + b.w * b.w);
  const s = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0 ? -1 / lb : 1 / lb;
  // Component by component in x, y, z, w order (unrolled: no iterator or keyed loads per call).
  const dx = a.x / la - b.x * s;
  const dy = a.y / la - b.y * s;
  const dz = a.z / la - b.z * s;
  const dw = a.w / la - b.w * s;
  const sx = a.x / la + b.x * s;
  const sy = a.y / la + b.y * s;
  const sz = a.z / la + b.z * s;
  const sw = a.w / la + b.w * s;
  const diff = 0 + dx ** 2 + dy ** 2 + dz ** 2 + dw ** 2;
  const sum = 0 + sx ** 2 + sy ** 2 + sz ** 2 + sw ** 2;
  // Stable for tiny angles (acos is not): for unit a, b on the same hemisphere
  // the angle between the 4-vectors is 2·atan2(|a−b|, |a+b|) and the rotation angle is twice that.
  return 4 * Math.atan2(Math.sqrt(diff), Math.sqrt(sum));
};

function vector<V extends Vec2 | Vec3>(kind: 'vec2' | 'vec3', opts: VecOptions): Field<V> {
  const { quantize, ...rest } = opts;
  checkQuantize(kind, quantize);
  const s = scalar(quantize);
  const axes = kind === 'vec2' ? ['x', 'y'] : ['x', 'y', 'z']; // walked by index: a for-of builds an iterator per call outside optimized code
  const fresh = (): Components => (kind === 'vec2' ? { x: 0, y: 0 } : { x: 0, y: 0, z: 0 });
  // Named stores of the reader's own calls (not `to[axis] = s.read(r)`): the closure behind `s.read`
  // differs per field, so that call is not inlined and returned a boxed float per component.
  const three = kind === 'vec3';
  const readInto = quantize === undefined
    ? (r: BitReader, to: Components): Components => {
        to['x'] = r.readF32();
        to['y'] = r.readF32();
        if (three) to['z'] = r.readF32();
        return to;
      }
    : (r: BitReader, to: Components): Components => {
        to['x'] = r.readQuantized(quantize);
        to['y'] = r.readQuantized(quantize);
        if (three) to['z'] = r.readQuantized(quantize);
        return to;
      };
  // The writer's own calls with named loads, as readInto: through `s.write` (a closure per field, not inlined) each
  // component was passed as a new heap number.
  const write = quantize === undefined
    ? (w: BitWriter, v: Components): void => {
        w.writeF32(v['x']!);
        w.writeF32(v['y']!);
        if (three) w.writeF32(v['z']!);
      }
    : (w: BitWriter, v: Components): void => {
        w.writeQuantized(v['x']!, quantize);
        w.writeQuantized(v['y']!, quantize);
        if (three) w.writeQuantized(v['z']!, quantize);
      };
  const f = make<Components>(kind, kind + s.suffix, resolve(kind, rest, 'interpolate', s.tolerance * Math.sqrt(axes.length)), {
    write,
    read: (r) => readInto(r, fresh()),
    readInto,
    defaultValue: fresh,
    quantize: (v) => {
      const out = fresh();
      for (let i = 0; i < axes.length; i++) out[axes[i]!] = s.quantize(v[axes[i]!]!);
      return out;
    },
    equals: (a, b) => {
      for (let i = 0; i < axes.length; i++) if (a[axes[i]!] !== b[axes[i]!]) return false;
      return true;
    },
    // Unrolled as the sum over the axes in order (the same float operations, no closure per call): rollback compares with it.
    distance: (kind === 'vec2' ? vec2Distance : vec3Distance) as (a: Components, b: Components) => number,
    // Unrolled, with fixed property names: the hot path of rollback (no per-key lookups or boxing).
    copy:
      kind === 'vec2'
        ? (from, to) => {
            (to as Vec2).x = (from as Vec2).x;
            (to as Vec2).y = (from as Vec2).y;
            return to;
          }
        : (from, to) => {
            (to as Vec3).x = (from as Vec3).x;
            (to as Vec3).y = (from as Vec3).y;
            (to as Vec3).z = (from as Vec3).z;
            return to;
          },
    validate: (v) => {
      if (typeof v !== 'object' || v === null) return `must be an object {${axes.join(',')}}, got ${show(v)}`;
      const bad = axes.find((k) => !s.check((v as Record<string, unknown>)[k]));
      return bad === undefined ? null : `.${bad} must be ${badNumber((v as Record<string, unknown>)[bad], quantize)}`;
    },
  }, { quantizeFactor: quantize });
  return f as unknown as Field<V>;
}

const QUAT_KEYS = ['x', 'y', 'z', 'w'] as const;

export const field = {
  bool<const O extends FieldOptions = NoOptions>(opts: O = {} as O): FieldFor<boolean, O> {
    return make<boolean>('bool', 'bool', resolve('bool', opts, 'clamp', 0), {
      write: (w, v) => {
        if (typeof v !== 'boolean') throw new WireError('wire/bad-value', `react-netcode: bool field got ${show(v)} at bit ${w.bitLength}; pass true or false.`);
        w.writeBool(v);
      },
      read: (r) => r.readBool(),
      defaultValue: () => false,
      quantize: (v) => v,
      equals: (a, b) => a === b,
      distance: (a, b) => (a === b ? 0 : 1),
      validate: (v) => (typeof v === 'boolean' ? null : `must be true or false, got ${show(v)}`),
    }) as FieldFor<boolean, O>;
  },
  u8: <const O extends IntOptions = NoOptions>(opts: O = {} as O): FieldFor<number, O> =>
    integer('u8', 0, 0xff, opts, (w, v) => w.writeUint(v, 8), (r) => r.readUint(8)) as FieldFor<number, O>,
  u16: <const O extends IntOptions = NoOptions>(opts: O = {} as O): FieldFor<number, O> =>
    integer('u16', 0, 0xffff, opts, (w, v) => w.writeUint(v, 16), (r) => r.readUint(16)) as FieldFor<number, O>,
  u32: <const O extends IntOptions = NoOptions>(opts: O = {} as O): FieldFor<number, O> =>
    integer('u32', 0, 0xffff_ffff, opts, (w, v) => w.writeVarUint(v), (r) => r.readVarUint()) as FieldFor<number, O>,
  i32: <const O extends IntOptions = NoOptions>(opts: O = {} as O): FieldFor<number, O> =>
    integer('i32', -0x8000_0000, 0x7fff_ffff, opts, (w, v) => w.writeVarInt(v), (r) => r.readVarInt()) as FieldFor<number, O>,

  /** Raw float32, or with `quantize: q` round(v*q) as a zigzag varint. */
  f32<const O extends FloatOptions = NoOptions>(options: O = {} as O): FieldFor<number, O> {
    const opts: FloatOptions = options;
    const { quantize, ...rest } = opts;
    checkQuantize('f32', quantize);
    const s = scalar(quantize);
    return make<number>('f32', 'f32' + s.suffix, resolve('f32', rest, 'interpolate', s.tolerance), {
      write: s.write,
      read: s.read,
      defaultValue: () => 0,
      quantize: s.quantize,
      equals: (a, b) => a === b,
      distance: absDistance,
      // A predicted-only field never crosses the wire: ±Infinity is allowed there (e.g. a fuse
      // that must never run out in prediction, as in NFE's grenade sample). NaN never is.
      validate: (v) => (s.check(v) || (opts.replicated === false && isNum(v) && !Number.isNaN(v)) ? null : `must be ${badNumber(v, quantize)}`),
    }, { quantizeFactor: quantize }) as FieldFor<number, O>;
  },
  vec2: <const O extends VecOptions = NoOptions>(opts: O = {} as O): FieldFor<Vec2, O> => vector<Vec2>('vec2', opts) as FieldFor<Vec2, O>,
  vec3: <const O extends VecOptions = NoOptions>(opts: O = {} as O): FieldFor<Vec3, O> => vector<Vec3>('vec3', opts) as FieldFor<Vec3, O>,

  /**
   * Smallest-three rotation, `bits` (4..16, default 12) per component; values are unit quaternions with w >= 0 on the largest component.
   */
  quat<const O extends QuatOptions = NoOptions>(opts: O = {} as O): FieldFor<Quat, O> {
    const { bits = DEFAULT_QUAT_BITS, ...rest } = opts as QuatOptions;
    if (!Number.isInteger(bits) || bits < MIN_QUAT_BITS || bits > MAX_QUAT_BITS) throw invalid(`quat field bits ${show(bits)} is invalid; pass an integer in ${MIN_QUAT_BITS}..${MAX_QUAT_BITS}.`);
    const halfStep = Math.SQRT1_2 / (2 * ((1 << (bits - 1)) - 1));
    const copy = (from: Quat, to: Quat): Quat => {
      to.x = from.x;
      to.y = from.y;
      to.z = from.z;
      to.w = from.w;
      return to;
    };
    return make<Quat>('quat', `quat(bits=${bits})`, resolve('quat', rest, 'interpolate', halfStep), {
      write: (w, v) => w.writeQuat(v.x, v.y, v.z, v.w, bits),
      read: (r) => r.readQuat(bits, { x: 0, y: 0, z: 0, w: 1 }),
      readInto: (r, to) => r.readQuat(bits, to) as Quat,
      defaultValue: () => ({ x: 0, y: 0, z: 0, w: 1 }),
      quantize: (v) => quantizeQuat(v, bits, { x: 0, y: 0, z: 0, w: 1 }),
      equals: (a, b) => a.x === b.x && a.y === b.y && a.z === b.z && a.w === b.w,
      distance: quatDistance,
      copy,
      validate: (v) => {
        if (typeof v !== 'object' || v === null) return `must be an object {x,y,z,w}, got ${show(v)}`;
        const q = v as Record<string, unknown>;
        const bad = QUAT_KEYS.find((k) => !isNum(q[k]) || !Number.isFinite(q[k]));
        if (bad !== undefined) return `.${bad} must be a finite number, got ${show(q[bad])}`;
        const { x, y, z, w } = v as Quat;
        const len = Math.sqrt(x * x + y * y + z * z + w * w);
        return len > 0 && len < Infinity ? null : 'must be a non-zero quaternion';
      },
    }, { bits }) as FieldFor<Quat, O>;
  },

  /** UTF-8 string of at most `maxLength` UTF-16 code units (no lone surrogates). */
  string<const O extends FieldOptions = NoOptions>(maxLength: number, opts: O = {} as O): FieldFor<string, O> {
    if (!Number.isInteger(maxLength) || maxLength < 1) throw invalid(`string field maxLength ${show(maxLength)} is invalid; pass an integer >= 1.`);
    return make<string>('string', `string(max=${maxLength})`, resolve('string', opts, 'clamp', 0), {
      write: (w, v) => w.writeString(v, maxLength),
      read: (r) => r.readString(maxLength),
      defaultValue: () => '',
      quantize: (v) => v,
      equals: (a, b) => a === b,
      distance: (a, b) => (a === b ? 0 : 1),
      validate: (v) => {
        if (typeof v !== 'string') return `must be a string, got ${show(v)}`;
        if (v.length > maxLength) return `must be at most ${maxLength} characters, got ${v.length}`;
        return utf8Length(v) < 0 ? 'must not contain a lone UTF-16 surrogate' : null;
      },
    }, { maxLength }) as FieldFor<string, O>;
  },

  /** One of `values`, in ceil(log2(n)) bits (0 bits for a single value). */
  enum<const V extends readonly [string, ...string[]], const O extends FieldOptions = NoOptions>(
    values: V,
    opts: O = {} as O,
  ): FieldFor<V[number], O> {
    type E = V[number];
    if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string')) throw invalid('enum field needs a non-empty array of strings, e.g. field.enum([\'idle\', \'run\']).');
    const index = new Map<string, number>(values.map((v, i) => [v, i]));
    if (index.size !== values.length) throw invalid(`enum field values ${JSON.stringify(values)} contain duplicates; list each value once.`);
    let bits = 0;
    while (2 ** bits < values.length) bits++;
    const list: readonly E[] = [...values];
    return make<E>('enum', `enum(${values.map(describeToken).join(',')})`, resolve('enum', opts, 'clamp', 0), {
      write: (w, v) => {
        const i = index.get(v);
        if (i === undefined) throw new WireError('wire/bad-value', `react-netcode: enum value ${show(v)} at bit ${w.bitLength} is not one of ${JSON.stringify(values)}; pass a listed value.`);
        w.writeBits(i, bits);
      },
      read: (r) => {
        const pos = r.bitPosition;
        const v = list[r.readBits(bits)];
        if (v === undefined) throw new WireError('wire/bad-value', `react-netcode: enum index at bit ${pos} is out of range (${values.length} values); drop the message.`);
        return v;
      },
      defaultValue: () => values[0],
      quantize: (v) => v,
      equals: (a, b) => a === b,
      distance: (a, b) => (a === b ? 0 : 1),
      validate: (v) => (typeof v === 'string' && index.has(v) ? null : `must be one of ${JSON.stringify(values)}, got ${show(v)}`),
    }, { values: list }) as FieldFor<V[number], O>;
  },

  /**
   * InputEvent running count: a wrapping uint32 sent as a varuint; distance is wrap-aware.
   * A tick's input carries at most `maxPerTick` presses of it (default 32) on the server and
   * in prediction alike; more are dropped and counted as clamped.
   */
  event<const O extends EventOptions = NoOptions>(opts: O = {} as O): FieldFor<number, O> {
    const { maxPerTick = DEFAULT_MAX_PRESSES_PER_TICK, ...rest } = opts as EventOptions;
    if (!Number.isInteger(maxPerTick) || maxPerTick < 1 || maxPerTick > 0x7fff_ffff) throw invalid(`event field maxPerTick ${show(maxPerTick)} is invalid; pass an integer in 1..2^31-1 (default ${DEFAULT_MAX_PRESSES_PER_TICK}).`);
    const f = integer('event', 0, 0xffff_ffff, rest, (w, v) => w.writeVarUint(v), (r) => r.readVarUint());
    const distance = (a: number, b: number): number => {
      const d = (a - b) >>> 0;
      return Math.min(d, 2 ** 32 - d);
    };
    return Object.freeze({ ...f, distance, maxPerTick }) as FieldFor<number, O>;
  },
};
