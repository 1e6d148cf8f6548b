// Schemas: a record of fields (ghost state, inputs, RPC payloads, join payload)
// compiled once into a codec that writes the replicated fields in declaration
// order, reads them back, and validates untrusted values before they are sent.

import type { BitReader, BitWriter } from './bits.ts';
import { canGenerate, compileOnce } from './codegen.ts';
import { NetcodeError } from './errors.ts';
import { describeToken, type Field, type FieldValue } from './field.ts';

/** A record of fields. `Field` methods are bivariant, so every `Field<T>` fits `Field<unknown>`. */
export type Schema = Readonly<Record<string, Field<unknown>>>;

/** The plain object a schema describes, e.g. `{ hp: number; pos: Vec3 }`. */
export type Values<S extends Schema> = { -readonly [K in keyof S]: FieldValue<S[K]> };

/**
 * The string keys of a schema. Written as a conditional type on purpose: a bare
 * `keyof S` in `SchemaCodec` would make S invariant, so `SchemaCodec<{ hp: Field<number> }>`
 * would not widen to `SchemaCodec<Schema>`.
 */
export type SchemaKey<S extends Schema> = S extends Schema ? keyof S & string : never;

export interface SchemaCodec<S extends Schema> {
  readonly schema: S;
  /** Declaration order = wire order. */
  readonly keys: readonly SchemaKey<S>[];
  /** Canonical, order-sensitive text for the protocol hash, e.g. '{a:u8,b:f32(q=100)}'. */
  readonly describe: string;
  /** Writes only fields whose `options.replicated` is true. Throws NetcodeError('usage') on a missing field. */
  write(w: BitWriter, values: Values<S>): void;
  /** A new object; fields that are not replicated get their defaults. */
  read(r: BitReader): Values<S>;
  /** Decode the replicated fields into `out` (vectors into its existing objects). */
  readInto(r: BitReader, out: Values<S>): Values<S>;
  defaults(): Values<S>;
  /** Every field as it decodes after a round trip (non-replicated fields are quantized too). */
  quantize(values: Values<S>): Values<S>;
  /**
   * Copy every field of `from` into `to` (vectors into `to`'s existing objects); returns `to`. `replicatedOnly` leaves predicted-only
   * fields alone.
   */
  copy(from: Values<S>, to: Values<S>, replicatedOnly?: boolean): Values<S>;
  /**
   * Check an untrusted JS value (e.g. from user code or JSON) has every field of the right type and range; returns an error message or
   * null.
   */
  validate(values: unknown): string | null;
}

type Loose = Record<string, unknown>;

function isField(value: unknown): value is Field<unknown> {
  const f = value as Partial<Field<unknown>> | null;
  return typeof f === 'object' && f !== null && typeof f.write === 'function' && typeof f.read === 'function' && typeof f.describe === 'string';
}

function missing(key: string, op: string, describe: string): NetcodeError {
  return new NetcodeError('usage', `react-netcode: ${op} is missing field "${key}"; pass every field of the schema ${describe}.`);
}

type Entry = { readonly key: string; readonly field: Field<unknown> };
type Copier = (from: Loose, to: Loose) => void;

/** Copy the fields of `entries`: vectors and quaternions into `to`'s existing objects (Field.copy), the other values as they are. */
export function referenceCopy(entries: readonly Entry[]): Copier {
  return (f, t) => {
    for (const { key, field } of entries) t[key] = field.copy(f[key], t[key]);
  };
}

const COMPONENTS: Readonly<Record<string, readonly string[]>> = { vec2: ['x', 'y'], vec3: ['x', 'y', 'z'], quat: ['x', 'y', 'z', 'w'] };

/**
 * referenceCopy as straight-line code with literal property names (the rollback's hot path: each
 * predicted ghost is copied into its history every tick). Vectors and quaternions are copied component
 * by component as their Field.copy does; other fields call their Field.copy. Shared by every schema
 * with the same field kinds and keys.
 */
