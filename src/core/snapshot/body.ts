// The body of a ghost record (layout in format.ts), written by the server and read by the client: a row
// against one or two baseline rows; floats and quaternion codes predicted linearly from two baselines.
// `writeBody` is the reference body writer: generated writers (compiled.ts) must match it bit for bit.

import type { BitReader } from '../bits.ts';
import { WireError } from '../errors.ts';
import type { Quat } from '../field.ts';
import { codeBits, putCode, readCode, unzigzag, zigzag, type BitSink } from './codes.ts';
import type { BodyWriter } from './kernels.ts';
import { K_BOOL, K_ENUM, K_FQ, K_FR, K_QUAT, K_STR, K_UINT, orderedFinite, quatOfCodes, type FieldSlot, type TypeLayout } from './layout.ts';

/** Linear prediction of a slot from baselines b0 (dt0 ticks before the snapshot) and b1 (dt1 ticks before b0). */
export function predict(b0: number, b1: number, dt0: number, dt1: number): number {
  return (b0 + Math.round(((b0 - b1) * dt0) / dt1)) | 0;
}

/** Baseline rows for one body: b0 (or the type defaults) and optionally b1. */
export interface Baselines {
  b0: Int32Array;
  b0o: number;
  b0s: readonly string[];
  b0so: number;
  /** null: no linear prediction. */
  b1: Int32Array | null;
  b1o: number;
  dt0: number;
  dt1: number;
}

/** True for the slots that are predicted from two baselines: floats and the three codes of a quaternion. */
export function isPredicted(s: FieldSlot, k: number): boolean {
  return s.kind === K_FQ || s.kind === K_FR || (s.kind === K_QUAT && k > 0);
}

/** Predicted residuals (zigzag) all below this make the prediction good enough without comparing sizes. */
export const SMALL_RESIDUAL = 64;

/** Scratch of `writeBody`, a slot each: the zigzag residual against b0 (za) and against the prediction (zb). */
export interface BodyScratch {
  readonly za: Float64Array;
  readonly zb: Float64Array;
}

/** Bits of the body with residuals `z` (strings are not counted: both choices send them alike). */
function bodyBits(view: readonly FieldSlot[], z: Float64Array): number {
  let bits = 0;
  let any = 0;
  for (const s of view) {
    if (s.kind === K_STR) continue;
    let changed = 0;
    let payload = s.kind === K_ENUM ? s.bits : 0;
    for (let k = 0; k < s.slots; k++) {
      changed |= z[s.slot + k] === 0 ? 0 : 1;
      if (s.kind !== K_BOOL && s.kind !== K_ENUM) payload += codeBits(z[s.slot + k]! - (s.slots === 1 ? 1 : 0));
    }
    any |= changed;
    bits += changed === 0 ? 1 : 1 + payload;
  }
  return any === 0 ? 0 : bits;
}

/**
 * The reference body writer: the body of `cur` for the fields of `view` against `base`.
 * Against b0 alone, or, when `base.b1` is set, against the linear prediction if its
 * residuals are all small or it is shorter. Returns true when the prediction was used.
 */
export function writeBody(
  sink: BitSink, view: readonly FieldSlot[], cur: Int32Array, co: number, cs: readonly string[], cso: number, base: Baselines,
  z: BodyScratch,
): boolean {
  const { b0, b0o, b1, b1o, dt0, dt1 } = base;
  const { za, zb } = z;
  let big = 0;
  for (const s of view) {
    for (let k = 0; k < s.slots; k++) {
      const j = s.slot + k;
      const v = cur[co + j]!;
      za[j] = zigzag((v - b0[b0o + j]!) | 0);
      if (b1 === null || !isPredicted(s, k)) zb[j] = za[j]!;
      else {
        zb[j] = zigzag((v - predict(b0[b0o + j]!, b1[b1o + j]!, dt0, dt1)) | 0);
        big |= zb[j]! >= SMALL_RESIDUAL ? 1 : 0;
      }
    }
  }
  const useB = b1 !== null && (big === 0 || bodyBits(view, zb) < bodyBits(view, za));
  const r = useB ? zb : za;
  let any = 0;
  for (const s of view) any |= fieldChanged(s, r, cs, cso, base) ? 1 : 0;
  sink.put(any, 1);
  if (any === 0) return useB;
  for (const s of view) {
    const changed = fieldChanged(s, r, cs, cso, base);
    sink.put(changed ? 1 : 0, 1);
    if (!changed) continue;
    if (s.kind === K_ENUM) sink.put(cur[co + s.slot]!, s.bits);
    else if (s.kind === K_STR) {
      sink.flush();
      sink.w.writeString(cs[cso + s.slot]!, s.maxLength);
    } else if (s.kind !== K_BOOL) {
      if (s.slots === 1) putCode(sink, r[s.slot]! - 1);
      else for (let k = 0; k < s.slots; k++) putCode(sink, r[s.slot + k]!);
    }
  }
  return useB;
}

function fieldChanged(s: FieldSlot, r: Float64Array, cs: readonly string[], cso: number, base: Baselines): boolean {
  if (s.kind === K_STR) return cs[cso + s.slot] !== base.b0s[base.b0so + s.slot];
  for (let k = 0; k < s.slots; k++) if (r[s.slot + k] !== 0) return true;
  return false;
}

