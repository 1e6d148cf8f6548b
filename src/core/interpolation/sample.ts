// Sampling: reads a confirmed history at the interpolation timeline's (tick, fraction)
// and produces the value an interpolated ghost shows, per field smoothing. Also the
// blend primitive `lerpField`, reused by prediction switching and frame interpolation.

import type { Field, Quat, Vec2, Vec3 } from '../field.ts';
import type { FlatHistory } from '../flat-history.ts';
import type { HistoryBuffer } from '../history.ts';
import type { Schema, SchemaCodec, Values } from '../schema.ts';
import { tickAdd, tickDiff, type Tick } from '../clock/tick.ts';

/**
 * Scratch the per-ghost paths pass numbers through instead of as arguments: a float passed to a call
 * that is not inlined becomes a new heap number, once per ghost and field per frame otherwise.
 * [0] blend weight of lerpWeighted; [1] tick and [2] fraction of the sample time (setSampleTime).
 */
const scratch = new Float64Array(3);

/**
 * Blend two values of `field`: t = 0 gives a, t = 1 gives b (t outside [0, 1] extrapolates).
 * Numbers (f32 and the integer kinds, unrounded) and vectors lerp; quat normalized-lerps on the
 * shorter arc; bool/string/enum/event do not blend (a while t < 1, else b). Objects are written
 * into `out` (which may be `a` or `b`) and `out` is returned; primitives are returned.
 */
export function lerpField<T>(field: Field<T>, a: T, b: T, t: number, out: T): T {
  scratch[0] = t;
  return lerpWeighted(field, a, b, out);
}

/** Set the weight lerpWeighted blends by (once for many fields: no float argument per call). */
export function setLerpWeight(t: number): void {
  scratch[0] = t;
}

/** lerpField with the weight last set by setLerpWeight (or by lerpField). */
export function lerpWeighted<T>(field: Field<T>, a: T, b: T, out: T): T {
  const t = scratch[0]!;
  switch (field.kind) {
    case 'f32':
    case 'u8':
    case 'u16':
    case 'u32':
    case 'i32':
      return ((a as number) * (1 - t) + (b as number) * t) as T;
    case 'vec2': {
      const p = a as Vec2;
      const q = b as Vec2;
      const o = out as Vec2;
      const x = p.x * (1 - t) + q.x * t;
      o.y = p.y * (1 - t) + q.y * t;
      o.x = x;
      return out;
    }
    case 'vec3': {
      const p = a as Vec3;
      const q = b as Vec3;
      const o = out as Vec3;
      const x = p.x * (1 - t) + q.x * t;
      const y = p.y * (1 - t) + q.y * t;
      o.z = p.z * (1 - t) + q.z * t;
      o.x = x;
      o.y = y;
      return out;
    }
    case 'quat': {
      const p = a as Quat;
      const q = b as Quat;
      const s = p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w < 0 ? -t : t; // shorter arc
      const x = p.x * (1 - t) + q.x * s;
      const y = p.y * (1 - t) + q.y * s;
      const z = p.z * (1 - t) + q.z * s;
      const w = p.w * (1 - t) + q.w * s;
      const len = Math.sqrt(x * x + y * y + z * z + w * w);
      if (!(len > 0)) return field.copy(t < 0.5 ? a : b, out);
      const o = out as Quat;
      o.x = x / len;
      o.y = y / len;
      o.z = z / len;
      o.w = w / len;
      return out;
    }
    default:
      return field.copy(t < 1 ? a : b, out);
  }
}

function blends(field: Field<unknown>): boolean {
  const k = field.kind;
  return k !== 'bool' && k !== 'string' && k !== 'enum' && k !== 'event';
}

/** Where (tick + fraction) falls in a history: computed once, applied to every field. Reused (no allocation). */
const plan = {
  /** The sample shown when not blending: newest ≤ t (or the oldest sample when t is before all). */
  a: 0 as Tick,
  /** The next sample after `a` when t lies strictly between a and b, else undefined. */
  b: undefined as Tick | undefined,
  /** Blend weight between a and b. */
  t: 0,
  /** The sample before `a` when t is past the newest sample, for extrapolation. */
  prev: undefined as Tick | undefined,
  /** Extrapolation weight on (prev → a): 1 + min(ticks past a, max) / (a − prev). */
  ext: 1,
};

/**
 * Set the time that sampleValuesAt samples at (once per frame for every ghost): tick + fraction, the
 * interpolation timeline's position.
 */
export function setSampleTime(tick: Tick, fraction: number): void {
  scratch[1] = tick;
  scratch[2] = fraction;
}

/** What `locate` reads of a history: HistoryBuffer and FlatHistory. */
type Located = Pick<HistoryBuffer<unknown>, 'newestTick' | 'tickAtOrBefore' | 'tickAfter'>;

/** Fill `plan` for the sample time; false when the history is empty. */
function locate(history: Located, maxExtrapolationTicks: number): boolean {
  if (history.newestTick === undefined) return false;
  let tick = scratch[1]! >>> 0;
  let fraction = scratch[2]!;
  if (!Number.isFinite(fraction)) fraction = 0;
  const whole = Math.floor(fraction);
  if (whole !== 0) {
    tick = tickAdd(tick, whole);
    fraction -= whole;
  }
  plan.b = undefined;
  plan.prev = undefined;
  plan.t = 0;
  plan.ext = 1;
  const lo = history.tickAtOrBefore(tick);
  if (lo === undefined) {
    // Before every stored sample (a ghost that just appeared): hold the oldest one.
    const first = history.tickAfter(tick);
    if (first === undefined) return false;
    plan.a = first;
    return true;
  }
  plan.a = lo;
  const past = tickDiff(tick, lo) + fraction;
  if (past <= 0) return true;
  const hi = history.tickAfter(lo);
  if (hi !== undefined) {
    plan.b = hi;
    plan.t = past / tickDiff(hi, lo);
    return true;
  }
  const prev = history.tickAtOrBefore(tickAdd(lo, -1));
  if (prev !== undefined && maxExtrapolationTicks > 0) {
    plan.prev = prev;
    plan.ext = 1 + Math.min(past, maxExtrapolationTicks) / tickDiff(lo, prev);
  }
  return true;
}

