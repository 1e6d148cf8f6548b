// Semantic input checks. The decoder already rejects malformed bytes; this layer
// fixes values that decode fine but must not reach a system (NaN, Infinity, out of
// range, overlong vectors). The server runs it on every received input, the client
// on every committed one, so both simulate the same values.

import { quantizeQuat, type QuatLike } from '../bits.ts';
import type { Field } from '../field.ts';
import type { Schema, SchemaCodec, Values } from '../schema.ts';
import { inputLayout } from './events.ts';

type Loose = Record<string, unknown>;
type Vector = { x: number; y: number; z?: number };

const INT_RANGE: Readonly<Record<string, readonly [number, number]>> = {
  u8: [0, 0xff],
  u16: [0, 0xffff],
  u32: [0, 0xffff_ffff],
  event: [0, 0xffff_ffff],
  i32: [-0x8000_0000, 0x7fff_ffff],
};

/** A vector this much (relative) over maxLength is still accepted: rounding slack, so clamping is idempotent. */
const LENGTH_SLACK = 1e-9;

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);

/** A number the field's scalar codec can write: finite, and within float32 or the int32 of round(v·q). */
function encodable(v: unknown, q: number | undefined): v is number {
  if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  return q === undefined ? Number.isFinite(Math.fround(v)) : Math.abs(Math.round(v * q)) <= 0x7fff_ffff;
}

/** The quantization grid point nearest `v` that is not farther from zero than `v`. */
function towardZero(v: number, q: number | undefined): number {
  if (q !== undefined) return (Math.trunc(v * q) + 0) / q;
  const r = Math.fround(v);
  if (Math.abs(r) <= Math.abs(v)) return r;
  f32[0] = r;
  f32Bits[0] = f32Bits[0]! - 1; // one float32 step towards zero (r is not 0 here)
  return f32[0]!;
}

function clamp(v: number, min: number | undefined, max: number | undefined): number {
  return min !== undefined && v < min ? min : max !== undefined && v > max ? max : v;
}

function sanitizeScalar(field: Field<unknown>, v: unknown): number {
  const { min, max } = field.options;
  const range = INT_RANGE[field.kind];
  if (range === undefined) return clamp(encodable(v, field.quantizeFactor) ? v : 0, min, max);
  const n = typeof v === 'number' && Number.isFinite(v) ? Math.round(v) + 0 : 0; // + 0: no -0
  return clamp(clamp(n, range[0], range[1]), min, max);
}

/**
 * Fix a vector in place; returns true when a component changed. Named components (x, y, and z
 * when `three`), not keyed ones: a keyed store of a float is a new heap number per write.
 */
function sanitizeVector(field: Field<unknown>, v: Vector, three: boolean): boolean {
  const q = field.quantizeFactor;
  let changed = false;
  if (!encodable(v.x, q)) {
    v.x = 0;
    changed = true;
  }
  if (!encodable(v.y, q)) {
    v.y = 0;
    changed = true;
  }
  if (three && !encodable(v.z, q)) {
    v.z = 0;
    changed = true;
  }
  const sq = three ? v.x * v.x + v.y * v.y + v.z! * v.z! : v.x * v.x + v.y * v.y;
  const max = field.options.maxLength;
  const len = Math.sqrt(sq);
  if (max === undefined || !(len > max * (1 + LENGTH_SLACK))) return changed;
  // Scale onto the sphere, then round each component towards zero onto the wire's grid:
  // the result re-encodes exactly and stays within maxLength, so a second pass (the
  // server's, after the client's) changes nothing.
  const s = max / len;
  v.x = towardZero(v.x * s, q);
  v.y = towardZero(v.y * s, q);
  if (three) v.z = towardZero(v.z! * s, q);
  return true;
}

function sanitizeQuat(v: QuatLike): boolean {
  const { x, y, z, w } = v;
  const len = Math.sqrt(x * x + y * y + z * z + w * w); // NaN when a component is not a number
  if (len > 0 && len < Infinity) return false;
  v.x = v.y = v.z = 0;
  v.w = 1;
  return true;
}

/**
 * Clamp an input in place: NaN/±Infinity (and numbers the field cannot encode) become
 * the field's default, integers are rounded into their type, scalars are clamped to
 * the field's `min`/`max`, vectors get finite components and a length of at most
 * `maxLength`, quaternions a direction; a bool/enum/string its field rejects becomes
 * the default. Returns how many fields it changed (a vector counts once).
 */
export function sanitizeInput<S extends Schema>(codec: SchemaCodec<S>, values: Values<S>): number {
  const layout = inputLayout(codec);
  const o = values as Loose;
  let changed = 0;
  const all = layout.all;
  for (let i = 0; i < all.length; i++) {
    const { key, field } = all[i]!;
    const v = o[key];
    const kind = field.kind;
    const vector = kind === 'vec2' || kind === 'vec3';
    if (vector || kind === 'quat') {
      if (typeof v !== 'object' || v === null) {
        o[key] = field.defaultValue();
        changed++;
      } else if (vector ? sanitizeVector(field, v as Vector, kind === 'vec3') : sanitizeQuat(v as QuatLike)) changed++;
    } else if (kind === 'f32' || INT_RANGE[kind] !== undefined) {
      const next = sanitizeScalar(field, v);
      if (next !== v) {
        o[key] = next;
        changed++;
      }
    } else if (field.validate(v) !== null) {
      o[key] = layout.defaults[key];
      changed++;
    }
  }
  return changed;
}

/**
 * Round every field in place to the value it decodes to after a wire round trip
 * (no allocation; the same arithmetic as `Field.quantize`). Call on sanitized values.
 */
export function quantizeInput<S extends Schema>(codec: SchemaCodec<S>, values: Values<S>): Values<S> {
  const o = values as Loose;
  const all = inputLayout(codec).all;
  for (let i = 0; i < all.length; i++) {
    const { key, field } = all[i]!;
    const kind = field.kind;
    if (kind === 'vec2' || kind === 'vec3') {
      const v = o[key] as Vector;
      const q = field.quantizeFactor;
      if (q === undefined) {
        v.x = Math.fround(v.x);
        v.y = Math.fround(v.y);
        if (kind === 'vec3') v.z = Math.fround(v.z!);
      } else {
        v.x = (Math.round(v.x * q) + 0) / q;
        v.y = (Math.round(v.y * q) + 0) / q;
        if (kind === 'vec3') v.z = (Math.round(v.z! * q) + 0) / q;
      }
    } else if (field.kind === 'quat') quantizeQuat(o[key] as QuatLike, field.bits!, o[key] as QuatLike);
    else if (field.kind === 'f32') o[key] = field.quantize(o[key]);
  }
  return values;
}
