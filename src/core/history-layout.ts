// The flat layout of a schema's values (flat-history.ts stores ghosts' histories in it): per tick a slot whose
// numeric values (numbers, the components of vec2 / vec3 / quat fields) sit side by side in one Float64Array,
// the other values (bool, string, enum: primitives) in one array. Recording a tick, restoring a snapshot's tick,
// comparing a prediction with the confirmed state and sampling a confirmed history then read and write one typed
// array per ghost instead of a graph of sample and vector objects. The copies in and out and the tolerance check
// are generated per schema as straight-line code (codegen.ts), with reference versions for where `new Function`
// is not allowed.

import { canGenerate, compileOnce } from './codegen.ts';
import { absDistance, quatDistance, vec2Distance, vec3Distance, type Field } from './field.ts';
import { squaredTolerance } from './prediction-check.ts';
import type { Schema, SchemaCodec, Values } from './schema.ts';

type Loose = Record<string, unknown>;

const AXES: Readonly<Record<string, readonly string[]>> = { vec2: ['x', 'y'], vec3: ['x', 'y', 'z'], quat: ['x', 'y', 'z', 'w'] };
/** Kinds whose value is a number: one double in a slot. */
const NUMBERS: ReadonlySet<string> = new Set(['u8', 'u16', 'u32', 'i32', 'f32', 'event']);

/** Where one field of the schema lives in a slot. */
interface Place {
  readonly key: string;
  readonly field: Field<unknown>;
  /** The components of a vector or quaternion field (doubles from `at`), undefined for the others. */
  readonly axes: readonly string[] | undefined;
  /** True: doubles from `at` in the numeric slot; false: index `at` in the slot of other values. */
  readonly numeric: boolean;
  readonly at: number;
}

/** Copies between values and a slot (`s`: the slot's index), and the rollback's check, for one schema. */
export interface HistoryKernels {
  /** Every field of `v` into slot `s`. */
  store(v: Values<Schema>, a: Float64Array, x: unknown[], s: number): void;
  /** Every field of slot `s` into `v` (vectors into `v`'s existing objects). */
  load(a: Float64Array, x: unknown[], s: number, v: Values<Schema>): void;
  /**
   * Put `v` back at the state of slot `s` corrected by the confirmed state `c`: the replicated fields of `c`
   * into slot `s` and into `v`, the predicted-only fields from slot `s` into `v` (Source's rule).
   */
  restore(c: Values<Schema>, a: Float64Array, x: unknown[], s: number, v: Values<Schema>): void;
  /** Whether a replicated field of slot `s` is further from `c` than its tolerance (nonOwner fields not when `local`). */
  beyond(a: Float64Array, x: unknown[], s: number, c: Values<Schema>, local: boolean): boolean;
  /** `beyond`, and when it is false `restore` (a rollback's pass per ghost, one call); true when beyond, and then nothing is written. */
  settle(c: Values<Schema>, a: Float64Array, x: unknown[], s: number, v: Values<Schema>, local: boolean): boolean;
  /** On values, not a slot: how many replicated fields of `p` are beyond their tolerance from `c` (nonOwner ones not when `local`). */
  count(p: Values<Schema>, c: Values<Schema>, local: boolean): number;
}

/** A schema's slot layout: `width` doubles (the first one the slot's tick) and `others` other values per tick, and its kernels. */
export interface HistoryLayout {
  readonly width: number;
  readonly others: number;
  readonly places: readonly Place[];
  readonly kernels: HistoryKernels;
  /** Three value objects a flat history's samples are read into (interpolation/sample.ts), shared by every ghost of the schema. */
  readonly samples: readonly [Values<Schema>, Values<Schema>, Values<Schema>];
}

function places(codec: SchemaCodec<Schema>): { places: Place[]; width: number; others: number } {
  const fields = codec.schema as Record<string, Field<unknown>>;
  let width = 1; // a slot's first double is its tick (−1: empty), read with its values
  let others = 0;
  const out = codec.keys.map((key): Place => {
    const field = fields[key]!;
    const axes = AXES[field.kind];
    if (axes !== undefined) {
      const at = width;
      width += axes.length;
      return { key, field, axes, numeric: true, at };
    }
    if (NUMBERS.has(field.kind)) return { key, field, axes: undefined, numeric: true, at: width++ };
    return { key, field, axes: undefined, numeric: false, at: others++ };
  });
  return { places: out, width, others };
}

