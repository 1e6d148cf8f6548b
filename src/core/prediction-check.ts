// The rollback's first question per predicted ghost: does any replicated field of its prediction
// for the snapshot tick differ from the confirmed state by more than the field's tolerance? Asked
// for every predicted ghost at every snapshot, on the predicted history's flat storage, by code
// generated per schema (history-layout.ts: `beyond`, `settle`); the reference version below, on
// values, is the definition it must match.

import type { Field } from './field.ts';
import type { Schema, SchemaCodec, Values } from './schema.ts';

/** True when a field the rollback compares is beyond its tolerance; `local`: the ghost is ours (nonOwner fields are not compared). */
export type BeyondTolerance = (predicted: Values<Schema>, confirmed: Values<Schema>, local: boolean) => boolean;

type Entry = { readonly key: string; readonly field: Field<unknown> };

/** The fields a rollback compares: the replicated ones. */
function compared(codec: SchemaCodec<Schema>): Entry[] {
  const fields = codec.schema as Record<string, Field<unknown>>;
  return codec.keys.map((key) => ({ key, field: fields[key]! })).filter((e) => e.field.options.replicated);
}

/** The definition: each compared field's distance against its tolerance, in schema order. */
export function referenceBeyondTolerance(codec: SchemaCodec<Schema>): BeyondTolerance {
  const entries = compared(codec);
  return (predicted, confirmed, local) => {
    const p = predicted as Record<string, unknown>;
    const c = confirmed as Record<string, unknown>;
    for (const { key, field } of entries) {
      if (field.options.sendTo === 'nonOwner' && local) continue;
      if (!(field.distance(p[key], c[key]) <= field.options.tolerance)) return true;
    }
    return false;
  };
}

/**
 * The largest sum of squares whose square root is within `tolerance`: `Math.sqrt(s) <= tolerance` exactly when
 * `s <= squaredTolerance(tolerance)` for every s ≥ 0 or NaN (the square root is correctly rounded and monotonic, so
 * tolerance² is only moved to the last double on the right side of the rounding). −1 when nothing is within.
 */
export function squaredTolerance(tolerance: number): number {
  if (!(tolerance >= 0)) return -1;
  if (tolerance === Infinity) return Infinity;
  let t = tolerance * tolerance;
  while (t > 0 && Math.sqrt(t) > tolerance) t = step(t, -1);
  for (let next = step(t, 1); Math.sqrt(next) <= tolerance; next = step(t, 1)) t = next;
  return t;
}

const bits = new Float64Array(1);
const word = new BigInt64Array(bits.buffer);

/** The adjacent double of a non-negative `x` (+1 up, −1 down). */
function step(x: number, by: 1 | -1): number {
  bits[0] = x;
  word[0] = word[0]! + BigInt(by);
  return bits[0]!;
}

/** Whether the check reads its `local` argument (a compared nonOwner field): otherwise the caller may pass false. */
export function readsLocal(codec: SchemaCodec<Schema>): boolean {
  return compared(codec).some((e) => e.field.options.sendTo === 'nonOwner');
}
