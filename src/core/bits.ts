// Bit-level stream under every message and field codec: LSB-first within each
// byte, little-endian across bytes. The writer grows and is reused; the reader
// respects its view's byteOffset and always throws WireError past the end.

import { NetcodeError, WireError } from './errors.ts';
import { DEFAULT_WRITER_CAPACITY, MAX_QUAT_BITS, MAX_UTF8_BYTES_PER_UNIT, MIN_QUAT_BITS, QUAT_SUM_EPSILON } from './wire.ts';

/** A quaternion-shaped object; `readQuat` can decode into one. */
export interface QuatLike {
  x: number;
  y: number;
  z: number;
  w: number;
}

const UINT32_MAX = 0xffff_ffff;
const INT32_MAX = 0x7fff_ffff;
const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const EMPTY = new Uint8Array(0);
let scratch = new Uint8Array(256);

function checkWidth(bits: number, max: number): void {
  if ((bits >>> 0) !== bits || bits > max) throw new NetcodeError('usage', `react-netcode: bit width ${bits} is invalid; pass an integer in 0..${max}.`);
}

function badValue(what: string, pos: number): WireError {
  return new WireError('wire/bad-value', `react-netcode: ${what} at bit ${pos}; encode only values the field allows, and drop a peer that sends such data.`);
}

function checkFactor(factor: number): void {
  if (!(factor > 0 && factor < Infinity)) throw new NetcodeError('usage', `react-netcode: quantization factor ${factor} is invalid; pass a finite number > 0.`);
}

function checkQuatBits(bits: number): void {
  if (!Number.isInteger(bits) || bits < MIN_QUAT_BITS || bits > MAX_QUAT_BITS) {
    throw new NetcodeError('usage', `react-netcode: quaternion bits ${bits} is invalid; pass an integer in ${MIN_QUAT_BITS}..${MAX_QUAT_BITS}.`);
  }
}

// Smallest-three quaternion: codes[0] = index of the largest |component|, codes[1..3]
// = the other three (in index order) as q + max, q = round(c * max / (1/√2)) in [-max, max].
// Zero is exact, so the identity quaternion survives a round trip unchanged.
const qc = new Float64Array(4);
const codes = new Uint32Array(4);

/** Encode into `codes`; returns false for NaN / zero / infinite length. */
function encodeQuat(x: number, y: number, z: number, w: number, bits: number): boolean {
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
  codes[0] = idx;
  for (let i = 0, j = 1; i < 4; i++) {
    if (i === idx) continue;
    const q = Math.round(qc[i]! * scale);
    codes[j++] = (q > max ? max : q < -max ? -max : q) + max;
  }
  return true;
}