/** Apply `plan` to one field given its values at plan.a, plan.b and plan.prev. */
function apply<T>(field: Field<T>, a: T, b: T | undefined, prev: T | undefined, out: T): T {
  const smoothing = blends(field as Field<unknown>) ? field.options.smoothing : 'clamp';
  if (smoothing === 'clamp') return field.copy(a, out);
  const maxDistance = field.options.maxSmoothingDistance;
  if (b !== undefined) {
    // A jump beyond maxSmoothingDistance (a teleport) snaps: show a until b's tick is reached.
    // (No limit, the default: no distance to compute. A distance returned as a float is a heap number per call.)
    if (maxDistance !== Infinity && field.distance(a, b) > maxDistance) return field.copy(a, out);
    scratch[0] = plan.t;
    return lerpWeighted(field, a, b, out);
  }
  if (smoothing === 'extrapolate' && prev !== undefined && field.distance(prev, a) <= maxDistance) {
    scratch[0] = plan.ext;
    return lerpWeighted(field, prev, a, out);
  }
  return field.copy(a, out);
}

/**
 * Sample one field's value at (tick, fraction) from its confirmed samples, per its smoothing:
 * 'clamp' = newest sample ≤ t; 'interpolate' = blend the samples around t (their actual ticks, so
 * sparse histories work), snapping when distance > maxSmoothingDistance, holding the newest beyond
 * it; 'extrapolate' = like interpolate, then continue linearly from the last two samples for at
 * most `maxExtrapolationTicks` and hold. Before the oldest sample the oldest is held. Objects are
 * written into `out` (returned); undefined when the history is empty.
 */
export function sampleField<T>(
  field: Field<T>, history: HistoryBuffer<T>, tick: Tick, fraction: number, out: T, maxExtrapolationTicks: number,
): T | undefined {
  setSampleTime(tick, fraction);
  if (!locate(history, maxExtrapolationTicks)) return undefined;
  const a = history.get(plan.a) as T;
  const b = plan.b === undefined ? undefined : history.get(plan.b);
  const prev = plan.prev === undefined ? undefined : history.get(plan.prev);
  return apply(field, a, b, prev, out);
}

/**
 * Same for a whole ghost: a history of value objects → every field of `out` is written (objects in
 * place, primitives assigned). Returns false (out untouched) when the history is empty.
 */
export function sampleValues<S extends Schema>(
  codec: SchemaCodec<S>, history: HistoryBuffer<Values<S>>, tick: Tick, fraction: number, out: Values<S>, maxExtrapolationTicks: number,
): boolean {
  setSampleTime(tick, fraction);
  return sampleValuesAt(codec, history, out, maxExtrapolationTicks);
}

/** sampleValues at the time last set by setSampleTime (no number arguments: nothing allocated per ghost). */
export function sampleValuesAt<S extends Schema>(
  codec: SchemaCodec<S>, history: HistoryBuffer<Values<S>>, out: Values<S>, maxExtrapolationTicks: number,
): boolean {
  if (!locate(history, maxExtrapolationTicks)) return false;
  const b = plan.b === undefined ? undefined : history.get(plan.b);
  const prev = plan.prev === undefined ? undefined : history.get(plan.prev);
  applyAll(codec, history.get(plan.a) as Values<S>, b, prev, out);
  return true;
}

/**
 * sampleValuesAt for a flat history (a ghost's confirmed history): the samples it needs are read into the
 * three objects of its layout's `samples`, which every ghost of that type reuses (they stay in cache).
 */
export function sampleFlatAt<S extends Schema>(
  codec: SchemaCodec<S>, history: FlatHistory, out: Values<S>, maxExtrapolationTicks: number,
): boolean {
  if (!locate(history, maxExtrapolationTicks)) return false;
  const samples = history.layout.samples as readonly Values<S>[];
  const a = samples[0]!;
  const b = plan.b !== undefined && history.read(plan.b, samples[1]!) ? samples[1] : undefined;
  const prev = plan.prev !== undefined && history.read(plan.prev, samples[2]!) ? samples[2] : undefined;
  history.read(plan.a, a);
  applyAll(codec, a, b, prev, out);
  return true;
}

/** Every field of `out` from the samples at plan.a, plan.b and plan.prev (objects in place, primitives assigned). */
function applyAll<S extends Schema>(
  codec: SchemaCodec<S>, a: Values<S>, b: Values<S> | undefined, prev: Values<S> | undefined, out: Values<S>,
): void {
  const va = a as Record<string, unknown>;
  const vb = b as Record<string, unknown> | undefined;
  const vp = prev as Record<string, unknown> | undefined;
  const o = out as Record<string, unknown>;
  const keys = codec.keys;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const field = codec.schema[key] as Field<unknown>;
    const target = o[key] ?? field.defaultValue();
    o[key] = apply(field, va[key], vb === undefined ? undefined : vb[key], vp === undefined ? undefined : vp[key], target);
  }
}
