// BitReader: the reading half of the bit stream (see bits.ts for the layout). Reads
// any Uint8Array view (Node Buffers from a pool included); past the end or on bad data
// it throws a WireError, never returns garbage.

import { WireError } from './errors.ts';
import { badValue, checkFactor, checkQuatBits, checkWidth, codes, decodeQuat, decoder, EMPTY, f32, f32Bits, scratchBox, type QuatLike } from './bits.ts';
import { MAX_UTF8_BYTES_PER_UNIT } from './wire.ts';

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
    if (scratchBox.bytes.length < n) scratchBox.bytes = new Uint8Array(Math.max(n, scratchBox.bytes.length * 2));
    const scratch = scratchBox.bytes;
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

