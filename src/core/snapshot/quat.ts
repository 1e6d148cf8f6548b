// Quaternions inside the snapshot codec: the server turns a rotation into its
// smallest-three codes (the same arithmetic as bits.ts `writeQuat`, so the codes
// are exactly what the field would send), a client turns codes back into a
// quaternion through the field's own reader, which also rejects impossible codes.

import { BitReader, codes, encodeQuat } from '../bits.ts';
import type { Field, Quat } from '../field.ts';

/** Output of `quatCodes`: [index of the largest component, the other three as q + max]. The bit writer's own code buffer. */
export const QUAT_CODES = codes;

/** Smallest-three codes of (x, y, z, w) into QUAT_CODES; false for NaN / zero / infinite length. Exactly bits.ts writeQuat's arithmetic (it is the same function). */
export function quatCodes(x: number, y: number, z: number, w: number, bits: number): boolean {
  return encodeQuat(x, y, z, w, bits);
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
