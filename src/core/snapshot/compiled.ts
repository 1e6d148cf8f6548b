// Compiled quantizers for the snapshot encoder: reading ghost values with a
// variable key (values[field.key]) goes megamorphic in V8 and costs ~25 ns per
// field, so on the server each ghost type gets a function generated from its
// layout with literal property names (~10× faster). Where code generation is not
// allowed (a strict CSP), the generic `quantizeInto` is used instead.

import { compileOnce, enumsKey } from './codegen.ts';
import { utf8Length } from '../bits.ts';
import { K_BOOL, K_ENUM, K_FQ, K_FR, K_QUAT, K_STR, K_UINT, K_WORD, orderedBits, orderedFinite, quantizeInto, type TypeLayout } from './layout.ts';
import { QUAT_CODES, quatCodes } from './quat.ts';

/** Quantize `values` into row[o..] / strs[so..]; false when some value is invalid (nothing is promised about the row then). */
export type Quantizer = (values: Record<string, unknown>, row: Int32Array, o: number, strs: string[], so: number) => boolean;

export const quantizeHelpers = { orderedBits, orderedFinite, quatCodes, QUAT_CODES, utf8Length };

/**
 * Code equal to `Math.round(p) + 0` for every p (NaN stays NaN), without a branch: V8
 * compiles Math.round to a round-up and a compare-and-branch on the fraction, which
 * mispredicts about half the time on moving values (it made quantizing ~2× slower).
 * Math.round(p) is floor(p) + (1 if the fraction p − floor(p) is at least one half):
 * the fraction is exact for every finite p, and the comparison becomes a 0/1 value, not
 * a jump (floor(p + 0.5) alone is wrong at p = 0.49999999999999994, and fixing that with
 * a never-taken branch cost ~6 % of a steady-state encode). -0 becomes 0 (f + 0).
 * Declares `into` (block-scoped: emit inside a block).
 */
function round(into: string, p: string): string {
  return `const p_ = ${p}; const f_ = Math.floor(p_); const ${into} = f_ + ((p_ - f_ >= 0.5) | 0);`;
}

/**
 * Code quantizing field i into row[o..] / strs[so..] from `values`; runs `fail` (a
 * statement) on an invalid value. Every value stored is an int32. The range checks of
 * quantized floats and of quaternion lengths do not branch: they set the local `bad`
 * (declared by the caller, which fails when it is set after the last field), because a
 * branch on each rounded value cost ~3 ns even though it is never taken.
 */
export function fieldCode(layout: TypeLayout, i: number, fail = 'return false;', locals = false, hoisted = false): string {
  const s = layout.fields[i]!;
  const get = `values[${JSON.stringify(s.key)}]`;
  // With `hoisted`, a vector's or quaternion's object and components were read (and the object checked) by
  // `hoistedReads` before any field's code: the locals o<i> and o<i><axis>.
  const comp = (c: string, obj: string): string => (hoisted ? `o${i}${c}` : `${obj}.${c}`);
  // With `locals`, each slot's value also goes to the local v<slot> (declared by the caller), so it is not read back.
  const at = (k: number): string => (locals ? `v${s.slot + k} = row[o + ${s.slot + k}]` : `row[o + ${s.slot + k}]`);
  switch (s.kind) {
    case K_BOOL:
      return `{ const b = ${get}; if (b === true) ${at(0)} = 1; else if (b === false) ${at(0)} = 0; else ${fail} }`;
    case K_UINT:
    case K_WORD: {
      const min = s.signed ? -0x8000_0000 : 0;
      const max = s.kind === K_UINT ? s.max : s.signed ? 0x7fff_ffff : 0xffff_ffff;
      return `{ const n = ${get}; if (typeof n !== 'number' || !Number.isInteger(n) || n < ${min} || n > ${max}) ${fail} ${at(0)} = n | 0; }`;
    }
    case K_ENUM:
      return `{ const e = ${get}; const x = typeof e === 'string' ? enums[${i}].get(e) : undefined; if (x === undefined) ${fail} ${at(0)} = x; }`;
    case K_STR:
      return `{ const t = ${get}; if (typeof t !== 'string' || t.length > ${s.maxLength} || h.utf8Length(t) < 0) ${fail} strs[so + ${s.slot}] = t; }`;
    case K_QUAT: {
      // bits.ts encodeQuat inlined (the same arithmetic, so the same codes), without a call or a
      // branch on the data: on random rotations the choice of the largest component mispredicts
      // (~15 ns a quaternion). QS is a 4-double scratch declared next to the generated function.
      const max = (1 << (s.bits - 1)) - 1;
      // encodeQuat's k is (±max) / Math.SQRT1_2 / length = ±(S / length) with S = max / Math.SQRT1_2 (a literal
      // prints exactly; negation is exact), and c · (−K) = (c · K) · −1 exactly: so the sign is a multiplication.
      const S = max / Math.SQRT1_2;
      // A code is within ±max without the clamp whenever the length is accurate (each of the three smaller
      // components is at most length · √½, so |c · k| <= max up to a few ulps); squares that underflow or
      // overflow make it inaccurate, so outside [1e-140, 1e140] the clamped form runs (one branch, not six).
      const put = (k: number, c: string, clamp: boolean): string =>
        `{ ${round('r', `${c} * k * sg`)} ${at(k)} = ${clamp ? `(r > ${max} ? ${max} : r < ${-max} ? ${-max} : r)` : 'r'} + ${max}; }`;
      const puts = (clamp: boolean): string => `${put(1, 'QS[(idx === 0) | 0]', clamp)} ${put(2, 'QS[1 + ((idx <= 1) | 0)]', clamp)} ${put(3, 'QS[2 + ((idx <= 2) | 0)]', clamp)}`;
      return `{ ${hoisted ? '' : `const q = ${get}; if (typeof q !== 'object' || q === null) ${fail}`}
        const nx = ${comp('x', 'q')}, ny = ${comp('y', 'q')}, nz = ${comp('z', 'q')}, nw = ${comp('w', 'q')};
        const len = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
        bad |= ((len > 0) & (len < Infinity)) ^ 1;
        QS[0] = nx; QS[1] = ny; QS[2] = nz; QS[3] = nw;
        const ax = Math.abs(nx), ay = Math.abs(ny), az = Math.abs(nz), aw = Math.abs(nw);
        // The first largest |component|: i wins when it beats every earlier one and no later one beats it.
        const c01 = (ay > ax) | 0, c02 = (az > ax) | 0, c03 = (aw > ax) | 0, c12 = (az > ay) | 0, c13 = (aw > ay) | 0, c23 = (aw > az) | 0;
        const idx = (c01 & (c12 ^ 1) & (c13 ^ 1)) | ((c02 & c12 & (c23 ^ 1)) << 1) | ((c03 & c13 & c23) * 3);
        const sg = 1 - 2 * ((QS[idx] < 0) | 0);
        const k = ${S} / len;
        ${at(0)} = idx;
        if (len > 1e-140 && len < 1e140) { ${puts(false)} } else { ${puts(true)} } }`;
    }
    case K_FQ:
    case K_FR: {
      const conv = (x: string, k: number): string =>
        s.kind === K_FQ
          ? // |r| <= 2^31 − 1 (NaN and ±Infinity fail too), tested on the int32 it is stored as.
            `{ ${round('r', `${x} * ${s.factor}`)} const t = r | 0; bad |= (t !== r) | (t === -2147483648); ${at(k)} = t; }`
          : `{ const r = h.orderedBits(${x}); if (!h.orderedFinite(r)) ${fail} ${at(k)} = r; }`;
      if (s.axes.length === 0) return `{ const x = ${get}; if (typeof x !== 'number') ${fail} ${conv('x', 0)} }`;
      const axes = s.axes;
      return `{ ${hoisted ? '' : `const v = ${get}; if (typeof v !== 'object' || v === null) ${fail}`}
        ${axes.map((a) => `const ${a} = ${comp(a, 'v')};`).join(' ')} if (${axes.map((a) => `(typeof ${a} !== 'number')`).join(' | ')}) ${fail}
        ${axes.map((a, k) => conv(a, k)).join(' ')} }`;
    }
  }
  return fail;
}

