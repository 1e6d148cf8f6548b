// Fused record writers for the encoder's steady-state path (encode-core.ts `steady`):
// per ghost type and view, ONE generated function that quantizes the ghost's values
// into its current row (the quantizer of compiled.ts), compares the row with the newest
// sent one (for the unchanged-ghost skip), chooses the residuals against the acked
// baseline or its linear prediction and writes the whole record — header, then body —
// into the sink (the body writer of compiled-delta.ts). The pieces are the same
// generated code as the separate quantizer and body writer, so the bits are the same;
// fusing them saves the calls, the baseline object and reading the row back, and lets
// the header be written after the prediction choice (no guess and rewrite).
// Where code generation is not allowed, there is none and the steady path writes
// records with the separate quantizer and body writer.

import { compileOnce, enumsKey } from './codegen.ts';
import { CODE_LENGTH, CODE_VALUE } from './codes.ts';
import { bodyCode, bodyHelpers, COMBO_ARGS, COMBO_PARAMS, put, putCodeOf } from './compiled-delta.ts';
import { fieldCode, hoistedReads, quantizeHelpers } from './compiled.ts';
import type { FieldSlot, TypeLayout } from './layout.ts';
import type { BitSink } from './codes.ts';

/** Result bits of a SteadyWriter: the body used the linear prediction; the ghost was skipped (nothing written); its row equals the newest sent one. */
export const SW_B1 = 1, SW_SKIPPED = 2, SW_EQUAL = 4;

/**
 * Quantize `values` into row[co..] / strs[cso..] (ring slot cleared by the caller) and,
 * unless it equals the newest sent row (at `eo`, or -1 for none) while `skipIfEq`, write
 * the update record: id `gap`, baselines (age0, and age1 if the prediction is used: the
 * same as the previous header's p0, p1 or explicit), then the body against row b0o (and
 * b1o, -1 for none). Returns SW_* bits, or -1 for a value its field cannot send.
 * The string arguments come last, and a writer for a type without string fields takes
 * none (call it with the first 13 arguments): fewer arguments per ghost.
 */
export type SteadyWriter = (
  values: Record<string, unknown>,
  row: Int32Array,
  co: number,
  eo: number,
  skipIfEq: boolean,
  b0o: number,
  b1o: number,
  dt0: number,
  dt1: number,
  sink: BitSink,
  gap: number,
  p0: number,
  p1: number,
  strs?: string[],
  cso?: number,
  eso?: number,
  b0so?: number,
) => number;

const helpers = { ...quantizeHelpers, ...bodyHelpers };

function source(layout: TypeLayout, view: readonly FieldSlot[]): string {
  // The row's slots stay in locals v<slot> after quantizing (no read-back).
  // The game's objects are read first, all of them (see hoistedReads), then quantized field by field.
  const quantize = hoistedReads(layout, 'return -1;') + '\n' + layout.fields.map((_, i) => fieldCode(layout, i, 'return -1;', true, true)).join('\n');
  const locals = layout.slotCount === 0 ? '' : `let ${Array.from({ length: layout.slotCount }, (_, j) => `v${j} = 0`).join(', ')};`;
  const same = [
    ...Array.from({ length: layout.slotCount }, (_, j) => `v${j} === row[eo + ${j}]`),
    ...Array.from({ length: layout.stringCount }, (_, j) => `strs[cso + ${j}] === strs[eso + ${j}]`),
  ];
  // The header as EncodeCore.header writes it; age0 is the age of b0, a1 the age of b1 when the body uses it.
  const header = `const a1 = useB ? dt1 : 0;
{ const u = gap; ${putCodeOf('u')} }
if (dt0 === p0 && a1 === p1) ${put('2', 2)}
else { ${put('0', 2)} { const u = dt0; ${putCodeOf('u')} } if (dt0 !== 0) { const u = a1; ${putCodeOf('u')} } }`;
  const params = 'values, row, co, eo, skipIfEq, b0o, b1o, dt0, dt1, sink, gap, p0, p1';
  const signature = layout.stringCount > 0 ? `${params}, strs, cso, eso, b0so) {` : `${params}) {\nconst strs = null, cso = 0, eso = 0, b0so = 0;`;
  return `'use strict'; const QS = new Float64Array(4); return function steadyRecord(${signature}
${locals}
let bad = 0;
{ const o = co, so = cso;
${quantize}
}
if (bad !== 0) return -1;
const eq = eo >= 0${same.map((c) => ` && ${c}`).join('')} ? ${SW_EQUAL} : 0;
if (eq !== 0 && skipIfEq) return ${SW_EQUAL | SW_SKIPPED};
const cur = row, cs = strs, b0 = row, b0s = strs, b1 = b1o >= 0 ? row : null;
${bodyCode(view, header, true)}
return eq | (useB ? ${SW_B1} : 0);
};`;
}

/** Fused writers for a layout, [owner view, non-owner view]; undefined where code generation is not allowed. */
export function compileSteadyWriters(layout: TypeLayout): readonly [SteadyWriter, SteadyWriter] | undefined {
  const enums = layout.fields.map((s) => s.enumIndex);
  try {
    const make = (view: readonly FieldSlot[]): SteadyWriter => {
      const src = source(layout, view);
      return compileOnce(`steady\0${src}\0${enumsKey(enums)}`, () =>
        (new Function('h', 'CV', 'CL', 'enums', ...COMBO_PARAMS, src) as (h: typeof helpers, cv: Int32Array, cl: Uint8Array, e: typeof enums, ...combo: (Int32Array | Uint8Array)[]) => SteadyWriter)(helpers, CODE_VALUE, CODE_LENGTH, enums, ...COMBO_ARGS),
      );
    };
    return [make(layout.views[0]), make(layout.views[1])];
  } catch {
    return undefined;
  }
}