export function compileCopy(entries: readonly Entry[]): Copier {
  const lines = entries.map(({ key, field }, i) => {
    const k = `[${JSON.stringify(key)}]`;
    const parts = COMPONENTS[field.kind];
    if (parts === undefined) return `t${k} = F[${i}].copy(f${k}, t${k});`;
    return `{ const a = f${k}, b = t${k}; ${parts.map((c) => `b.${c} = a.${c};`).join(' ')} }`;
  });
  const source = `return (f, t) => { ${lines.join('\n')} };`;
  // Fields other than vectors and quaternions are called through F: the key names the kinds, so equal sources share one function.
  const key = `copy\0${entries.map((e) => (COMPONENTS[e.field.kind] ? e.field.kind : 'call')).join(',')}\0${source}`;
  const shared = compileOnce<(fields: readonly Field<unknown>[]) => Copier>(key, [], `return (F) => { ${source} };`, []);
  return shared(entries.map((e) => e.field));
}

export function compileSchema<S extends Schema>(schema: S): SchemaCodec<S> {
  if (typeof schema !== 'object' || schema === null) throw new NetcodeError('protocol/invalid', 'react-netcode: a schema must be an object of fields, e.g. { hp: field.u8() }.');
  const keys = Object.keys(schema) as SchemaKey<S>[];
  const fields: Field<unknown>[] = [];
  for (const key of keys) {
    if (key === '__proto__') throw new NetcodeError('protocol/invalid', 'react-netcode: "__proto__" cannot be a schema key; rename the field.');
    const f: unknown = schema[key];
    if (!isField(f)) throw new NetcodeError('protocol/invalid', `react-netcode: schema key "${key}" is not a field; use field.u8(), field.vec3(), ... from react-netcode.`);
    fields.push(f);
  }
  const describe = `{${keys.map((k, i) => `${describeToken(k)}:${fields[i]!.describe}`).join(',')}}`;
  const wire = keys.map((key, i) => ({ key, field: fields[i]! })).filter((e) => e.field.options.replicated);
  const all = keys.map((key, i) => ({ key, field: fields[i]! }));
  type V = Values<S>;
  const generate = canGenerate();
  const copyAll = generate ? compileCopy(all) : referenceCopy(all);
  const copyWire = generate ? compileCopy(wire) : referenceCopy(wire);

  const need = (values: unknown, op: string): Loose => {
    if (typeof values !== 'object' || values === null) throw new NetcodeError('usage', `react-netcode: ${op} needs an object with the fields of ${describe}, got ${String(values)}.`);
    return values as Loose;
  };

  return Object.freeze({
    schema,
    keys: Object.freeze(keys),
    describe,
    write(w: BitWriter, values: V): void {
      const v = need(values, 'write');
      for (const { key, field } of wire) {
        const value = v[key];
        if (value === undefined) throw missing(key, 'write', describe);
        field.write(w, value);
      }
    },
    read(r: BitReader): V {
      const out: Loose = {};
      for (const { key, field } of all) out[key] = field.options.replicated ? field.read(r) : field.defaultValue();
      return out as V;
    },
    readInto(r: BitReader, out: V): V {
      const o = need(out, 'readInto');
      // By index: a for…of builds an iterator and a result per entry in code not yet optimized (a client reads per snapshot).
      for (let i = 0; i < wire.length; i++) {
        const { key, field } = wire[i]!;
        const cur = o[key];
        o[key] = cur === undefined || cur === null ? field.read(r) : field.readInto(r, cur);
      }
      return out;
    },
    defaults(): V {
      const out: Loose = {};
      for (const { key, field } of all) out[key] = field.defaultValue();
      return out as V;
    },
    quantize(values: V): V {
      const v = need(values, 'quantize');
      const out: Loose = {};
      for (const { key, field } of all) {
        const value = v[key];
        if (value === undefined) throw missing(key, 'quantize', describe);
        out[key] = field.quantize(value);
      }
      return out as V;
    },
    copy(from: V, to: V, replicatedOnly = false): V {
      (replicatedOnly ? copyWire : copyAll)(from as Loose, to as Loose);
      return to;
    },
    validate(values: unknown): string | null {
      if (typeof values !== 'object' || values === null || Array.isArray(values)) return `expected an object with the fields of ${describe}, got ${values === null ? 'null' : typeof values}`;
      const v = values as Loose;
      for (const { key, field } of all) {
        if (!(key in v) || v[key] === undefined) return `field "${key}" is missing`;
        const problem = field.validate(v[key]);
        if (problem !== null) return `field "${key}" ${problem}`;
      }
      return null;
    },
  });
}