/** Whether field i of `layout` is an object (a vector or quaternion), whose reads `hoistedReads` does up front. */
function isObjectField(layout: TypeLayout, i: number): boolean {
  const s = layout.fields[i]!;
  return s.kind === K_QUAT || ((s.kind === K_FQ || s.kind === K_FR) && s.axes.length > 0);
}

/**
 * Code reading every vector and quaternion of `values` — the objects, a check that they are
 * objects (`fail` otherwise), then their components into locals — before any field is
 * quantized, so the loads of one ghost (other objects than `values`, and the boxed numbers
 * in them: cache misses when the game's objects are cold) are issued together instead of
 * one field after the other. Emit `fieldCode(…, hoisted = true)` for each field after it.
 */
export function hoistedReads(layout: TypeLayout, fail: string): string {
  const objs = layout.fields.map((_, i) => i).filter((i) => isObjectField(layout, i));
  if (objs.length === 0) return '';
  const axes = (i: number): readonly string[] => (layout.fields[i]!.kind === K_QUAT ? ['x', 'y', 'z', 'w'] : layout.fields[i]!.axes);
  return `const ${objs.map((i) => `o${i} = values[${JSON.stringify(layout.fields[i]!.key)}]`).join(', ')};
if (${objs.map((i) => `(typeof o${i} !== 'object') | (o${i} === null)`).join(' | ')}) ${fail}
const ${objs.flatMap((i) => axes(i).map((a) => `o${i}${a} = o${i}.${a}`)).join(', ')};`;
}

/** The fastest quantizer available for `layout`. */
export function compileQuantizer(layout: TypeLayout): Quantizer {
  const generic: Quantizer = (values, row, o, strs, so) => {
    try {
      quantizeInto(layout.fields, values, row, o, strs, so, 0, layout.name);
      return true;
    } catch {
      return false;
    }
  };
  const body = layout.fields.map((_, i) => fieldCode(layout, i)).join('\n');
  const enums = layout.fields.map((s) => s.enumIndex);
  try {
    const source = `'use strict'; const QS = new Float64Array(4); return function quantize(values, row, o, strs, so) {\nlet bad = 0;\n${body}\nreturn bad === 0; };`;
    return compileOnce(`quantize\0${source}\0${enumsKey(enums)}`, () => {
      const make = new Function('h', 'C', 'enums', source) as (h: typeof quantizeHelpers, c: Uint32Array, e: typeof enums) => Quantizer;
      return make(quantizeHelpers, QUAT_CODES, enums);
    });
  } catch {
    return generic;
  }
}
