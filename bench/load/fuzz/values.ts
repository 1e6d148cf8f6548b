// Field values written bit by bit, bypassing every check of the field codecs: a valid
// value for the field (inside its bounds), or one of the extremes its wire form can
// carry — ±2^31, 2^32 − 1, overlong varints, NaN, ±Infinity, subnormals, −0, lengths
// 0 / max / max + 1 / far over, invalid UTF-8, enum indexes past the list, quaternion
// codes past the top. Generic over any Field, so the generator covers any protocol.
import type { BitWriter } from '../../../src/core/bits.ts';
import type { Field } from '../../../src/core/field.ts';
import type { Rng } from '../../../src/core/rng.ts';

export type Mode = 'valid' | 'extreme';

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);
const FLOATS = [NaN, Infinity, -Infinity, 0, -0, 1.4e-45, -1.4e-45, 1.1754942e-38, 3.4028235e38, -3.4028235e38, 1e30, -1e30, 1e6, -1e6, 0.5];
const VARUINTS = [0, 1, 127, 128, 16383, 16384, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff];
const UINTS32 = [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];

export function pick<T>(rng: Rng, list: readonly T[]): T {
  return list[rng.int(list.length)]!;
}

function writeRawF32(w: BitWriter, v: number): void {
  f32[0] = v;
  w.writeBits(f32Bits[0]!, 32);
}

/** A varuint, sometimes in a form the reader must refuse: 6 groups, or a 5th group above 0x0f. */
export function writeVarUintExtreme(w: BitWriter, rng: Rng): void {
  const r = rng.int(10);
  if (r === 0) for (let i = 0; i < 6; i++) w.writeBits(0x80 | rng.int(128), 8);
  else if (r === 1) {
    for (let i = 0; i < 4; i++) w.writeBits(0xff, 8);
    w.writeBits(0x10 + rng.int(0x70), 8); // above 2^32 − 1
  } else w.writeVarUint(pick(rng, VARUINTS));
}

/** The zigzag varint of an int32 extreme (−2^31 is the varuint 2^32 − 1). */
function writeVarIntExtreme(w: BitWriter, rng: Rng): void {
  if (rng.chance(0.2)) return writeVarUintExtreme(w, rng);
  w.writeVarUint(pick(rng, [0xffff_ffff, 0xffff_fffe, 0xffff_fffd, 0, 1, 2, 0x7fff_ffff, 0x8000_0000]));
}

function validScalar(rng: Rng, f: Field<unknown>, lo: number, hi: number): number {
  const min = Math.max(lo, f.options.min ?? lo);
  const max = Math.min(hi, f.options.max ?? hi);
  return min + rng.next() * (max - min);
}

/** One scalar of an f32 or vector component: quantized (varint) or raw float32 bits. */
function writeScalar(w: BitWriter, rng: Rng, f: Field<unknown>, mode: Mode, valid: number): void {
  const q = f.quantizeFactor;
  if (mode === 'valid') {
    if (q === undefined) writeRawF32(w, valid);
    else w.writeVarInt(Math.round(valid * q));
    return;
  }
  if (q === undefined) writeRawF32(w, rng.chance(0.7) ? pick(rng, FLOATS) : (rng.next() - 0.5) * 2 ** rng.int(130));
  else writeVarIntExtreme(w, rng);
}

const UTF8_BAD = [[0xff], [0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]];

function writeString(w: BitWriter, rng: Rng, maxLength: number, mode: Mode): void {
  if (mode === 'valid') {
    const n = rng.int(Math.min(maxLength, 40) + 1);
    let s = '';
    for (let i = 0; i < n; i++) s += rng.chance(0.1) ? pick(rng, ['é', '✓', '漢', '🙂'.charAt(0) + '🙂'.charAt(1)]) : String.fromCharCode(97 + rng.int(26));
    while (s.length > maxLength) s = s.slice(0, -1);
    if (/[\ud800-\udbff]$/.test(s)) s = s.slice(0, -1); // never end on half a pair
    w.writeString(s, maxLength);
    return;
  }
  const r = rng.int(6);
  if (r === 0) {
    // An invalid UTF-8 sequence inside an otherwise fine string.
    const bad = pick(rng, UTF8_BAD);
    w.writeVarUint(bad.length + 2);
    w.writeBits(0x61, 8);
    for (const b of bad) w.writeBits(b, 8);
    w.writeBits(0x62, 8);
    return;
  }
  // Lengths 0, max, max + 1, 3 × max (+1: over the byte bound), far beyond what follows.
  const n = pick(rng, [0, maxLength, maxLength + 1, maxLength * 3, maxLength * 3 + 1, 0xffff_ffff]);
  w.writeVarUint(n);
  const bytes = Math.min(n, 300 + rng.int(64));
  for (let i = 0; i < bytes; i++) w.writeBits(0x61 + rng.int(26), 8);
}

/** Write one field's value in its wire form. */
export function writeField(w: BitWriter, rng: Rng, f: Field<unknown>, mode: Mode): void {
  switch (f.kind) {
    case 'bool':
      w.writeBool(rng.chance(0.5));
      return;
    case 'u8':
    case 'u16': {
      const bits = f.kind === 'u8' ? 8 : 16;
      w.writeBits(mode === 'valid' ? Math.round(validScalar(rng, f, 0, 2 ** bits - 1)) : pick(rng, [0, 1, 2 ** bits - 1, 2 ** (bits - 1), rng.int(2 ** bits)]), bits);
      return;
    }
    case 'u32':
    case 'event':
      if (mode === 'valid') w.writeVarUint(f.kind === 'event' ? rng.int(1000) : Math.round(validScalar(rng, f, 0, 0xffff_ffff)));
      else writeVarUintExtreme(w, rng);
      return;
    case 'i32':
      if (mode === 'valid') w.writeVarInt(Math.round(validScalar(rng, f, -0x8000_0000, 0x7fff_ffff)));
      else writeVarIntExtreme(w, rng);
      return;
    case 'f32':
      writeScalar(w, rng, f, mode, validScalar(rng, f, -1000, 1000));
      return;
    case 'vec2':
    case 'vec3': {
      const axes = f.kind === 'vec2' ? 2 : 3;
      const len = f.options.maxLength ?? 100;
      for (let i = 0; i < axes; i++) writeScalar(w, rng, f, mode, ((rng.next() * 2 - 1) * len) / Math.sqrt(axes));
      return;
    }
    case 'quat': {
      const bits = f.bits!;
      const top = 2 * ((1 << (bits - 1)) - 1);
      w.writeBits(rng.int(4), 2);
      for (let i = 0; i < 3; i++) w.writeBits(mode === 'valid' ? Math.round(top / 2 + (rng.next() - 0.5) * top * 0.5) : pick(rng, [0, top, top + 1, 2 ** bits - 1, rng.int(2 ** bits)]), bits);
      return;
    }
    case 'string':
      writeString(w, rng, f.maxLength!, mode);
      return;
    case 'enum': {
      const n = f.values!.length;
      let bits = 0;
      while (2 ** bits < n) bits++;
      w.writeBits(mode === 'valid' || 2 ** bits === n ? rng.int(n) : n + rng.int(2 ** bits - n), bits);
      return;
    }
  }
}

/** A 32-bit slot: a chosen value or an extreme. */
export function u32(rng: Rng, value: number, extreme: boolean): number {
  return extreme ? pick(rng, UINTS32) : value >>> 0;
}