/** The definition of the kernels: each field in schema order, read and written through its place. */
export function referenceKernels(layout: { places: readonly Place[]; width: number; others: number }): HistoryKernels {
  const { places: all, width: W, others: X } = layout;
  const scratch = all.map((p) => (p.axes !== undefined ? (p.field.defaultValue() as Loose) : undefined));
  const put = (p: Place, value: unknown, a: Float64Array, x: unknown[], s: number): void => {
    if (p.axes !== undefined) for (let k = 0; k < p.axes.length; k++) a[s * W + p.at + k] = (value as Loose)[p.axes[k]!] as number;
    else if (p.numeric) a[s * W + p.at] = value as number;
    else x[s * X + p.at] = value;
  };
  const get = (p: Place, a: Float64Array, x: unknown[], s: number, v: Loose): void => {
    if (p.axes !== undefined) {
      const to = v[p.key] as Loose;
      for (let k = 0; k < p.axes.length; k++) to[p.axes[k]!] = a[s * W + p.at + k];
    } else v[p.key] = p.numeric ? a[s * W + p.at] : x[s * X + p.at];
  };
  return {
    store(v, a, x, s) {
      for (const p of all) put(p, (v as Loose)[p.key], a, x, s);
    },
    load(a, x, s, v) {
      for (const p of all) get(p, a, x, s, v as Loose);
    },
    restore(c, a, x, s, v) {
      for (const p of all) {
        if (p.field.options.replicated) put(p, (c as Loose)[p.key], a, x, s);
        get(p, a, x, s, v as Loose);
      }
    },
    beyond(a, x, s, c, local) {
      for (let i = 0; i < all.length; i++) {
        const p = all[i]!;
        if (!p.field.options.replicated || (p.field.options.sendTo === 'nonOwner' && local)) continue;
        let predicted: unknown;
        if (p.axes !== undefined) {
          const o = scratch[i]!;
          for (let k = 0; k < p.axes.length; k++) o[p.axes[k]!] = a[s * W + p.at + k];
          predicted = o;
        } else predicted = p.numeric ? a[s * W + p.at] : x[s * X + p.at];
        if (!(p.field.distance(predicted, (c as Loose)[p.key]) <= p.field.options.tolerance)) return true;
      }
      return false;
    },
    settle(c, a, x, s, v, local) {
      if (this.beyond(a, x, s, c, local)) return true;
      this.restore(c, a, x, s, v);
      return false;
    },
    count(p, c, local) {
      let n = 0;
      for (const q of all) {
        if (!q.field.options.replicated || (q.field.options.sendTo === 'nonOwner' && local)) continue;
        if (!(q.field.distance((p as Loose)[q.key], (c as Loose)[q.key]) <= q.field.options.tolerance)) n++;
      }
      return n;
    },
  };
}

/**
 * The source of one replicated field's tolerance check, `onBeyond` run when it is beyond: `at(j)` is the predicted value
 * (component j of a vector or quaternion). The distances of vec2 / vec3 (a sum of squares against the squared tolerance),
 * quat and integer / f32 fields are inlined, the others called: a float a call returns is a new heap number.
 */
function check(p: Place, i: number, at: (j: number) => string, onBeyond: string): string {
  const d = p.field.distance as unknown;
  const key = `[${JSON.stringify(p.key)}]`;
  let test: string;
  if (p.axes !== undefined && (d === vec3Distance || d === vec2Distance) && p.axes.length === (d === vec3Distance ? 3 : 2)) {
    test = `{ const q = c${key}; if (!(${p.axes.map((c, j) => `(${at(j)} - q.${c}) ** 2`).join(' + ')} <= T[${i}])) ${onBeyond} }`;
  } else if (p.axes !== undefined && d === quatDistance && p.axes.length === 4) {
    test = `{ const q = c${key}; const ax = ${at(0)}, ay = ${at(1)}, az = ${at(2)}, aw = ${at(3)};\n${QUAT_DISTANCE}\nif (!(d <= L[${i}])) ${onBeyond} }`;
  } else if (p.axes !== undefined) {
    test = `{ const q = Q[${i}]; ${p.axes.map((c, j) => `q.${c} = ${at(j)};`).join(' ')} if (!(F[${i}].distance(q, c${key}) <= L[${i}])) ${onBeyond} }`;
  } else if (p.numeric && d === absDistance) {
    test = `if (!(Math.abs(${at(0)} - c${key}) <= L[${i}])) ${onBeyond}`;
  } else {
    test = `if (!(F[${i}].distance(${at(0)}, c${key}) <= L[${i}])) ${onBeyond}`;
  }
  return p.field.options.sendTo === 'nonOwner' ? `if (!local) ${test}` : test;
}

