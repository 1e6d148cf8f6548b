// Field options: what every field builder accepts (who receives it, smoothing, tolerance, input
// bounds) and their checked, frozen resolution, with the usage errors a wrong option gets.

import { NetcodeError } from './errors.ts';

export type SendTo = 'all' | 'owner' | 'nonOwner';
export type Smoothing = 'clamp' | 'interpolate' | 'extrapolate';
export type FieldKind = 'bool' | 'u8' | 'u16' | 'u32' | 'i32' | 'f32' | 'vec2' | 'vec3' | 'quat' | 'string' | 'enum' | 'event';
export type Vec2 = { x: number; y: number };
export type Vec3 = { x: number; y: number; z: number };
export type Quat = { x: number; y: number; z: number; w: number };

export interface FieldOptions {
  /** Which clients receive the field (default 'all'). */
  sendTo?: SendTo;
  /** Default 'clamp' for bool/int/enum/string/event, 'interpolate' for f32/vec/quat. */
  smoothing?: Smoothing;
  /** A jump beyond this distance is not interpolated (default Infinity). */
  maxSmoothingDistance?: number;
  /** false = predicted-only, never sent (default true). */
  replicated?: boolean;
  /**
   * Prediction tolerance in `distance` units. Default 0, except quantized floats: one
   * quantization step per axis (√axes / q for vectors). A client restored from quantized
   * state differs from the unquantized server by up to half a step at each of two
   * confirmed ticks, so anything tighter reports quantization as misprediction.
   */
  tolerance?: number;
  /**
   * Ghost fields only: the field has no default a spawn may fall back on — `server.spawn` and
   * `ctx.spawn` must give its value (their init type requires it, and a spawn without it is refused
   * with a usage error). Not on the wire, not in the protocol hash. Default false.
   */
  required?: boolean;
}
/** Input bounds for scalar numbers: not on the wire, not in `describe`; the server's `sanitizeInput` clamps to them. */
export interface RangeOptions {
  min?: number;
  max?: number;
}
/** Input bound for vectors: the most Euclidean length (not on the wire, not in `describe`); `sanitizeInput` scales longer vectors down. */
export interface LengthOptions {
  maxLength?: number;
}
export type IntOptions = FieldOptions & RangeOptions;
export type FloatOptions = FieldOptions & RangeOptions & { quantize?: number };
export type VecOptions = FieldOptions & LengthOptions & { quantize?: number };
export type QuatOptions = FieldOptions & { bits?: number };
/**
 * Input bound for events: the most presses one tick may carry (not on the wire, not in `describe`); more are dropped and
 * counted as clamped.
 */
export type EventOptions = FieldOptions & { maxPerTick?: number };

/** Default `field.event({ maxPerTick })`: far above a human's presses in one 1/60 s tick, far below 2^31. */
export const DEFAULT_MAX_PRESSES_PER_TICK = 32;
export type ResolvedFieldOptions = Readonly<Required<FieldOptions>> & Readonly<RangeOptions & LengthOptions>;

export function invalid(message: string): NetcodeError {
  return new NetcodeError('protocol/invalid', `react-netcode: ${message}`);
}

export function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : typeof v === 'object' && v !== null ? 'an object' : String(v);
}

/** An identifier-like token as-is, anything else JSON-quoted, so describe strings stay unambiguous. */
export function describeToken(s: string): string {
  return /^[\w$.-]+$/.test(s) ? s : JSON.stringify(s);
}

/** Checks the input bounds (min/max on u8/u16/u32/i32/f32, maxLength on vectors) and copies those given into `r`. */
function limits(kind: FieldKind, { min, max, maxLength }: RangeOptions & LengthOptions, r: RangeOptions & LengthOptions): void {
  if (min !== undefined || max !== undefined) {
    const int = ['u8', 'u16', 'u32', 'i32'].includes(kind);
    if (!int && kind !== 'f32') throw invalid(`${kind} field does not take min/max; bound only u8, u16, u32, i32 and f32 fields (vectors take maxLength).`);
    const ok = (v: number | undefined): boolean => v === undefined || (typeof v === 'number' && !Number.isNaN(v) && (!int || !Number.isFinite(v) || Number.isInteger(v)));
    if (!ok(min) || !ok(max) || (min ?? -Infinity) > (max ?? Infinity)) throw invalid(`${kind} field min ${show(min)} / max ${show(max)} is invalid; pass ${int ? 'integers' : 'numbers'} with min <= max.`);
    if (min !== undefined) r.min = min;
    if (max !== undefined) r.max = max;
  }
  if (maxLength === undefined) return;
  if (kind !== 'vec2' && kind !== 'vec3') throw invalid(`${kind} field does not take a maxLength option; only vec2/vec3 have a length bound (a string field takes it as its first argument).`);
  if (!(typeof maxLength === 'number' && maxLength > 0)) throw invalid(`${kind} field maxLength ${show(maxLength)} is invalid; pass a number > 0 (or Infinity).`);
  r.maxLength = maxLength;
}

export function resolve(
  kind: FieldKind, opts: FieldOptions & RangeOptions & LengthOptions, smoothing: Smoothing, tolerance: number,
): ResolvedFieldOptions {
  const r: Required<FieldOptions> & RangeOptions & LengthOptions = {
    sendTo: opts.sendTo ?? 'all',
    smoothing: opts.smoothing ?? smoothing,
    maxSmoothingDistance: opts.maxSmoothingDistance ?? Infinity,
    replicated: opts.replicated ?? true,
    tolerance: opts.tolerance ?? tolerance,
    required: opts.required ?? false,
  };
  if (!['all', 'owner', 'nonOwner'].includes(r.sendTo)) throw invalid(`${kind} field sendTo ${show(r.sendTo)} is invalid; use 'all', 'owner' or 'nonOwner'.`);
  if (!['clamp', 'interpolate', 'extrapolate'].includes(r.smoothing)) throw invalid(`${kind} field smoothing ${show(r.smoothing)} is invalid; use 'clamp', 'interpolate' or 'extrapolate'.`);
  if (!(r.maxSmoothingDistance >= 0)) throw invalid(`${kind} field maxSmoothingDistance ${show(r.maxSmoothingDistance)} is invalid; pass a number >= 0 (or Infinity).`);
  if (typeof r.replicated !== 'boolean') throw invalid(`${kind} field replicated must be true or false.`);
  if (typeof r.required !== 'boolean') throw invalid(`${kind} field required must be true or false.`);
  if (!(r.tolerance >= 0 && r.tolerance < Infinity)) throw invalid(`${kind} field tolerance ${show(r.tolerance)} is invalid; pass a finite number >= 0.`);
  limits(kind, opts, r);
  return Object.freeze(r);
}

export function checkQuantize(kind: FieldKind, q: number | undefined): void {
  if (q !== undefined && !(q > 0 && q < Infinity)) throw invalid(`${kind} field quantize ${show(q)} is invalid; pass a finite number > 0 (e.g. 100 for 0.01 steps) or omit it for raw float32.`);
}
