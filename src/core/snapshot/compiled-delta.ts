// Compiled body writers for the snapshot encoder: the same output as DeltaWriter
// (delta.ts), generated per ghost type and view as straight-line code — no per-field
// dispatch, residuals in locals — because it runs for every changed ghost every
// tick. Falls back to DeltaWriter where code generation is not allowed.

import { compileOnce } from './codegen.ts';
import { CODE_LENGTH, CODE_TABLE_SIZE, CODE_VALUE, COMBO_LENGTH, COMBO_VALUE, codeBits, putCode, type BitSink } from './codes.ts';
import { DeltaWriter, type Baselines } from './delta.ts';
import { K_BOOL, K_ENUM, K_FQ, K_FR, K_QUAT, K_STR, type FieldSlot, type TypeLayout } from './layout.ts';

/** Write a body of `cur` against `base`; true when the linear prediction (b1) was used. */
export type BodyWriter = (sink: BitSink, cur: Int32Array, co: number, cs: readonly string[], cso: number, base: Baselines) => boolean;

export const bodyHelpers = { codeBits, putCode };

/** Parameter names of the combined-code tables in generated writers (MV<m>, ML<m>: COMBO_VALUE/LENGTH[m]), and their values. */
export const COMBO_PARAMS = ['MV2', 'ML2', 'MV3', 'ML3', 'MV4', 'ML4'];
export const COMBO_ARGS = [COMBO_VALUE[2]!, COMBO_LENGTH[2]!, COMBO_VALUE[3]!, COMBO_LENGTH[3]!, COMBO_VALUE[4]!, COMBO_LENGTH[4]!];

const isLin = (s: FieldSlot, k: number): boolean => s.kind === K_FQ || s.kind === K_FR || (s.kind === K_QUAT && k > 0);

const zz = (j: string | number, to: string): string => `${to}${j} = ((d << 1) ^ (d >> 31)) >>> 0;`;

/**
 * Code computing the residual zb_j of every slot of `view` that gets written: against
 * b0, or, `withB`, against the linear prediction for predicted slots (noting in `big`
 * whether one is large). The locals are declared by `source`.
 */
function residuals(view: readonly FieldSlot[], withB: boolean, rowInLocals: boolean): string {
  const out: string[] = [];
  for (const s of view) {
    for (let k = 0; k < s.slots; k++) {
      const j = s.slot + k;
      out.push(rowInLocals ? `r${j} = b0[b0o + ${j}];` : `v${j} = cur[co + ${j}]; r${j} = b0[b0o + ${j}];`);
      // Equal ages (the steady state): round((b0 − b1) · dt0 / dt1) is exactly b0 − b1.
      if (withB && isLin(s, k)) out.push(`d = (v${j} - ((r${j} + (sameDt ? r${j} - b1[b1o + ${j}] : Math.round(((r${j} - b1[b1o + ${j}]) * dt0) / dt1))) | 0)) | 0; ${zz(j, 'zb')} big |= (zb${j} >= ${BIG}) | 0;`);
      else out.push(`d = (v${j} - r${j}) | 0; ${zz(j, 'zb')}`);
    }
  }
  return out.join('\n');
}

/** Code: the residuals z_j against b0 alone, for the comparison with the prediction (zb_j) when that has a large one. */
function plainResiduals(view: readonly FieldSlot[]): string {
  const out: string[] = [];
  for (const s of view) for (let k = 0; k < s.slots; k++) out.push(isLin(s, k) ? `d = (v${s.slot + k} - r${s.slot + k}) | 0; ${zz(s.slot + k, 'z')}` : `z${s.slot + k} = zb${s.slot + k};`);
  return out.join('\n');
}

/** Code: the chosen residuals are b0's after all (zb_j = z_j). */
function choosePlain(view: readonly FieldSlot[]): string {
  const out: string[] = [];
  for (const s of view) for (let k = 0; k < s.slots; k++) if (isLin(s, k)) out.push(`zb${s.slot + k} = z${s.slot + k};`);
  return out.join(' ');
}