/** quatDistance(a, b) as statements (a in ax…aw, b in q, the result in d; `sg` for its `s`): the same operations in the same order. */
const QUAT_DISTANCE = [
  'const la = Math.sqrt(ax * ax + ay * ay + az * az + aw * aw);',
  'const lb = Math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);',
  'const sg = ax * q.x + ay * q.y + az * q.z + aw * q.w < 0 ? -1 / lb : 1 / lb;',
  'const dx = ax / la - q.x * sg, dy = ay / la - q.y * sg, dz = az / la - q.z * sg, dw = aw / la - q.w * sg;',
  'const sx = ax / la + q.x * sg, sy = ay / la + q.y * sg, sz = az / la + q.z * sg, sw = aw / la + q.w * sg;',
  'const diff = 0 + dx ** 2 + dy ** 2 + dz ** 2 + dw ** 2, sum = 0 + sx ** 2 + sy ** 2 + sz ** 2 + sw ** 2;',
  'const d = 4 * Math.atan2(Math.sqrt(diff), Math.sqrt(sum));',
].join(' ');

/** The kernels as straight-line code with literal property names and offsets; shared by every schema with the same source. */
export function compileKernels(layout: { places: readonly Place[]; width: number; others: number }): HistoryKernels {
  const { places: all, width: W, others: X } = layout;
  const k = (p: Place): string => `[${JSON.stringify(p.key)}]`;
  const num = (p: Place, j = 0): string => `a[o + ${p.at + j}]`;
  const oth = (p: Place): string => `x[xo + ${p.at}]`;
  const start = `const o = s * ${W}, xo = s * ${X};`;
  const store = all.map((p) => {
    if (p.axes !== undefined) return `{ const b = v${k(p)}; ${p.axes.map((c, j) => `${num(p, j)} = b.${c};`).join(' ')} }`;
    return p.numeric ? `${num(p)} = v${k(p)};` : `${oth(p)} = v${k(p)};`;
  });
  const load = all.map((p) => {
    if (p.axes !== undefined) return `{ const b = v${k(p)}; ${p.axes.map((c, j) => `b.${c} = ${num(p, j)};`).join(' ')} }`;
    return p.numeric ? `v${k(p)} = ${num(p)};` : `v${k(p)} = ${oth(p)};`;
  });
  const restore = all.map((p, i) => {
    if (!p.field.options.replicated) return load[i]!;
    if (p.axes !== undefined) return `{ const b = v${k(p)}, q = c${k(p)}; ${p.axes.map((c, j) => `${num(p, j)} = b.${c} = q.${c};`).join(' ')} }`;
    return p.numeric ? `${num(p)} = v${k(p)} = c${k(p)};` : `${oth(p)} = v${k(p)} = c${k(p)};`;
  });
  const compared = all.flatMap((p, i) => (p.field.options.replicated ? [{ p, i }] : []));
  const beyond = compared.map(({ p, i }) => check(p, i, (j) => (p.numeric ? num(p, j) : oth(p)), 'return true;'));
  const count = compared.map(({ p, i }) => check(p, i, (j) => (p.axes !== undefined ? `p${k(p)}.${p.axes[j]!}` : `p${k(p)}`), 'n++;'));
  const source = [
    `store: (v, a, x, s) => { ${start}\n${store.join('\n')} },`,
    `load: (a, x, s, v) => { ${start}\n${load.join('\n')} },`,
    `restore: (c, a, x, s, v) => { ${start}\n${restore.join('\n')} },`,
    `beyond: (a, x, s, c, local) => { ${start}\n${beyond.join('\n')}\nreturn false; },`,
    `settle: (c, a, x, s, v, local) => { ${start}\n${beyond.join('\n')}\n${restore.join('\n')}\nreturn false; },`,
    `count: (p, c, local) => { let n = 0;\n${count.join('\n')}\nreturn n; },`,
  ].join('\n');
  type Make = (
    fields: readonly Field<unknown>[], squared: readonly number[], quats: readonly (Loose | undefined)[], tolerances: readonly number[],
  ) => HistoryKernels;
  const shared = compileOnce<Make>(`history\0${source}`, [], `return (F, T, Q, L) => ({ ${source} });`, []);
  return shared(
    all.map((p) => p.field),
    all.map((p) => squaredTolerance(p.field.options.tolerance)),
    all.map((p) => (p.axes !== undefined ? (p.field.defaultValue() as Loose) : undefined)),
    all.map((p) => p.field.options.tolerance),
  );
}

const layouts = new WeakMap<SchemaCodec<Schema>, HistoryLayout>();
let generate: boolean | undefined;

/** The slot layout of `codec` and its kernels (generated where `new Function` is allowed). One per codec. */
export function historyLayout(codec: SchemaCodec<Schema>): HistoryLayout {
  let layout = layouts.get(codec);
  if (layout === undefined) {
    const p = places(codec);
    generate ??= canGenerate();
    layout = Object.freeze({
      ...p,
      kernels: generate ? compileKernels(p) : referenceKernels(p),
      samples: [codec.defaults(), codec.defaults(), codec.defaults()] as const,
    });
    layouts.set(codec, layout);
  }
  return layout;
}
