// Bounds of untrusted payloads (join, RPCs): the decoder already guarantees each value
// has its field's type and form; this checks the declared bounds a decoded value can
// still break — `min`/`max` of numbers and `maxLength` of vectors. Inputs are clamped
// instead (input/sanitize.ts); a join or an RPC is refused with the problem.

import type { Field } from './field.ts';
import type { Schema, SchemaCodec } from './schema.ts';

/** Relative slack on vector lengths, as the input sanitizer allows (rounding). */
const LENGTH_SLACK = 1e-9;

function boundProblem(field: Field<unknown>, value: unknown): string | null {
  const { min, max, maxLength } = field.options;
  if (typeof value === 'number') {
    if (min !== undefined && !(value >= min)) return `must be at least ${min}, got ${value}`;
    if (max !== undefined && !(value <= max)) return `must be at most ${max}, got ${value}`;
    return null;
  }
  if (maxLength === undefined || typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, number>;
  const length = Math.sqrt(v.x! * v.x! + v.y! * v.y! + (field.kind === 'vec3' ? v.z! * v.z! : 0));
  return length > maxLength * (1 + LENGTH_SLACK) ? `must have a length of at most ${maxLength}, got ${length}` : null;
}

/** The first field of `values` outside its declared bounds, as `field "team" must be at most 1, got 5`; null when all are within. */
export function boundsProblem(codec: SchemaCodec<Schema>, values: unknown): string | null {
  const v = values as Record<string, unknown>;
  for (const key of codec.keys) {
    const field = codec.schema[key]!;
    if (!field.options.replicated) continue; // never sent: nothing a peer chose
    const problem = boundProblem(field, v[key]);
    if (problem !== null) return `field "${key}" ${problem}`;
  }
  return null;
}

/** What a sender checks before it sends a payload: its schema (types, ranges, lengths), then its declared bounds. */
export function payloadProblem(codec: SchemaCodec<Schema>, values: unknown): string | null {
  return codec.validate(values) ?? boundsProblem(codec, values);
}