/** A predicted residual below this (zigzag) makes the prediction good enough without comparing. */
const BIG = 64;

/** Expression: whether field i of `view` changed, with residuals named by `z`. */
function changedExpr(s: FieldSlot, z: (j: number) => string): string {
  // 0/1 from comparisons (`(a !== b) | 0`), not `? 0 : 1`: V8 emits a compare-and-set for the
  // first and a branch for the second, and even a well-predicted branch per field shows.
  if (s.kind === K_STR) return `((cs[cso + ${s.slot}] !== b0s[b0so + ${s.slot}]) | 0)`;
  return `(((${Array.from({ length: s.slots }, (_, k) => z(s.slot + k)).join(' | ')}) !== 0) | 0)`;
}

/** Code: bits of the body with residuals named by `z`, into `bits`. */
function size(view: readonly FieldSlot[], z: (j: number) => string, bits: string): string {
  const out: string[] = [`${bits} = 0;`];
  for (const s of view) {
    if (s.kind === K_STR) continue;
    let payload = s.kind === K_ENUM ? `${s.bits}` : '0';
    if (s.kind !== K_BOOL && s.kind !== K_ENUM) {
      const single = s.slots === 1 ? 1 : 0;
      payload = Array.from({ length: s.slots }, (_, k) => {
        const v = `(${z(s.slot + k)} - ${single})`;
        return `(${v} < ${CODE_TABLE_SIZE} ? CL[${v}] : h.codeBits(${v}))`;
      }).join(' + ');
    }
    out.push(`${bits} += ${changedExpr(s, z)} === 0 ? 1 : 1 + ${payload};`);
  }
  return out.join('\n');
}

// Bits collect in the locals (acc, n < 32) and reach the sink a whole word at a time.
// Codes of small values come from tables: no branch on the value (residuals of moving
// ghosts are small but random, so per-bucket branches mispredict).
export const put = (value: string, bits: number | string): string =>
  `{ const pv = ${value}, pb = ${bits}; acc |= pv << n; n += pb; if (n >= 32) { sink.put(acc >>> 0, 32); n -= 32; acc = pv >>> (pb - n); } }`;
const drain = 'if (n > 0) { sink.put(acc >>> 0, n); acc = 0; n = 0; }';
export const putCodeOf = (v: string): string =>
  `if (${v} < ${CODE_TABLE_SIZE}) ${put(`CV[${v}]`, `CL[${v}]`)} else { ${drain} h.putCode(sink, ${v}); }`;

/** Code writing the body from the chosen residuals zb_j; `pre` goes just before its first bit (the accumulator declared). */
function emit(view: readonly FieldSlot[], pre: string): string {
  const w = (j: number): string => `zb${j}`;
  const out: string[] = [];
  view.forEach((s, i) => out.push(`c${i} = ${changedExpr(s, w)}; any |= c${i};`));
  out.push('let acc = 0, n = 0;', pre, put('any', 1), 'if (any !== 0) {');
  view.forEach((s, i) => {
    const combo = s.kind !== K_BOOL && s.kind !== K_ENUM && s.kind !== K_STR && s.slots >= 2 && s.slots <= 4;
    if (combo) {
      // All residuals below 8 (the common case for moving ghosts): the changed bit and every code in one put.
      const z = Array.from({ length: s.slots }, (_, k) => `zb${s.slot + k}`);
      const x = z.map((v, k) => (k === 0 ? v : `(${v} << ${3 * k})`)).join(' | ');
      out.push(`if (((${z.join(' | ')}) >>> 0) < 8) { const x = ${x}; ${put(`MV${s.slots}[x]`, `ML${s.slots}[x]`)} } else {`);
    }
    out.push(put(`c${i}`, 1), `if (c${i} !== 0) {`);
    if (s.kind === K_ENUM) out.push(put(`v${s.slot}`, s.bits));
    else if (s.kind === K_STR) out.push(`${drain} sink.flush(); sink.w.writeString(cs[cso + ${s.slot}], ${s.maxLength});`);
    else if (s.kind !== K_BOOL) {
      if (s.slots === 1) out.push(`{ const u = zb${s.slot} - 1; ${putCodeOf('u')} }`);
      else for (let k = 0; k < s.slots; k++) out.push(putCodeOf(`zb${s.slot + k}`));
    }
    out.push('}');
    if (combo) out.push('}');
  });
  out.push('}', drain);
  return out.join('\n');
}

