// The per-ghost delta: a row (quantized state) against one or two baseline rows.
// Floats and quaternion components are predicted linearly from two baselines
// (b0 + (b0 − b1)·dt0/dt1, in exact int32 arithmetic both sides share); everything
// else against b0. Layout of a body: bit changed; then per field of the view:
// bit fieldChanged, then the field's payload (see format.ts).

import type { BitReader } from '../bits.ts';
import { WireError } from '../errors.ts';
import type { Field, Quat } from '../field.ts';
import { codeBits, putCode, readCode, unzigzag, zigzag, type BitSink } from './codes.ts';
import { K_BOOL, K_ENUM, K_FQ, K_FR, K_QUAT, K_STR, K_UINT, orderedFinite, type FieldSlot } from './layout.ts';
import { quatFromCodes } from './quat.ts';

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

export function emptyBaselines(): Baselines {
  return { b0: new Int32Array(0), b0o: 0, b0s: [], b0so: 0, b1: null, b1o: 0, dt0: 0, dt1: 1 };
}

/** Server side: writes bodies. One instance, scratch reused. */
export class DeltaWriter {
  /** Per slot: zigzag residual against b0, and against the linear prediction. */
  private za = new Float64Array(16);
  private zb = new Float64Array(16);
  /** Per view field: changed against b0 / against the prediction. */
  private ca = new Uint8Array(16);
  private cb = new Uint8Array(16);

  /**
   * Write the body of `cur` for the fields of `view` against `base`: against b0 alone,
   * or, when `base.b1` is set, against the linear prediction if its residuals are all
   * small or it is shorter. The portable twin of compiled-delta.ts (same output).
   * Returns true when the prediction was used (the record must then name b1).
   */
  write(sink: BitSink, view: readonly FieldSlot[], cur: Int32Array, co: number, cs: readonly string[], cso: number, base: Baselines, slotCount: number): boolean {
    if (this.za.length < slotCount) {
      this.za = new Float64Array(slotCount * 2);
      this.zb = new Float64Array(slotCount * 2);
    }
    if (this.ca.length < view.length) {
      this.ca = new Uint8Array(view.length * 2);
      this.cb = new Uint8Array(view.length * 2);
    }
    const { b0, b0o, b1, b1o, dt0, dt1 } = base;
    const za = this.za;
    const zb = this.zb;
    const ca = this.ca;
    const cb = this.cb;
    let anyA = 0;
    let anyB = 0;
    let bitsA = 0;
    let bitsB = 0;
    let big = 0;
    for (let i = 0; i < view.length; i++) {
      const s = view[i]!;
      const kind = s.kind;
      if (kind === K_STR) {
        const c = cs[cso + s.slot] === base.b0s[base.b0so + s.slot] ? 0 : 1;
        ca[i] = cb[i] = c;
        anyA |= c;
        anyB |= c;
        continue;
      }
      let cA = 0;
      let cB = 0;
      let pA = kind === K_ENUM ? s.bits : 0;
      let pB = pA;
      const single = s.slots === 1 ? 1 : 0;
      for (let k = 0; k < s.slots; k++) {
        const j = s.slot + k;
        const v = cur[co + j]!;
        const z = zigzag((v - b0[b0o + j]!) | 0);
        za[j] = z;
        cA |= z === 0 ? 0 : 1;
        if (kind === K_BOOL || kind === K_ENUM) {
          zb[j] = z;
          cB = cA;
          continue;
        }
        const bA = codeBits(z - single);
        pA += bA;
        if (b1 !== null && (kind === K_FQ || kind === K_FR || (kind === K_QUAT && k > 0))) {
          const y = zigzag((v - predict(b0[b0o + j]!, b1[b1o + j]!, dt0, dt1)) | 0);
          zb[j] = y;
          big |= y >= 64 ? 1 : 0;
          cB |= y === 0 ? 0 : 1;
          pB += codeBits(y - single);
        } else {
          zb[j] = z;
          cB |= z === 0 ? 0 : 1;
          pB += bA;
        }
      }
      ca[i] = cA;
      cb[i] = cB;
      anyA |= cA;
      anyB |= cB;
      bitsA += cA === 0 ? 1 : 1 + pA;
      bitsB += cB === 0 ? 1 : 1 + pB;
    }
    // The prediction when all its residuals are small (zigzag < 64), else the shorter (as compiled-delta.ts).
    const useB = b1 !== null && (big === 0 || (anyB === 0 ? 0 : bitsB) < (anyA === 0 ? 0 : bitsA));
    const z = useB ? zb : za;
    const ch = useB ? cb : ca;
    const any = useB ? anyB : anyA;
    sink.put(any, 1);
    if (any === 0) return useB;
    for (let i = 0; i < view.length; i++) {
      const s = view[i]!;
      sink.put(ch[i]!, 1);
      if (ch[i] === 0) continue;
      switch (s.kind) {
        case K_BOOL:
          break;
        case K_ENUM:
          sink.put(cur[co + s.slot]!, s.bits);
          break;
        case K_STR:
          sink.flush();
          sink.w.writeString(cs[cso + s.slot]!, s.maxLength);
          break;
        default:
          if (s.slots === 1) putCode(sink, z[s.slot]! - 1);
          else for (let k = 0; k < s.slots; k++) putCode(sink, z[s.slot + k]!);
      }
    }
    return useB;
  }
}

