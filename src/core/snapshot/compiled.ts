// The generated kernel (kernels.ts): per ghost type a quantizer with literal property names (a variable key
// goes megamorphic in V8) and per view a straight-line body writer, each giving the reference's bits. Compiled
// once per distinct source and shared by every encoder, so call sites stay monomorphic across rooms.

import { encodeQuatInto, utf8Length } from '../bits.ts';
import { compileOnce } from '../codegen.ts';
import { isPredicted, SMALL_RESIDUAL } from './body.ts';
import { CODE_LENGTH, CODE_TABLE_SIZE, CODE_VALUE, codeBits, putCode } from './codes.ts';
import type { BodyWriter, Quantizer, TypeKernel } from './kernels.ts';
import { K_BOOL, K_ENUM, K_FQ, K_FR, K_QUAT, K_STR, K_UINT, orderedBits, orderedFinite, type FieldSlot, type TypeLayout } from './layout.ts';

const helpers = { orderedBits, orderedFinite, encodeQuatInto, utf8Length, codeBits, putCode };

/**
 * Code equal to `Math.round(p) + 0` for every p, without a branch: floor(p) plus the
 * comparison "fraction >= ½" as a 0/1 value (V8 compiles Math.round to a branch on the
 * fraction, which mispredicts on moving values). Declares `into`: emit inside a block.
 */
function round(into: string, p: string): string {
  return `const p_ = ${p}; const f_ = Math.floor(p_); const ${into} = f_ + ((p_ - f_ >= 0.5) | 0);`;
}

/** Code quantizing field i into row[o..] / strs[so..] (quantizeRow's arithmetic); `return false` on a value it cannot send. */
function fieldCode(layout: TypeLayout, i: number): string {
  const s = layout.fields[i]!;
  const get = `values[${JSON.stringify(s.key)}]`;
  const at = (k: number): string => `row[o + ${s.slot + k}]`;
  const fail = 'return false;';
  switch (s.kind) {
    case K_BOOL:
      return `{ const b = ${get}; if (b === true) ${at(0)} = 1; else if (b === false) ${at(0)} = 0; else ${fail} }`;
    case K_ENUM:
      return `{ const e = ${get}; const x = typeof e === 'string' ? enums[${i}].get(e) : undefined; if (x === undefined) ${fail} ${at(0)} = x; }`;
    case K_STR:
      return `{ const t = ${get}; if (typeof t !== 'string' || t.length > ${s.maxLength} || h.utf8Length(t) < 0) ${fail} strs[so + ${s.slot}] = t; }`;
    case K_QUAT:
      return `{ const q = ${get}; if (typeof q !== 'object' || q === null || !h.encodeQuatInto(q.x, q.y, q.z, q.w, ${s.bits}, row, o + ${s.slot})) ${fail} }`;
    case K_FQ:
    case K_FR: {
      // Quantized: |r| <= 2^31 − 1 (NaN and ±Infinity fail too), tested on the int32 it is stored as, without a branch.
      const conv = (x: string, k: number): string =>
        s.kind === K_FQ
          ? `{ ${round('r', `${x} * ${s.factor}`)} const t = r | 0; bad |= (t !== r) | (t === -2147483648); ${at(k)} = t; }`
          : `{ const r = h.orderedBits(${x}); if (!h.orderedFinite(r)) ${fail} ${at(k)} = r; }`;
      if (s.axes.length === 0) return `{ const x = ${get}; if (typeof x !== 'number') ${fail} ${conv('x', 0)} }`;
      return `{ const v = ${get}; if (typeof v !== 'object' || v === null) ${fail}
        ${s.axes.map((a) => `const ${a} = v.${a};`).join(' ')} if (${s.axes.map((a) => `(typeof ${a} !== 'number')`).join(' | ')}) ${fail}
        ${s.axes.map((a, k) => conv(a, k)).join(' ')} }`;
    }
  }
  const min = s.signed ? -0x8000_0000 : 0;
  const max = s.kind === K_UINT ? s.max : s.signed ? 0x7fff_ffff : 0xffff_ffff;
  return `{ const n = ${get}; if (typeof n !== 'number' || !Number.isInteger(n) || n < ${min} || n > ${max}) ${fail} ${at(0)} = n | 0; }`;
}

function compileQuantizer(layout: TypeLayout): Quantizer {
  const body = layout.fields.map((_, i) => fieldCode(layout, i)).join('\n');
  const source = `'use strict'; return function quantize(values, row, o, strs, so) {\nlet bad = 0;\n${body}\nreturn bad === 0; };`;
  const enums = layout.fields.map((s) => s.enumIndex);
  const key = `quantize\0${source}\0${JSON.stringify(enums.map((m) => (m === undefined ? null : [...m.keys()])))}`;
  return compileOnce(key, ['h', 'enums'], source, [helpers, enums]);
}

const slotsOf = (s: FieldSlot): number[] => Array.from({ length: s.slots }, (_, k) => s.slot + k);
const zz = (to: string, j: number, d: string): string => `{ const d = (${d}) | 0; ${to}${j} = ((d << 1) ^ (d >> 31)) >>> 0; }`;
/** Expression: 1 when field s changed with residuals named `z` (a 0/1 from a comparison, not a branch). */
const changedExpr = (s: FieldSlot, z: string): string =>
  s.kind === K_STR ? `((cs[cso + ${s.slot}] !== b0s[b0so + ${s.slot}]) | 0)` : `(((${slotsOf(s).map((j) => `${z}${j}`).join(' | ')}) !== 0) | 0)`;