/**
 * `writeBody` for `view` as a BodyWriter (b1, when b1o >= 0, is in the current row's array). The baselines go
 * through a struct: as twelve arguments of writeBody the reference row encoded ~4% slower.
 */
export function referenceBody(view: readonly FieldSlot[], slotCount: number): BodyWriter {
  const scratch = { za: new Float64Array(slotCount), zb: new Float64Array(slotCount) };
  const base: Baselines = { b0: new Int32Array(0), b0o: 0, b0s: [], b0so: 0, b1: null, b1o: 0, dt0: 0, dt1: 1 };
  return (sink, row, co, b0, b0o, b1o, dt0, dt1, cs, cso, b0s, b0so) => {
    base.b0 = b0;
    base.b0o = b0o;
    base.b0s = b0s;
    base.b0so = b0so;
    base.b1 = b1o >= 0 ? row : null;
    base.b1o = b1o;
    base.dt0 = dt0;
    base.dt1 = dt1;
    return writeBody(sink, view, row, co, cs, cso, base, scratch);
  };
}

export function corrupt(what: string, pos: number): WireError {
  return new WireError('wire/bad-value', `react-netcode: snapshot ${what} at bit ${pos}; the snapshot is corrupt or the server state is out of sync — drop it (after a reconnect, reset() the decoder and give the server a new connection state).`);
}

const scratchQuat: Quat = { x: 0, y: 0, z: 0, w: 1 };

/**
 * Client side: read a body into out[oo..] / os[oso..] (a full row: baseline b0 copied, then changed fields
 * applied). The baselines are the rows of ring slots s0 and s1 of `rows` / `strs` (s0 −1: the type's defaults;
 * s1 −1: no prediction), dt0 and dt1 ticks old. Validates every value; throws WireError.
 */
export function readBody(
  r: BitReader, view: readonly FieldSlot[], l: TypeLayout, out: Int32Array, oo: number, os: string[], oso: number,
  rows: Int32Array, strs: readonly string[], s0: number, s1: number, dt0: number, dt1: number,
): void {
  const b0 = s0 < 0 ? l.defaultRow : rows, b0o = s0 < 0 ? 0 : s0 * l.slotCount, b1o = s1 * l.slotCount;
  const b0s = s0 < 0 ? l.defaultStrings : strs, b0so = s0 < 0 ? 0 : s0 * l.stringCount;
  for (let j = 0; j < l.slotCount; j++) out[oo + j] = b0[b0o + j]!;
  for (let j = 0; j < l.stringCount; j++) os[oso + j] = b0s[b0so + j]!;
  // Predicted slots start at the prediction, changed or not.
  if (s1 >= 0) {
    for (const s of view) {
      for (let k = 0, j = s.slot; k < s.slots; k++, j++) {
        if (isPredicted(s, k)) out[oo + j] = predict(b0[b0o + j]!, rows[b1o + j]!, dt0, dt1);
      }
    }
  }
  const changed = r.readBits(1) === 1;
  for (const s of view) {
    const pos = r.bitPosition;
    const o = oo + s.slot;
    if (!changed || r.readBits(1) === 0) {
      // What an unchanged predicted field keeps must be valid too.
      if (s1 >= 0 && (s.kind === K_FR || s.kind === K_QUAT)) checkSlots(s, out, o, pos);
      continue;
    }
    if (s.kind === K_BOOL) out[o] = out[o]! ^ 1;
    else if (s.kind === K_ENUM) {
      const v = r.readBits(s.bits);
      if (v >= s.max) throw corrupt(`enum index ${v} of "${s.key}" is out of range`, pos);
      out[o] = v;
    } else if (s.kind === K_STR) os[oso + s.slot] = r.readString(s.maxLength);
    else {
      for (let k = 0; k < s.slots; k++) {
        const code = readCode(r);
        if (s.slots === 1 && code === 0xffff_ffff) throw corrupt(`delta of "${s.key}" is out of range`, pos);
        out[o + k] = (out[o + k]! + unzigzag(s.slots === 1 ? code + 1 : code)) | 0;
      }
      checkSlots(s, out, o, pos);
    }
  }
}

function checkSlots(s: FieldSlot, row: Int32Array, o: number, pos: number): void {
  if (s.kind === K_UINT) {
    const v = row[o]!;
    if (v < 0 || v > s.max) throw corrupt(`value ${v} of "${s.key}" is out of range`, pos);
  } else if (s.kind === K_FR) {
    for (let k = 0; k < s.slots; k++) if (!orderedFinite(row[o + k]!)) throw corrupt(`float of "${s.key}" is not finite`, pos);
  } else if (s.kind === K_QUAT) {
    const idx = row[o]!;
    if (idx < 0 || idx > 3) throw corrupt(`quaternion index of "${s.key}" is out of range`, pos);
    for (let k = 1; k < 4; k++) {
      const c = row[o + k]!;
      if (c < 0 || c > s.max) throw corrupt(`quaternion code of "${s.key}" is out of range`, pos);
    }
    if (!quatOfCodes(s.bits, idx, row[o + 1]!, row[o + 2]!, row[o + 3]!, scratchQuat)) throw corrupt(`quaternion of "${s.key}" is longer than a unit quaternion`, pos);
  }
}