function corrupt(what: string, pos: number): WireError {
  return new WireError('wire/bad-value', `react-netcode: snapshot ${what} at bit ${pos}; the snapshot is corrupt or from another protocol — drop it.`);
}

const scratchQuat: Quat = { x: 0, y: 0, z: 0, w: 1 };

/**
 * Client side: read a body into out[oo..] / os[oso..] (a full row: baseline b0
 * copied, then changed fields applied). Validates every value; throws WireError.
 */
export function readBody(r: BitReader, view: readonly FieldSlot[], slotCount: number, stringCount: number, out: Int32Array, oo: number, os: string[], oso: number, base: Baselines): void {
  const { b0, b0o, b1, b1o, dt0, dt1 } = base;
  for (let j = 0; j < slotCount; j++) out[oo + j] = b0[b0o + j]!;
  for (let j = 0; j < stringCount; j++) os[oso + j] = base.b0s[base.b0so + j]!;
  if (b1 !== null) {
    // Predicted slots start at the prediction, changed or not; check what an unchanged field would keep.
    for (let i = 0; i < view.length; i++) {
      const s = view[i]!;
      if (s.kind !== K_FQ && s.kind !== K_FR && s.kind !== K_QUAT) continue;
      for (let k = s.kind === K_QUAT ? 1 : 0; k < s.slots; k++) {
        const j = s.slot + k;
        out[oo + j] = predict(b0[b0o + j]!, b1[b1o + j]!, dt0, dt1);
      }
    }
  }
  const changed = r.readBits(1) === 1;
  for (let i = 0; i < view.length; i++) {
    const s = view[i]!;
    const pos = r.bitPosition;
    const o = oo + s.slot;
    if (!changed || r.readBits(1) === 0) {
      if (b1 !== null && (s.kind === K_FR || s.kind === K_QUAT)) checkSlots(s, out, o, pos);
      continue;
    }
    switch (s.kind) {
      case K_BOOL:
        out[o] = out[o]! ^ 1;
        break;
      case K_ENUM: {
        const v = r.readBits(s.bits);
        if (v >= s.max) throw corrupt(`enum index ${v} of "${s.key}" is out of range`, pos);
        out[o] = v;
        break;
      }
      case K_STR:
        os[oso + s.slot] = r.readString(s.maxLength);
        break;
      default: {
        for (let k = 0; k < s.slots; k++) {
          const code = readCode(r);
          if (s.slots === 1 && code === 0xffff_ffff) throw corrupt(`delta of "${s.key}" is out of range`, pos);
          out[o + k] = (out[o + k]! + unzigzag(s.slots === 1 ? code + 1 : code)) | 0;
        }
        checkSlots(s, out, o, pos);
      }
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
    quatFromCodes(s.field as Field<Quat>, s.bits, idx, row[o + 1]!, row[o + 2]!, row[o + 3]!, scratchQuat);
  }
}
