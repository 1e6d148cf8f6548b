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

/**
 * Code computing the residual of every slot of `view` against b0 (z_j) and, `withB`,
 * against the linear prediction (zb_j, the same as z_j for unpredicted slots), noting
 * in `big` whether some predicted residual is large. The locals are declared by `source`.
 */
function residuals(view: readonly FieldSlot[], withB: boolean): string {
  const out: string[] = [];
  for (const s of view) {
    for (let k = 0; k < s.slots; k++) {
      const j = s.slot + k;
      out.push(`v${j} = cur[co + ${j}]; r${j} = b0[b0o + ${j}]; d = (v${j} - r${j}) | 0; z${j} = ((d << 1) ^ (d >> 31)) >>> 0;`);
      if (!withB) out.push(`zb${j} = z${j};`);
      // Equal ages (the steady state): round((b0 − b1) · dt0 / dt1) is exactly b0 − b1.
      else if (isLin(s, k)) out.push(`d = (v${j} - ((r${j} + (sameDt ? r${j} - b1[b1o + ${j}] : Math.round(((r${j} - b1[b1o + ${j}]) * dt0) / dt1))) | 0)) | 0; zb${j} = ((d << 1) ^ (d >> 31)) >>> 0; big |= zb${j} >= ${BIG} ? 1 : 0;`);
      else out.push(`zb${j} = z${j};`);
    }
  }
  return out.join('\n');
}

/** A predicted residual below this (zigzag) makes the prediction good enough without comparing. */
const BIG = 64;

/** Expression: whether field i of `view` changed, with residuals named by `z`. */
function changedExpr(s: FieldSlot, z: (j: number) => string): string {
  if (s.kind === K_STR) return `(cs[cso + ${s.slot}] === b0s[b0so + ${s.slot}] ? 0 : 1)`;
  return `((${Array.from({ length: s.slots }, (_, k) => z(s.slot + k)).join(' | ')}) === 0 ? 0 : 1)`;
}

/** Code: bits of the body with residuals named by `z`, into `bits`. */
function size(view: readonly FieldSlot[], z: (j: number) => string, bits: string): string {
  const out: string[] = [`${bits} = 0;`];
  for (const s of view) {
    if (s.kind === K_STR) continue;
    let payload = s.kind === K_ENUM ? `${s.bits}` : '0';
    if (s.kind !== K_BOOL && s.kind !== K_ENUM) {
      const single = s.slots === 1 ? 1 : 0;
      payload = Array.from({ length: s.slots }, (_, k) => codeBitsExpr(`(${z(s.slot + k)} - ${single})`)).join(' + ');
    }
    out.push(`${bits} += ${changedExpr(s, z)} === 0 ? 1 : 1 + ${payload};`);
  }
  return out.join('\n');
}

// Bits collect in the locals (acc, n) and reach the sink a word at a time.
const put = (value: string, bits: number | string): string =>
  `{ const pv = ${value}, pb = ${bits}; if (n + pb < 32) { acc |= pv << n; n += pb; } else { if (n > 0) sink.put(acc >>> 0, n); acc = pv; n = pb; } }`;
const drain = 'if (n > 0) { sink.put(acc >>> 0, n); acc = 0; n = 0; }';
const big = (v: string): string => `${drain} h.putCode(sink, ${v});`;

/** Code writing the body from the chosen residuals w_j. */
function emit(view: readonly FieldSlot[]): string {
  const w = (j: number): string => `w${j}`;
  const out: string[] = [];
  view.forEach((s, i) => {
    for (let k = 0; k < s.slots; k++) out.push(`w${s.slot + k} = useB ? zb${s.slot + k} : z${s.slot + k};`);
    out.push(`c${i} = ${changedExpr(s, w)}; any |= c${i};`);
  });
  out.push('let acc = 0, n = 0;', put('any', 1), 'if (any !== 0) {');
  view.forEach((s, i) => {
    out.push(put(`c${i}`, 1), `if (c${i} !== 0) {`);
    if (s.kind === K_ENUM) out.push(put(`v${s.slot}`, s.bits));
    else if (s.kind === K_STR) out.push(`${drain} sink.flush(); sink.w.writeString(cs[cso + ${s.slot}], ${s.maxLength});`);
    else if (s.kind !== K_BOOL) {
      if (s.slots === 1) out.push(putCodeStmt(`(w${s.slot} - 1)`, put, big));
      else for (let k = 0; k < s.slots; k++) out.push(putCodeStmt(`w${s.slot + k}`, put, big));
    }
    out.push('}');
  });
  out.push('}', drain);
  return out.join('\n');
}

function source(view: readonly FieldSlot[]): string {
  const slots = view.flatMap((s) => Array.from({ length: s.slots }, (_, k) => s.slot + k));
  const decl = (p: string): string => (slots.length === 0 ? '' : `let ${slots.map((j) => `${p}${j} = 0`).join(', ')};`);
  // Without b1: against b0. With b1: the prediction when its residuals are all small,
  // else whichever of the two is shorter (a function of the rows alone, so deterministic).
  return `'use strict'; return function body(sink, cur, co, cs, cso, base) {
const b0 = base.b0, b0o = base.b0o, b0s = base.b0s, b0so = base.b0so, b1 = base.b1, b1o = base.b1o, dt0 = base.dt0, dt1 = base.dt1;
${decl('v')} ${decl('r')} ${decl('z')} ${decl('zb')} ${decl('w')}
${view.length === 0 ? '' : `let ${view.map((_, i) => `c${i} = 0`).join(', ')};`}
let d = 0, big = 0, any = 0, useB = false, bitsA = 0, bitsB = 0;
const sameDt = dt0 === dt1;
if (b1 === null) {
${residuals(view, false)}
} else {
${residuals(view, true)}
useB = true;
if (big !== 0) {
${size(view, (j) => `z${j}`, 'bitsA')}
${size(view, (j) => `zb${j}`, 'bitsB')}
const anyA = ${view.length === 0 ? '0' : view.map((s) => changedExpr(s, (j) => `z${j}`)).join(' | ')};
const anyB = ${view.length === 0 ? '0' : view.map((s) => changedExpr(s, (j) => `zb${j}`)).join(' | ')};
useB = (anyB === 0 ? 0 : bitsB) < (anyA === 0 ? 0 : bitsA);
}
}
${emit(view)}
return useB;
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