/** Decode `codes` into `out`; returns false when the small three cannot belong to a unit quaternion. */
function decodeQuat(bits: number, out: QuatLike): boolean {
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

  /** Pad with zero bits to the next byte boundary. */
  align(): void {
    this.pos = (this.pos + 7) & ~7;
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

export class BitReader {
  private data: Uint8Array = EMPTY;
  private pos = 0;
  private end = 0;

  constructor(data?: Uint8Array) {
    if (data) this.reset(data);
  }

  /** Read a new message (any Uint8Array view, including pooled Node Buffers). */
  reset(data: Uint8Array): this {
    this.data = data;
    this.pos = 0;
    this.end = data.byteLength * 8;
    return this;
  }

  get bitPosition(): number {
    return this.pos;
  }

  get remainingBits(): number {
    return this.end - this.pos;
  }

  private need(bits: number): void {
    if (bits > this.end - this.pos) {
      throw new WireError('wire/end-of-data', `react-netcode: message ends at bit ${this.end} but ${bits} more bits were needed at bit ${this.pos}; it is truncated or does not match the protocol — drop it.`);
    }
  }

  readBits(bits: number): number {
    checkWidth(bits, 32);
    this.need(bits);
    const data = this.data;
    let i = this.pos >>> 3;
    const off = this.pos & 7;
    let left = bits;
    let result = 0;
    let shift = 0;
    if (off !== 0 && left > 0) {
      const n = Math.min(8 - off, left);
      result = (data[i++]! >>> off) & ((1 << n) - 1);
      shift = n;
      left -= n;
    }
    for (; left >= 8; left -= 8, shift += 8) result |= data[i++]! << shift;
    if (left > 0) result |= (data[i]! & ((1 << left) - 1)) << shift;
    this.pos += bits;
    return result >>> 0;
  }

  readUint(bits: number): number {
    return this.readBits(bits);
  }

  readInt(bits: number): number {
    const v = this.readBits(bits);
    return bits === 0 ? 0 : (v << (32 - bits)) >> (32 - bits);
  }

  readBool(): boolean {
    return this.readBits(1) === 1;
  }

  readVarUint(): number {
    const start = this.pos;
    let result = 0;
    let mul = 1;
    for (let g = 0; g < 4; g++, mul *= 128) {
      const byte = this.readBits(8);
      result += (byte & 0x7f) * mul;
      if (byte < 0x80) return result;
    }
    const last = this.readBits(8);
    if (last > 0x0f) throw badValue(last >= 0x80 ? 'varuint longer than 5 groups' : 'varuint above 2^32-1', start);
    return result + last * mul;
  }

  readVarInt(): number {
    const u = this.readVarUint();
    return (u >>> 1) ^ -(u & 1);
  }

  readF32(): number {
    const pos = this.pos;
    f32Bits[0] = this.readBits(32);
    const v = f32[0]!;
    if (!Number.isFinite(v)) throw badValue(`float32 is ${v}`, pos);
    return v;
  }

  readQuantized(factor: number): number {
    checkFactor(factor);
    return this.readVarInt() / factor;
  }

  /** Decode a smallest-three quaternion into `out` (or a new object). */
  readQuat(bits: number, out: QuatLike = { x: 0, y: 0, z: 0, w: 1 }): QuatLike {
    checkQuatBits(bits);
    const pos = this.pos;
    const top = 2 * ((1 << (bits - 1)) - 1);
    codes[0] = this.readBits(2);
    for (let j = 1; j < 4; j++) {
      const code = this.readBits(bits);
      if (code > top) throw badValue(`quaternion component code ${code} exceeds ${top}`, pos);
      codes[j] = code;
    }
    if (!decodeQuat(bits, out)) throw badValue('quaternion components are longer than a unit quaternion', pos);
    return out;
  }

  readString(maxLength: number): string {
    const pos = this.pos;
    const n = this.readVarUint();
    if (n > maxLength * MAX_UTF8_BYTES_PER_UNIT) throw new WireError('wire/too-large', `react-netcode: string of ${n} UTF-8 bytes at bit ${pos} cannot fit maxLength ${maxLength}; drop the message.`);
    const bytes = this.bytesView(n);
    let s: string;
    try {
      s = decoder.decode(bytes);
    } catch {
      throw badValue('string is not valid UTF-8', pos);
    }
    if (s.length > maxLength) throw new WireError('wire/too-large', `react-netcode: string of length ${s.length} at bit ${pos} exceeds maxLength ${maxLength}; drop the message.`);
    return s;
  }

  /** A new Uint8Array (never a view of the message). */
  readBytes(maxLength: number): Uint8Array {
    const pos = this.pos;
    const n = this.readVarUint();
    if (n > maxLength) throw new WireError('wire/too-large', `react-netcode: ${n} bytes at bit ${pos} exceed maxLength ${maxLength}; drop the message.`);
    return this.bytesView(n).slice();
  }

  /** The next n bytes: a view of the message when aligned, else of a shared scratch buffer. */
  private bytesView(n: number): Uint8Array {
    this.need(n * 8);
    if ((this.pos & 7) === 0) {
      const start = this.pos >>> 3;
      this.pos += n * 8;
      return this.data.subarray(start, start + n);
    }
    if (scratch.length < n) scratch = new Uint8Array(Math.max(n, scratch.length * 2));
    for (let i = 0; i < n; i++) scratch[i] = this.readBits(8);
    return scratch.subarray(0, n);
  }

  /** Skip to the next byte boundary. */
  align(): void {
    this.pos = Math.min(this.end, (this.pos + 7) & ~7);
  }

  /** Throw unless only zero padding (< 8 bits) remains. */
  expectEnd(): void {
    const left = this.end - this.pos;
    if (left > 7) throw badValue(`${left} unread bits remain after the message`, this.pos);
    if (left > 0 && this.data[this.pos >>> 3]! >>> (this.pos & 7) !== 0) throw badValue('non-zero padding bits after the message', this.pos);
  }
}
