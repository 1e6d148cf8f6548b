// Render stage for predicted ghosts: the simulation advances in whole ticks, the screen in frames, so
// each frame shows the ghost between its last two predicted ticks by the accumulator fraction
// (before VisualCorrection is added). Also the per-field blend shared with prediction switching.

import type { Field } from '../field.ts';
import { lerpWeighted, setLerpWeight } from '../interpolation/sample.ts';
import type { Schema, SchemaCodec, Values } from '../schema.ts';

type Loose = Record<string, unknown>;

function blends(field: Field<unknown>): boolean {
  const k = field.kind;
  return k !== 'bool' && k !== 'string' && k !== 'enum' && k !== 'event' && field.options.smoothing !== 'clamp';
}

/**
 * Blend every field of `from` toward `to` by t ∈ [0, 1] into `out` (objects in place, primitives
 * assigned), respecting each field's smoothing: 'clamp' fields and kinds that cannot blend (bool,
 * string, enum, event) take `to`; a jump beyond `maxSmoothingDistance` snaps to `to`; everything else
 * goes through lerpField's blend ('extrapolate' blends like 'interpolate': t never leaves [0, 1] here).
 * `out` may be `from` or `to`. Returns `out`.
 */
export function blendValues<S extends Schema>(codec: SchemaCodec<S>, from: Values<S>, to: Values<S>, t: number, out: Values<S>): Values<S> {
  setLerpWeight(t); // once: a float passed per field would be a heap number per field
  return blendWeighted(codec, from, to, out);
}

/** blendValues by the weight last set with setLerpWeight (or setFrameFraction): no float argument per ghost. */
function blendWeighted<S extends Schema>(codec: SchemaCodec<S>, from: Values<S>, to: Values<S>, out: Values<S>): Values<S> {
  const a = from as Loose;
  const b = to as Loose;
  const o = out as Loose;
  const keys = codec.keys;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const field = codec.schema[key] as Field<unknown>;
    const target = o[key] ?? field.defaultValue();
    const av = a[key];
    const bv = b[key];
    const max = field.options.maxSmoothingDistance;
    if (!blends(field) || (max < Infinity && !(field.distance(av, bv) <= max))) o[key] = field.copy(bv, target);
    else o[key] = lerpWeighted(field, av, bv, target);
  }
  return out;
}

/** The accumulator fraction clamped to [0, 1]; NaN shows the current tick. */
function clampFraction(fraction: number): number {
  if (fraction > 0) return fraction < 1 ? fraction : 1;
  return fraction <= 0 ? 0 : 1;
}

/**
 * The values shown this frame for a predicted ghost: `previous` (tick N − 1) blended toward `current`
 * (tick N) by the accumulator fraction (clamped to [0, 1]), per blendValues: clamp fields and discrete
 * kinds show `current`, jumps beyond maxSmoothingDistance snap to `current`. Writes `out`, returns it.
 */
export function frameInterpolate<S extends Schema>(
  codec: SchemaCodec<S>, previous: Values<S>, current: Values<S>, fraction: number, out: Values<S>,
): Values<S> {
  return blendValues(codec, previous, current, clampFraction(fraction), out);
}

/** Set the accumulator fraction frameInterpolateAtFraction blends by: once per frame for every predicted ghost. */
export function setFrameFraction(fraction: number): void {
  setLerpWeight(clampFraction(fraction));
}

/**
 * frameInterpolate by the fraction last set with setFrameFraction (and not changed by another blend
 * since): per ghost no float crosses a call, so none becomes a heap number.
 */
export function frameInterpolateAtFraction<S extends Schema>(
  codec: SchemaCodec<S>, previous: Values<S>, current: Values<S>, out: Values<S>,
): Values<S> {
  return blendWeighted(codec, previous, current, out);
}

/**
 * Keeps each predicted ghost's values from the previous tick (in pooled objects) so the engine can
 * frame-interpolate. Per client frame: for every tick simulated for real (after any rollback
 * resimulation, so the stored state is the corrected tick N − 1), call `beforeTick(id, values)` just
 * before simulating it; then `render(id, values, fraction, out)`; `delete(id)` when the ghost is
 * despawned or stops being predicted.
 */
export class FrameInterpolator<S extends Schema> {
  readonly codec: SchemaCodec<S>;
  private readonly previous = new Map<number, Values<S>>();
  private readonly pool: Values<S>[] = [];

  constructor(codec: SchemaCodec<S>) {
    this.codec = codec;
  }

  /** Ghosts with a stored previous tick. */
  get size(): number {
    return this.previous.size;
  }

  has(id: number): boolean {
    return this.previous.has(id);
  }

  /** Remember `values` (the state at the end of the last tick) as the previous tick of ghost `id`. */
  beforeTick(id: number, values: Values<S>): void {
    let slot = this.previous.get(id);
    if (slot === undefined) {
      slot = this.pool.pop() ?? this.codec.defaults();
      this.previous.set(id, slot);
    }
    this.codec.copy(values, slot);
  }

  /**
   * Write the frame's values for ghost `id` into `out`: interpolated between the stored previous tick
   * and `values` (the current tick) by `fraction`. Returns false (and copies `values`) when no previous
   * tick is stored yet, e.g. for a ghost that has not been through a tick.
   */
  render(id: number, values: Values<S>, fraction: number, out: Values<S>): boolean {
    const prev = this.previous.get(id);
    if (prev === undefined) {
      this.codec.copy(values, out);
      return false;
    }
    frameInterpolate(this.codec, prev, values, fraction, out);
    return true;
  }

  /** Forget ghost `id`; its storage returns to the pool. */
  delete(id: number): boolean {
    const slot = this.previous.get(id);
    if (slot === undefined) return false;
    this.previous.delete(id);
    this.pool.push(slot);
    return true;
  }

  /** Forget every ghost (storage is kept for reuse). */
  clear(): void {
    for (const slot of this.previous.values()) this.pool.push(slot);
    this.previous.clear();
  }
}
