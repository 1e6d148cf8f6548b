// Bit-level stream under every message and field codec: LSB-first within each
// byte, little-endian across bytes. The writer grows and is reused; the reader
// respects its view's byteOffset and always throws WireError past the end.

import { NetcodeError, WireError } from './errors.ts';
import { DEFAULT_WRITER_CAPACITY, MAX_QUAT_BITS, MIN_QUAT_BITS, QUAT_SUM_EPSILON } from './wire.ts';

/** A quaternion-shaped object; `readQuat` can decode into one. */
export interface QuatLike {
  x: number;
  y: number;
  z: number;
  w: number;
}

export const UINT32_MAX = 0xffff_ffff;
const INT32_MAX = 0x7fff_ffff;
export const f32 = new Float32Array(1);
export const f32Bits = new Uint32Array(f32.buffer);
export const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
export const EMPTY = new Uint8Array(0);
/** Scratch bytes for string decoding (grown by the reader). */
export const scratchBox = { bytes: new Uint8Array(256) };

export function checkWidth(bits: number, max: number): void {
  if ((bits >>> 0) !== bits || bits > max) throw new NetcodeError('usage', `react-netcode: bit width ${bits} is invalid; pass an integer in 0..${max}.`);
}

export function badValue(what: string, pos: number): WireError {
  return new WireError('wire/bad-value', `react-netcode: ${what} at bit ${pos}; encode only values the field allows, and drop a peer that sends such data.`);
}

export function checkFactor(factor: number): void {
  if (!(factor > 0 && factor < Infinity)) throw new NetcodeError('usage', `react-netcode: quantization factor ${factor} is invalid; pass a finite number > 0.`);
}

export function checkQuatBits(bits: number): void {
  if (!Number.isInteger(bits) || bits < MIN_QUAT_BITS || bits > MAX_QUAT_BITS) {
    throw new NetcodeError('usage', `react-netcode: quaternion bits ${bits} is invalid; pass an integer in ${MIN_QUAT_BITS}..${MAX_QUAT_BITS}.`);
  }
}

// Smallest-three quaternion: codes[0] = index of the largest |component| (the first on
// ties), codes[1..3] = the other three (in index order) as q + max, with
// q = round(c * k) clamped to [-max, max] and k = ±(max / (1/√2)) / length (the sign of
// the largest component): one division per quaternion, not one per component.
// Zero is exact, so the identity quaternion survives a round trip unchanged. The code
// has no branch on the data (the snapshot encoder quantizes every ghost's rotation with
// it, and branches on random rotations mispredict): the largest component comes from
// comparison bits, the sign is a factor, rounding is floor(p) + (p − floor(p) >= ½), and
// the clamp is needed only where the length is inexact (squares that under- or overflow).
const qc = new Float64Array(4);
export const codes = new Uint32Array(4);

/** Encode into `codes`; returns false for NaN / zero / infinite length. */
export function encodeQuat(x: number, y: number, z: number, w: number, bits: number): boolean {
  return encodeQuatInto(x, y, z, w, bits, codes, 0);
}

/** Encode into out[o..o + 3] (index, then the three codes); returns false for NaN / zero / infinite length. */
export function encodeQuatInto(
  x: number, y: number, z: number, w: number, bits: number, out: Uint32Array | Int32Array, o: number,
): boolean {
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  if (!(len > 0 && len < Infinity)) return false;
  qc[0] = x;
  qc[1] = y;
  qc[2] = z;
  qc[3] = w;
  const idx = largestIndex(Math.abs(x), Math.abs(y), Math.abs(z), Math.abs(w));
  const max = (1 << (bits - 1)) - 1;
  // (±max) / √½ / len, as (max / √½ / len) · ±1: the same double.
  const k = (max / Math.SQRT1_2 / len) * (1 - 2 * +(qc[idx]! < 0));
  const clamp = !(len > 1e-140 && len < 1e140);
  out[o] = idx;
  out[o + 1] = quatCode(qc[+(idx === 0)]! * k, max, clamp);
  out[o + 2] = quatCode(qc[1 + +(idx <= 1)]! * k, max, clamp);
  out[o + 3] = quatCode(qc[2 + +(idx <= 2)]! * k, max, clamp);
  return true;
}

