// Bit-level helpers under the snapshot codec: a 32-bit accumulator in front of a BitWriter, the prefix
// code of every unsigned integer in a snapshot (SNAPSHOT_CODE_WIDTHS), bit copies, zigzag, CRC-16.

import type { BitReader, BitWriter } from '../bits.ts';
import { WireError } from '../errors.ts';
import { SNAPSHOT_CODE_WIDTHS } from '../wire.ts';

const WIDTHS = Int32Array.from(SNAPSHOT_CODE_WIDTHS);
const LAST = WIDTHS.length - 1;
/** START[i] = first value of bucket i. */
const START = new Float64Array(WIDTHS.length + 1);
for (let i = 0; i < WIDTHS.length; i++) START[i + 1] = START[i]! + 2 ** WIDTHS[i]!;

/** Values below this have their code in CODE_VALUE / CODE_LENGTH (the first five buckets, at most 15 bits). */
export const CODE_TABLE_SIZE = START[5]!;
/** The prefix code of v < CODE_TABLE_SIZE as one put: its bits (LSB first) and their count. */
export const CODE_VALUE = new Int32Array(CODE_TABLE_SIZE);
export const CODE_LENGTH = new Uint8Array(CODE_TABLE_SIZE);
for (let i = 0; i < 5; i++) {
  for (let v = START[i]!; v < START[i + 1]!; v++) {
    CODE_VALUE[v] = ((v - START[i]!) << (i + 1)) | ((1 << i) - 1);
    CODE_LENGTH[v] = i + 1 + WIDTHS[i]!;
  }
}

/** Buffers bits in a 32-bit accumulator and hands whole words to a BitWriter. */
export class BitSink {
  w!: BitWriter;
  private acc = 0;
  private n = 0;

  begin(w: BitWriter): this {
    this.w = w;
    this.acc = 0;
    this.n = 0;
    return this;
  }

  get bitLength(): number {
    return this.w.bitLength + this.n;
  }

  /** The low `bits` (0..32) bits of `value`; `value` must be an integer in [0, 2^bits). */
  put(value: number, bits: number): void {
    const n = this.n;
    if (n + bits < 32) {
      this.acc |= value << n;
      this.n = n + bits;
      return;
    }
    const take = 32 - n;
    const low = take === 32 ? value : value & ((1 << take) - 1);
    this.w.writeWord((this.acc | (low << n)) >>> 0);
    const rest = bits - take;
    this.acc = rest > 0 ? value >>> take : 0;
    this.n = rest;
  }

  /** Push the buffered bits into the writer (call before using the writer directly). */
  flush(): void {
    if (this.n > 0) this.w.writeBits(this.acc >>> 0, this.n);
    this.acc = 0;
    this.n = 0;
  }
}

/** `bits` (1..32) bits at bit `pos` of `buf` (LSB first, as BitWriter lays them out). */
export function peekBits(buf: Uint8Array, pos: number, bits: number): number {
  const i = pos >>> 3;
  const off = pos & 7;
  const lo = (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24)) >>> off;
  const v = off === 0 ? lo : lo | (buf[i + 4]! << (32 - off));
  return bits === 32 ? v >>> 0 : (v & ((1 << bits) - 1)) >>> 0;
}

/** Copy `len` bits starting at bit `pos` of `buf` into the sink. */
export function copyBits(sink: BitSink, buf: Uint8Array, pos: number, len: number): void {
  if (len > 256) {
    // Long runs (long bodies, the inputs section): byte-wise, straight into the writer.
    sink.flush();
    sink.w.appendBits(buf, pos, len);
    return;
  }
  for (; len > 32; len -= 32, pos += 32) sink.put(peekBits(buf, pos, 32), 32);
  if (len > 0) sink.put(peekBits(buf, pos, len), len);
}

/** Bits the prefix code of `v` (uint32) takes. */
export function codeBits(v: number): number {
  if (v < CODE_TABLE_SIZE) return CODE_LENGTH[v] ?? 1;
  for (let i = 5; i < LAST; i++) if (v < START[i + 1]!) return i + 1 + WIDTHS[i]!;
  return LAST + WIDTHS[LAST]!;
}

/** Write uint32 `v` with the prefix code: i one-bits, a zero (below the last bucket), then v − START[i] in WIDTHS[i] bits. */
export function putCode(sink: BitSink, v: number): void {
  if (v < CODE_TABLE_SIZE) {
    sink.put(CODE_VALUE[v]!, CODE_LENGTH[v]!); // small values (the common case): from the table
    return;
  }
  for (let i = 5; i < LAST; i++) {
    if (v < START[i + 1]!) {
      sink.put(((v - START[i]!) << (i + 1)) | ((1 << i) - 1), i + 1 + WIDTHS[i]!);
      return;
    }
  }
  sink.put((1 << LAST) - 1, LAST);
  sink.put(v - START[LAST]!, WIDTHS[LAST]!);
}

/** Read a prefix-coded uint32; WireError bad-value above 2^32 − 1. */
export function readCode(r: BitReader): number {
  const pos = r.bitPosition;
  let i = 0;
  while (i < LAST && r.readBits(1) === 1) i++;
  const v = START[i]! + r.readBits(WIDTHS[i]!);
  if (v > 0xffff_ffff) throw new WireError('wire/bad-value', `react-netcode: snapshot integer code at bit ${pos} exceeds 2^32-1; the snapshot is corrupt — drop it.`);
  return v;
}

/** Zigzag an int32 difference into a uint32 (0, -1, 1, -2 → 0, 1, 2, 3). */
export function zigzag(d: number): number {
  return ((d << 1) ^ (d >> 31)) >>> 0;
}

export function unzigzag(u: number): number {
  return (u >>> 1) ^ -(u & 1);
}

const CRC_TABLE = new Uint16Array(256);
for (let n = 0; n < 256; n++) {
  let c = n << 8;
  for (let k = 0; k < 8; k++) c = c & 0x8000 ? (c << 1) ^ 0x1021 : c << 1;
  CRC_TABLE[n] = c & 0xffff;
}

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of bytes [start, end): detects every burst error up to 16 bits. */
export function crc16(data: Uint8Array, start: number, end: number): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >>> 8) ^ data[i]!) & 0xff]!;
  return crc;
}