/**
 * Code choosing the residuals (useB: against the prediction) and writing the body, with
 * the locals b0, b0o, b0s, b0so, b1, b1o, dt0, dt1, cur, co, cs, cso and sink in scope.
 * `pre` runs once useB is known, just before the first bit, with the bit accumulator
 * (acc, n) declared: the steady path writes the record header there (compiled-steady.ts).
 * `rowInLocals`: the current row's slots are already in the locals v<slot> (declared by the caller).
 */
export function bodyCode(view: readonly FieldSlot[], pre = '', rowInLocals = false): string {
  const slots = view.flatMap((s) => Array.from({ length: s.slots }, (_, k) => s.slot + k));
  const decl = (p: string): string => (slots.length === 0 ? '' : `let ${slots.map((j) => `${p}${j} = 0`).join(', ')};`);
  // Without b1: against b0. With b1: the prediction when its residuals are all small,
  // else whichever of the two is shorter (a function of the rows alone, so deterministic).
  return `${rowInLocals ? '' : decl('v')} ${decl('r')} ${decl('z')} ${decl('zb')}
${view.length === 0 ? '' : `let ${view.map((_, i) => `c${i} = 0`).join(', ')};`}
let d = 0, big = 0, any = 0, useB = false, bitsA = 0, bitsB = 0;
const sameDt = dt0 === dt1;
if (b1 === null) {
${residuals(view, false, rowInLocals)}
} else {
${residuals(view, true, rowInLocals)}
useB = true;
if (big !== 0) {
${plainResiduals(view)}
${size(view, (j) => `z${j}`, 'bitsA')}
${size(view, (j) => `zb${j}`, 'bitsB')}
const anyA = ${view.length === 0 ? '0' : view.map((s) => changedExpr(s, (j) => `z${j}`)).join(' | ')};
const anyB = ${view.length === 0 ? '0' : view.map((s) => changedExpr(s, (j) => `zb${j}`)).join(' | ')};
useB = (anyB === 0 ? 0 : bitsB) < (anyA === 0 ? 0 : bitsA);
if (!useB) { ${choosePlain(view)} }
}
}
${emit(view, pre)}`;
}

function source(view: readonly FieldSlot[]): string {
  return `'use strict'; return function body(sink, cur, co, cs, cso, base) {
const b0 = base.b0, b0o = base.b0o, b0s = base.b0s, b0so = base.b0so, b1 = base.b1, b1o = base.b1o, dt0 = base.dt0, dt1 = base.dt1;
${bodyCode(view)}
return useB;
};`;
}

/** Body writers for a layout: [owner view, non-owner view]. */
export function compileBodyWriters(layout: TypeLayout): [BodyWriter, BodyWriter] {
  const make = (view: readonly FieldSlot[]): BodyWriter => {
    try {
      const src = source(view);
      return compileOnce(`body\0${src}`, () =>
        (new Function('h', 'CV', 'CL', ...COMBO_PARAMS, src) as (h: typeof bodyHelpers, cv: Int32Array, cl: Uint8Array, ...combo: (Int32Array | Uint8Array)[]) => BodyWriter)(bodyHelpers, CODE_VALUE, CODE_LENGTH, ...COMBO_ARGS),
      );
    } catch {
      const dw = new DeltaWriter();
      return (sink, cur, co, cs, cso, base) => dw.write(sink, view, cur, co, cs, cso, base, layout.slotCount);
    }
  };
  return [make(layout.views[0]), make(layout.views[1])];
}