/** Code: bits of the body with residuals named `z`, into `bits` (as body.ts bodyBits). */
function sizeCode(view: readonly FieldSlot[], z: string, bits: string): string {
  const out = [`let ${bits} = 0;`];
  for (const s of view) {
    if (s.kind === K_STR) continue;
    const single = s.slots === 1 ? 1 : 0;
    const codes = slotsOf(s).map((j) => `((${z}${j} - ${single}) < ${CODE_TABLE_SIZE} ? CL[${z}${j} - ${single}] : h.codeBits(${z}${j} - ${single}))`);
    const payload = s.kind === K_ENUM ? `${s.bits}` : s.kind === K_BOOL ? '0' : codes.join(' + ');
    out.push(`${bits} += ${changedExpr(s, z)} === 0 ? 1 : 1 + ${payload};`);
  }
  const any = view.length === 0 ? '0' : view.map((s) => changedExpr(s, z)).join(' | ');
  return `${out.join('\n')}\nif ((${any}) === 0) ${bits} = 0;`;
}

// Bits collect in the locals (acc, n < 32) and reach the sink a whole word at a time; codes of small values come from tables.
const put = (value: string, bits: number | string): string =>
  `{ const pv = ${value}, pb = ${bits}; acc |= pv << n; n += pb; if (n >= 32) { sink.put(acc >>> 0, 32); n -= 32; acc = pv >>> (pb - n); } }`;
const drain = 'if (n > 0) { sink.put(acc >>> 0, n); acc = 0; n = 0; }';
const putCodeOf = (v: string): string => `if (${v} < ${CODE_TABLE_SIZE}) ${put(`CV[${v}]`, `CL[${v}]`)} else { ${drain} h.putCode(sink, ${v}); }`;

/** Code writing the body from the chosen residuals zb<j>. */
function emitCode(view: readonly FieldSlot[]): string {
  const out = [`const any = ${view.length === 0 ? '0' : view.map((s) => changedExpr(s, 'zb')).join(' | ')};`, 'let acc = 0, n = 0;', put('any', 1), 'if (any !== 0) {'];
  for (const s of view) {
    const z = slotsOf(s).map((j) => `zb${j}`);
    out.push(`{ const c = ${changedExpr(s, 'zb')}; ${put('c', 1)} if (c !== 0) {`);
    if (s.kind === K_ENUM) out.push(put(`row[co + ${s.slot}]`, s.bits));
    else if (s.kind === K_STR) out.push(`${drain} sink.flush(); sink.w.writeString(cs[cso + ${s.slot}], ${s.maxLength});`);
    else if (s.kind !== K_BOOL) out.push(s.slots === 1 ? `{ const u = zb${s.slot} - 1; ${putCodeOf('u')} }` : z.map(putCodeOf).join('\n'));
    out.push('} }');
  }
  out.push('}', drain);
  return out.join('\n');
}

/** Source of the body writer of `view` (writeBody's choice and bits). */
function bodySource(view: readonly FieldSlot[]): string {
  const slots = view.flatMap(slotsOf);
  const decl = (p: string): string => (slots.length === 0 ? '' : `let ${slots.map((j) => `${p}${j} = 0`).join(', ')};`);
  const each = (code: (s: FieldSlot, j: number, k: number) => string): string => view.flatMap((s) => slotsOf(s).map((j, k) => code(s, j, k))).join('\n');
  // The prediction b0 + round((b0 − b1) · dt0 / dt1): when dt0 is a multiple m of dt1 (and small), (b0 − b1) · m is exact and the same.
  const predicted = (j: number): string =>
    `{ const r = b0[b0o + ${j}], q = row[b1o + ${j}], p = (r + (m !== 0 ? (r - q) * m : Math.round(((r - q) * dt0) / dt1))) | 0;
      ${zz('zb', j, `row[co + ${j}] - p`)} big |= (zb${j} >= ${SMALL_RESIDUAL}) | 0; }`;
  const plain = (j: number, to: string): string => zz(to, j, `row[co + ${j}] - b0[b0o + ${j}]`);
  return `'use strict'; return function body(sink, row, co, b0, b0o, b1o, dt0, dt1, cs, cso, b0s, b0so) {
${decl('zb')}
let useB = false;
if (b1o < 0) { ${each((_, j) => plain(j, 'zb'))} } else {
const m = dt0 <= 1048576 && dt0 % dt1 === 0 ? dt0 / dt1 : 0;
let big = 0;
${each((s, j, k) => (isPredicted(s, k) ? predicted(j) : plain(j, 'zb')))}
useB = true;
if (big !== 0) {
${decl('za')} ${each((s, j, k) => (isPredicted(s, k) ? plain(j, 'za') : `za${j} = zb${j};`))}
${sizeCode(view, 'za', 'bitsA')} ${sizeCode(view, 'zb', 'bitsB')}
useB = bitsB < bitsA;
if (!useB) { ${slots.map((j) => `zb${j} = za${j};`).join(' ')} }
}
}
${emitCode(view)}
return useB; };`;
}

function compileBody(view: readonly FieldSlot[]): BodyWriter {
  const source = bodySource(view);
  return compileOnce(`body\0${source}`, ['h', 'CV', 'CL'], source, [helpers, CODE_VALUE, CODE_LENGTH]);
}

/** The generated kernel of `layout` (throws where code generation is not allowed). */
export function compileKernel(layout: TypeLayout): TypeKernel {
  return { generated: true, quantize: compileQuantizer(layout), body: [compileBody(layout.views[0]), compileBody(layout.views[1])] };
}
