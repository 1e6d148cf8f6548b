// Quaternions inside the snapshot codec: the server turns a rotation into its
// smallest-three codes (the same arithmetic as bits.ts `writeQuat`, so the codes
// are exactly what the field would send), a client turns codes back into a
// quaternion through the field's own reader, which also rejects impossible codes.

import { BitReader } from '../bits.ts';
import type { Field, Quat } from '../field.ts';

const qc = new Float64Array(4);
/** Output of `quatCodes`: [index of the largest component, the other three as q + max]. */
export const QUAT_CODES = new Uint32Array(4);

/** Smallest-three codes of (x, y, z, w) into QUAT_CODES; false for NaN / zero / infinite length. Mirrors bits.ts encodeQuat. */
export function quatCodes(x: number, y: number, z: number, w: number, bits: number): boolean {
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  if (!(len > 0 && len < Infinity)) return false;
  qc[0] = x / len;
  qc[1] = y / len;
  qc[2] = z / len;
  qc[3] = w / len;
  let idx = 0;
  for (let i = 1; i < 4; i++) if (Math.abs(qc[i]!) > Math.abs(qc[idx]!)) idx = i;
  const max = (1 << (bits - 1)) - 1;
  const scale = (qc[idx]! < 0 ? -max : max) / Math.SQRT1_2;
  QUAT_CODES[0] = idx;
  for (let i = 0, j = 1; i < 4; i++) {
    if (i === idx) continue;
    const q = Math.round(qc[i]! * scale);
    QUAT_CODES[j++] = (q > max ? max : q < -max ? -max : q) + max;
  }
  return true;
}

/** Largest valid component code for `bits`. */
export function quatTop(bits: number): number {
  return 2 * ((1 << (bits - 1)) - 1);
}

const bytes = new Uint8Array(16);
const reader = new BitReader();
let pos = 0;

function put(v: number, n: number): void {
  for (let k = 0; k < n; k++, pos++) if ((v >>> k) & 1) bytes[pos >>> 3] = bytes[pos >>> 3]! | (1 << (pos & 7));
}

/**
 * Decode codes into `out` with the field's own reader, so the result is exactly
 * what `field.quantize` gives. Throws WireError bad-value for codes no unit quaternion has.
 */
export function quatFromCodes(field: Field<Quat>, bits: number, idx: number, a: number, b: number, c: number, out: Quat): Quat {
  bytes.fill(0);
  pos = 0;
  put(idx, 2);
  put(a, bits);
  put(b, bits);
  put(c, bits);
  reader.reset(bytes);
  return field.readInto(reader, out);
}
