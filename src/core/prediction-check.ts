// The rollback's first question per predicted ghost: does any replicated field of its prediction
// for the snapshot tick differ from the confirmed state by more than the field's tolerance? Asked
// for every predicted ghost at every snapshot, so it is generated as straight-line code with literal
// property names (codegen.ts); the reference version below is the definition it must match.

import { canGenerate, compileOnce } from './codegen.ts';
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

/** referenceBeyondTolerance as straight-line code; shared by every schema with the same keys and nonOwner fields. */
export function compileBeyondTolerance(codec: SchemaCodec<Schema>): BeyondTolerance {
  const entries = compared(codec);
  const lines = entries.map(({ key, field }, i) => {
    const k = `[${JSON.stringify(key)}]`;
    const test = `!(F[${i}].distance(p${k}, c${k}) <= F[${i}].options.tolerance)`;
    return field.options.sendTo === 'nonOwner' ? `if (!local && ${test}) return true;` : `if (${test}) return true;`;
  });
  const source = `return (p, c, local) => { ${lines.join('\n')}\nreturn false; };`;
  const shared = compileOnce<(fields: readonly Field<unknown>[]) => BeyondTolerance>(`beyond\0${source}`, [], `return (F) => { ${source} };`, []);
  return shared(entries.map((e) => e.field));
}

const cache = new WeakMap<SchemaCodec<Schema>, BeyondTolerance>();
let generate: boolean | undefined;

/** The check for `codec`: generated where `new Function` is allowed, else the reference version. One per codec. */
export function beyondTolerance(codec: SchemaCodec<Schema>): BeyondTolerance {
  let f = cache.get(codec);
  if (f === undefined) {
    generate ??= canGenerate();
    f = generate ? compileBeyondTolerance(codec) : referenceBeyondTolerance(codec);
    cache.set(codec, f);
  }
  return f;
}