/** Index of the first largest of four magnitudes: i wins when it beats every earlier one and no later one beats it. */
function largestIndex(ax: number, ay: number, az: number, aw: number): number {
  const c01 = +(ay > ax), c02 = +(az > ax), c03 = +(aw > ax), c12 = +(az > ay), c13 = +(aw > ay), c23 = +(aw > az);
  return (c01 & (c12 ^ 1) & (c13 ^ 1)) | ((c02 & c12 & (c23 ^ 1)) << 1) | ((c03 & c13 & c23) * 3);
}

/** round(p) (Math.round's), clamped to [-max, max] when `clamp`, plus max. Each |p| <= max·(1 + ε) when the length is exact. */
function quatCode(p: number, max: number, clamp: boolean): number {
  const f = Math.floor(p);
  const q = f + +(p - f >= 0.5);
  return (clamp ? (q > max ? max : q < -max ? -max : q) : q) + max;
}

/** Decode `codes` into `out`; returns false when the small three cannot belong to a unit quaternion. */
export function decodeQuat(bits: number, out: QuatLike): boolean {
  const max = (1 << (bits - 1)) - 1;
  const step = Math.SQRT1_2 / max;
  const a = (codes[1]! - max) * step;
  const b = (codes[2]! - max) * step;
  const c = (codes[3]! - max) * step;
  const sum = a * a + b * b + c * c;
  if (sum > 1 + QUAT_SUM_EPSILON) return false;
  const big = Math.sqrt(sum >= 1 ? 0 : 1 - sum);
  const idx = codes[0]!;
  out.x = idx === 0 ? big : a;
  out.y = idx === 1 ? big : idx === 0 ? a : b;
  out.z = idx === 2 ? big : idx === 3 ? c : b;
  out.w = idx === 3 ? big : c;
  return true;
}

/** The quaternion exactly as `writeQuat` then `readQuat` would produce it. Throws like `writeQuat`. */
export function quantizeQuat(q: QuatLike, bits: number, out: QuatLike = { x: 0, y: 0, z: 0, w: 1 }): QuatLike {
  checkQuatBits(bits);
  if (!encodeQuat(q.x, q.y, q.z, q.w, bits)) {
    throw new WireError('wire/bad-value', `react-netcode: quaternion (${q.x}, ${q.y}, ${q.z}, ${q.w}) has no direction; pass a finite, non-zero quaternion.`);
  }
  decodeQuat(bits, out);
  return out;
}

