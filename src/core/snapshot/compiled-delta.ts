// Compiled body writers for the snapshot encoder: the same output as DeltaWriter
// (delta.ts), generated per ghost type and view as straight-line code — no per-field
// dispatch, residuals in locals — because it runs for every changed ghost every
// tick. Falls back to DeltaWriter where code generation is not allowed.

import { codeBits, codeBitsExpr, putCode, putCodeStmt, type BitSink } from './codes.ts';
import { DeltaWriter, type Baselines } from './delta.ts';
import { K_BOOL, K_ENUM, K_FQ, K_FR, K_QUAT, K_STR, type FieldSlot, type TypeLayout } from './layout.ts';

/** Write a body of `cur` against `base`; true when the linear prediction (b1) was used. */
export type BodyWriter = (sink: BitSink, cur: Int32Array, co: number, cs: readonly string[], cso: number, base: Baselines) => boolean;

const helpers = { codeBits, putCode };

const isLin = (s: FieldSlot, k: number): boolean => s.kind === K_FQ || s.kind === K_FR || (s.kind === K_QUAT && k > 0);

/** Code measuring (and keeping in locals) the residuals of `view` against b0 (variant a) and the prediction (variant b). */
function measure(view: readonly FieldSlot[], withB: boolean): string {
  const out: string[] = [];
  view.forEach((s, i) => {
    if (s.kind === K_STR) {
      out.push(`const ca${i} = cs[cso + ${s.slot}] === b0s[b0so + ${s.slot}] ? 0 : 1; anyA |= ca${i};`);
      if (withB) out.push(`const cb${i} = ca${i}; anyB |= cb${i};`);
      return;
    }
    const single = s.slots === 1 ? 1 : 0;
    out.push(`let ca${i} = 0, pa${i} = ${s.kind === K_ENUM ? s.bits : 0};`);
    if (withB) out.push(`let cb${i} = 0, pb${i} = pa${i};`);
    for (let k = 0; k < s.slots; k++) {
      const j = s.slot + k;
      out.push(`const v${j} = cur[co + ${j}], r${j} = b0[b0o + ${j}], d${j} = (v${j} - r${j}) | 0, za${j} = ((d${j} << 1) ^ (d${j} >> 31)) >>> 0; ca${i} |= za${j} === 0 ? 0 : 1;`);
      if (s.kind === K_BOOL || s.kind === K_ENUM) {
        if (withB) out.push(`cb${i} = ca${i};`);
        continue;
      }
      out.push(`pa${i} += ${codeBitsExpr(`(za${j} - ${single})`)};`);
      if (!withB) continue;
      if (isLin(s, k)) {
        out.push(`const e${j} = (v${j} - ((r${j} + Math.round(((r${j} - b1[b1o + ${j}]) * dt0) / dt1)) | 0)) | 0, zb${j} = ((e${j} << 1) ^ (e${j} >> 31)) >>> 0;`);
        out.push(`cb${i} |= zb${j} === 0 ? 0 : 1; pb${i} += ${codeBitsExpr(`(zb${j} - ${single})`)};`);
      } else out.push(`const zb${j} = za${j}; cb${i} |= ca${i}; pb${i} += ${codeBitsExpr(`(za${j} - ${single})`)};`);
    }
    out.push(`anyA |= ca${i}; bitsA += ca${i} === 0 ? 1 : 1 + pa${i};`);
    if (withB) out.push(`anyB |= cb${i}; bitsB += cb${i} === 0 ? 1 : 1 + pb${i};`);
  });
  return out.join('\n');
}

// Bits collect in the locals (acc, n) and reach the sink a word at a time.
const put = (value: string, bits: number | string): string =>
  `{ const pv = ${value}, pb = ${bits}; if (n + pb < 32) { acc |= pv << n; n += pb; } else { if (n > 0) sink.put(acc >>> 0, n); acc = pv; n = pb; } }`;
const drain = 'if (n > 0) { sink.put(acc >>> 0, n); acc = 0; n = 0; }';
const big = (v: string): string => `${drain} h.putCode(sink, ${v});`;

/** Code writing variant `v` ('a' or 'b'). */
function emit(view: readonly FieldSlot[], v: 'a' | 'b'): string {
  const any = v === 'a' ? 'anyA' : 'anyB';
  const out: string[] = [`let acc = 0, n = 0;`, put(any, 1), `if (${any} !== 0) {`];
  view.forEach((s, i) => {
    out.push(put(`c${v}${i}`, 1), `if (c${v}${i} !== 0) {`);
    if (s.kind === K_ENUM) out.push(put(`v${s.slot}`, s.bits));
    else if (s.kind === K_STR) out.push(`${drain} sink.flush(); sink.w.writeString(cs[cso + ${s.slot}], ${s.maxLength});`);
    else if (s.kind !== K_BOOL) {
      if (s.slots === 1) out.push(putCodeStmt(`(z${v}${s.slot} - 1)`, put, big));
      else for (let k = 0; k < s.slots; k++) out.push(putCodeStmt(`z${v}${s.slot + k}`, put, big));
    }
    out.push('}');
  });
  out.push('}', drain);
  return out.join('\n');
}

function source(view: readonly FieldSlot[]): string {
  return `'use strict'; return function body(sink, cur, co, cs, cso, base) {
const b0 = base.b0, b0o = base.b0o, b0s = base.b0s, b0so = base.b0so, b1 = base.b1, b1o = base.b1o, dt0 = base.dt0, dt1 = base.dt1;
let anyA = 0, bitsA = 0;
if (b1 === null) {
${measure(view, false)}
${emit(view, 'a')}
return false;
}
let anyB = 0, bitsB = 0;
${measure(view, true)}
if ((anyB === 0 ? 0 : bitsB) < (anyA === 0 ? 0 : bitsA)) {
${emit(view, 'b')}
return true;
}
${emit(view, 'a')}
return false;
};`;
}

/** Body writers for a layout: [owner view, non-owner view]. */
export function compileBodyWriters(layout: TypeLayout): [BodyWriter, BodyWriter] {
  const make = (view: readonly FieldSlot[]): BodyWriter => {
    try {
      return (new Function('h', source(view)) as (h: typeof helpers) => BodyWriter)(helpers);
    } catch {
      const dw = new DeltaWriter();
      return (sink, cur, co, cs, cso, base) => dw.write(sink, view, cur, co, cs, cso, base, layout.slotCount);
    }
  };
  return [make(layout.views[0]), make(layout.views[1])];
}