/** UTF-8 byte length of `s`, or -1 when it holds a lone surrogate (which UTF-8 cannot carry). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if ((c & 0xfc00) === 0xd800) {
      if ((s.charCodeAt(i + 1) & 0xfc00) !== 0xdc00) return -1;
      i++;
      n += 4;
    } else if ((c & 0xfc00) === 0xdc00) return -1;
    else n += 3;
  }
  return n;
}

export class BitWriter {
  private buf: Uint8Array;
  private pos = 0;

  constructor(initialCapacityBytes = DEFAULT_WRITER_CAPACITY) {
    this.buf = new Uint8Array(Math.max(1, Math.ceil(initialCapacityBytes)));
  }

  get bitLength(): number {
    return this.pos;
  }

  get byteLength(): number {
    return (this.pos + 7) >>> 3;
  }

  /** Start a new message, keeping the buffer. */
  reset(): this {
    this.pos = 0;
    return this;
  }

  private ensure(bits: number): void {
    const need = (this.pos + bits + 7) >>> 3;
    if (need <= this.buf.length) return;
    const next = new Uint8Array(Math.max(need, this.buf.length * 2));
    next.set(this.buf.subarray(0, this.byteLength));
    this.buf = next;
  }

  /** The low `bits` (0..32) bits of `value`, unchecked: the fast primitive. */
  writeBits(value: number, bits: number): void {
    checkWidth(bits, 32);
    if (bits === 0) return;
    this.ensure(bits);
    const buf = this.buf;
    let v = value >>> 0;
    let left = bits;
    let i = this.pos >>> 3;
    const off = this.pos & 7;
    if (off !== 0) {
      const n = Math.min(8 - off, left);
      buf[i] = buf[i]! | ((v & ((1 << n) - 1)) << off);
      v >>>= n;
      left -= n;
      i++;
    }
    // A byte's first write assigns it, so stale data from before reset() never leaks.
    for (; left >= 8; left -= 8, v >>>= 8) buf[i++] = v & 0xff;
    if (left > 0) buf[i] = v & ((1 << left) - 1);
    this.pos += bits;
  }

  /** 32 bits at once, unchecked (the snapshot BitSink hands over whole words). */
  writeWord(value: number): void {
    if (this.pos + 40 > this.buf.length * 8) this.ensure(40);
    const buf = this.buf;
    const i = this.pos >>> 3;
    const off = this.pos & 7;
    const v = value >>> 0;
    if (off === 0) {
      buf[i] = v;
      buf[i + 1] = v >>> 8;
      buf[i + 2] = v >>> 16;
      buf[i + 3] = v >>> 24;
    } else {
      // The partial byte's unused high bits are zero (a byte's first write assigns it).
      buf[i] = buf[i]! | ((v << off) & 0xff);
      buf[i + 1] = v >>> (8 - off);
      buf[i + 2] = v >>> (16 - off);
      buf[i + 3] = v >>> (24 - off);
      buf[i + 4] = v >>> (32 - off);
    }
    this.pos += 32;
  }

  /**
   * Append `len` bits of `src` starting at its bit `pos` (laid out as this writer lays
   * them out), unchecked: the snapshot's record copy. Once the destination is at a byte
   * boundary, each whole byte is two shifted source bytes, or, when the source is at the
   * same bit phase (the snapshot encoder lays its record stream out so), a plain byte copy.
   */
  appendBits(src: Uint8Array, pos: number, len: number): void {
    if (len <= 0) return;
    this.ensure(len + 8);
    const head = Math.min((8 - (this.pos & 7)) & 7, len);
    if (head > 0) {
      this.writeBits((src[pos >>> 3]! | (src[(pos >>> 3) + 1]! << 8)) >>> (pos & 7), head);
      pos += head;
      len -= head;
    }
    const buf = this.buf;
    const bytes = len >>> 3;
    const sh = pos & 7;
    let i = pos >>> 3;
    const o = this.pos >>> 3;
    if (sh === 0) {
      // Same bit phase: whole bytes (a native copy for long runs; short ones are not worth the view).
      if (bytes > 64) buf.set(src.subarray(i, i + bytes), o);
      else for (let j = 0; j < bytes; j++) buf[o + j] = src[i + j]!;
    }
    else for (let j = 0, back = 8 - sh; j < bytes; j++, i++) buf[o + j] = (src[i]! >>> sh) | (src[i + 1]! << back);
    this.pos += bytes * 8;
    pos += bytes * 8;
    len -= bytes * 8;
    if (len > 0) this.writeBits((src[pos >>> 3]! | (src[(pos >>> 3) + 1]! << 8)) >>> (pos & 7), len);
  }

  writeUint(value: number, bits: number): void {
    checkWidth(bits, 32);
    if (!Number.isInteger(value) || value < 0 || value > 2 ** bits - 1) throw badValue(`cannot write ${value} as a ${bits}-bit unsigned integer (0..${2 ** bits - 1})`, this.pos);
    this.writeBits(value, bits);
  }

  writeInt(value: number, bits: number): void {
    checkWidth(bits, 32);
    const half = bits === 0 ? 0 : 2 ** (bits - 1);
    if (!Number.isInteger(value) || value < -half || value > Math.max(0, half - 1)) throw badValue(`cannot write ${value} as a ${bits}-bit signed integer`, this.pos);
    this.writeBits(value, bits);
  }

  writeBool(b: boolean): void {
    this.writeBits(b ? 1 : 0, 1);
  }

  /** uint32 in 7-bit groups, low first, each followed by a continuation bit (LEB128 at bit granularity). */
  writeVarUint(value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > UINT32_MAX) throw badValue(`cannot write ${value} as a varuint (0..${UINT32_MAX})`, this.pos);
    let v = value >>> 0;
    for (; v >= 0x80; v >>>= 7) this.writeBits((v & 0x7f) | 0x80, 8);
    this.writeBits(v, 8);
  }

  /** int32, zigzag-mapped so small magnitudes are short. */
  writeVarInt(value: number): void {
    if (!Number.isInteger(value) || value < -INT32_MAX - 1 || value > INT32_MAX) throw badValue(`cannot write ${value} as a varint (int32)`, this.pos);
    this.writeVarUint(((value << 1) ^ (value >> 31)) >>> 0);
  }

  writeF32(value: number): void {
    f32[0] = value;
    if (!Number.isFinite(f32[0])) throw badValue(`cannot write ${value} as a finite float32`, this.pos);
    this.writeBits(f32Bits[0]!, 32);
  }

  /** round(value * factor) as a zigzag varint. */
  writeQuantized(value: number, factor: number): void {
    checkFactor(factor);
    const r = Math.round(value * factor);
    if (!(Math.abs(r) <= INT32_MAX)) throw badValue(`cannot quantize ${value} × ${factor} into an int32`, this.pos);
    this.writeVarInt(r + 0);
  }

  /** Smallest-three: 2-bit index of the largest component, then the other three in `bits` bits each. */
  writeQuat(x: number, y: number, z: number, w: number, bits: number): void {
    checkQuatBits(bits);
    if (!encodeQuat(x, y, z, w, bits)) throw badValue(`quaternion (${x}, ${y}, ${z}, ${w}) has no direction`, this.pos);
    this.writeBits(codes[0]!, 2);
    this.writeBits(codes[1]!, bits);
    this.writeBits(codes[2]!, bits);
    this.writeBits(codes[3]!, bits);
  }

  /** Varuint UTF-8 byte length, then the bytes. `maxLength` is in UTF-16 code units. */
  writeString(s: string, maxLength: number): void {
    if (s.length > maxLength) throw new WireError('wire/too-large', `react-netcode: string of length ${s.length} exceeds its maxLength ${maxLength} at bit ${this.pos}; shorten it or raise maxLength.`);
    const n = utf8Length(s);
    if (n < 0) throw badValue('string holds a lone UTF-16 surrogate', this.pos);
    this.writeVarUint(n);
    this.ensure(n * 8);
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        this.writeBits(c, 8);
        continue;
      }
      if (c < 0x800) {
        this.writeBits(0xc0 | (c >> 6) | ((0x80 | (c & 0x3f)) << 8), 16);
        continue;
      }
      if ((c & 0xfc00) === 0xd800) {
        c = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
        this.writeBits(0xf0 | (c >> 18), 8);
        this.writeBits((0x80 | ((c >> 12) & 0x3f)) | ((0x80 | ((c >> 6) & 0x3f)) << 8) | ((0x80 | (c & 0x3f)) << 16), 24);
        continue;
      }
      this.writeBits((0xe0 | (c >> 12)) | ((0x80 | ((c >> 6) & 0x3f)) << 8) | ((0x80 | (c & 0x3f)) << 16), 24);
    }
  }

  /** Varuint length, then the bytes. */
  writeBytes(u8: Uint8Array): void {
    this.writeVarUint(u8.length);
    this.ensure(u8.length * 8);
    if ((this.pos & 7) === 0) {
      this.buf.set(u8, this.pos >>> 3);
      this.pos += u8.length * 8;
    } else for (let i = 0; i < u8.length; i++) this.writeBits(u8[i]!, 8);
  }

  /** Drop everything after the first `bitLength` bits (at most the current length). */
  truncate(bitLength: number): void {
    if (!(bitLength >= 0 && bitLength <= this.pos)) throw new NetcodeError('usage', `react-netcode: cannot truncate a ${this.pos}-bit writer to ${bitLength} bits.`);
    this.pos = bitLength;
    // Later writes OR into a partial byte: clear its unused bits.
    if ((bitLength & 7) !== 0) this.buf[bitLength >>> 3] = this.buf[bitLength >>> 3]! & ((1 << (bitLength & 7)) - 1);
  }

  /** Pad with zero bits to the next byte boundary. */
  align(): void {
    this.pos = (this.pos + 7) & ~7;
  }

  /**
   * The internal buffer itself, whose first `byteLength` bytes are the written ones: valid until the
   * next write or reset. For a caller that copies them at once (no view nor copy made here).
   */
  buffer(): Uint8Array {
    return this.buf;
  }

  /** The written bytes as a view of the internal buffer: valid until the next write or reset. */
  view(): Uint8Array {
    return this.buf.subarray(0, this.byteLength);
  }

  /** The written bytes as an exact-size copy. */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.byteLength);
  }
}

export { BitReader } from './bit-reader.ts';
