// The Input message body (client → server, unreliable; the caller writes/reads the
// kind byte MessageKind.Input before it). Each packet repeats the newest few ticks
// so a lost packet costs no input, and piggybacks the client's interpolation view
// (for lag compensation) and its snapshot ack.
//
// Layout, after the kind byte (bit stream, see bits.ts):
//   u32 newestTick
//   u8  count                       1..MAX_INPUTS_PER_PACKET: inputs for ticks newestTick, newestTick − 1, …
//   input[0]                        every replicated field of the input schema, declaration order
//   input[i], i = 1..count − 1      1 bit "same as input[i − 1]"; when 0, per replicated field:
//                                   1 bit "same as in input[i − 1]", else the field's value
//   u32 interpolationTick           the tick remote ghosts were shown at (lag compensation)
//   u16 interpolationFraction       fraction towards the next tick × 65535
//   u32 ackTick, u32 ackMask        the snapshot ack (as in SnapshotAck)
//   zero padding to the byte
//
// Decoding sanitizes (sanitize.ts): what leaves `decodeInputPacket` is what systems may
// see. A raw float (f32 or vector without `quantize`) whose bits are NaN or ±Infinity is
// read as such and becomes the field's default there, as docs/prediction.md promises;
// every other malformed value is a WireError.

import type { BitReader, BitWriter } from '../bits.ts';
import { NetcodeError, WireError } from '../errors.ts';
import type { Schema, SchemaCodec, Values } from '../schema.ts';
import type { Tick } from '../clock/tick.ts';
import type { Field } from '../field.ts';
import { inputLayout, type InputFieldEntry } from './events.ts';
import { sanitizeInput } from './sanitize.ts';

/** Inputs per packet: the most a packet may carry, and what the client sends by default (NFE's 4). */
export const MAX_INPUTS_PER_PACKET = 32;
export const DEFAULT_INPUTS_PER_PACKET = 4;

export interface InputPacketExtras {
  /** The tick the client showed interpolated ghosts at. */
  interpolationTick: Tick;
  /** 0..1 towards the next tick (sent as a u16, so within 1/65535). */
  interpolationFraction: number;
  /** Newest snapshot tick received, and bit i = snapshot ackTick − 1 − i received too. */
  ackTick: Tick;
  ackMask: number;
}

/** Where the encoder reads committed inputs (an InputBuffer). */
export interface InputSource<S extends Schema> {
  get(tick: Tick): Values<S> | undefined;
}

export interface PacketInput<S extends Schema> {
  tick: Tick;
  readonly values: Values<S>;
  /** Fields `sanitizeInput` changed while decoding this input (a buggy or hostile sender when > 0). */
  clamped: number;
}

export interface DecodedInputPacket<S extends Schema> extends InputPacketExtras {
  newestTick: Tick;
  count: number;
  /** Newest first; entries [0, count) are valid. Pooled: the array only grows, entries are reused. */
  readonly inputs: PacketInput<S>[];
}

type Loose = Record<string, unknown>;

export function createDecodedInputPacket<S extends Schema>(): DecodedInputPacket<S> {
  return { newestTick: 0, count: 0, inputs: [], interpolationTick: 0, interpolationFraction: 0, ackTick: 0, ackMask: 0 };
}

/**
 * Exact equality of two field values (vectors and quaternions by component); inputs are pre-quantized, so
 * equal here means equal after decoding.
 */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const p = a as Loose;
  const q = b as Loose;
  return p.x === q.x && p.y === q.y && p.z === q.z && p.w === q.w;
}

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);
const AXES: Readonly<Record<string, readonly string[]>> = { vec2: ['x', 'y'], vec3: ['x', 'y', 'z'] };

/** A float32 exactly as sent, NaN and ±Infinity included (sanitizing replaces them). */
function readRawF32(r: BitReader): number {
  f32Bits[0] = r.readBits(32);
  return f32[0]!;
}

/** One field of an input: raw floats leniently (see the module comment), everything else with its codec. */
function readInputField(r: BitReader, field: Field<unknown>, current: unknown): unknown {
  if (field.quantizeFactor === undefined) {
    if (field.kind === 'f32') return readRawF32(r);
    const axes = AXES[field.kind];
    if (axes !== undefined) {
      const v = current as Record<string, number>;
      for (let a = 0; a < axes.length; a++) v[axes[a]!] = readRawF32(r);
      return v;
    }
  }
  return field.readInto(r, current);
}

function writeOlder(w: BitWriter, wire: readonly InputFieldEntry[], newer: Loose, older: Loose): void {
  let identical = true;
  for (let i = 0; i < wire.length; i++) {
    const key = wire[i]!.key;
    if (!same(newer[key], older[key])) identical = false;
  }
  w.writeBool(identical);
  if (identical) return;
  for (let i = 0; i < wire.length; i++) {
    const { key, field } = wire[i]!;
    const eq = same(newer[key], older[key]);
    w.writeBool(eq);
    if (!eq) field.write(w, older[key]);
  }
}

/**
 * Write the Input body for ticks newestTick, newestTick − 1, … (up to `count`, stopping
 * at the first tick `source` lacks). Returns the number of inputs written.
 */
export function encodeInputPacket<S extends Schema>(
  w: BitWriter,
  codec: SchemaCodec<S>,
  source: InputSource<S>,
  newestTick: Tick,
  count: number,
  extras: InputPacketExtras,
): number {
  if (!Number.isInteger(count) || count < 1 || count > MAX_INPUTS_PER_PACKET) throw new NetcodeError('usage', `react-netcode: an input packet carries 1..${MAX_INPUTS_PER_PACKET} ticks, got ${count}; the default is ${DEFAULT_INPUTS_PER_PACKET}.`);
  const f = extras.interpolationFraction;
  if (!(f >= 0 && f <= 1)) throw new NetcodeError('usage', `react-netcode: interpolationFraction must be in 0..1, got ${f}.`);
  const newest = source.get(newestTick) as Loose | undefined;
  if (newest === undefined) throw new NetcodeError('usage', `react-netcode: no input committed for tick ${newestTick}; commit it before sending.`);
  let n = 1;
  while (n < count && source.get((newestTick - n) >>> 0) !== undefined) n++;
  const { wire } = inputLayout(codec);
  w.writeBits(newestTick >>> 0, 32);
  w.writeBits(n, 8);
  for (let i = 0; i < wire.length; i++) wire[i]!.field.write(w, newest[wire[i]!.key]);
  let newer = newest;
  for (let i = 1; i < n; i++) {
    const older = source.get((newestTick - i) >>> 0) as Loose;
    writeOlder(w, wire, newer, older);
    newer = older;
  }
  w.writeBits(extras.interpolationTick >>> 0, 32);
  w.writeBits(Math.round(f * 0xffff), 16);
  w.writeBits(extras.ackTick >>> 0, 32);
  w.writeBits(extras.ackMask >>> 0, 32);
  return n;
}

/**
 * Read an Input body into `out` (reusing its entries and their values). Throws
 * WireError on truncation, a count outside 1..MAX_INPUTS_PER_PACKET, a bad field value
 * or trailing data; `out` is then partly overwritten: drop the message. The inputs come
 * out sanitized (`sanitizeInput`), each with the number of fields that needed it.
 */
export function decodeInputPacket<S extends Schema>(
  r: BitReader,
  codec: SchemaCodec<S>,
  out: DecodedInputPacket<S>,
): DecodedInputPacket<S> {
  const { wire } = inputLayout(codec);
  const newestTick = r.readBits(32);
  const pos = r.bitPosition;
  const count = r.readBits(8);
  if (count < 1 || count > MAX_INPUTS_PER_PACKET) throw new WireError('wire/bad-value', `react-netcode: input packet count ${count} at bit ${pos} is outside 1..${MAX_INPUTS_PER_PACKET}; drop the message.`);
  const inputs = out.inputs;
  while (inputs.length < count) inputs.push({ tick: 0, values: codec.defaults(), clamped: 0 });
  let newer: Loose | undefined;
  for (let i = 0; i < count; i++) {
    const entry = inputs[i]!;
    entry.tick = (newestTick - i) >>> 0;
    const v = entry.values as Loose;
    const identical = newer !== undefined && r.readBool();
    for (let j = 0; j < wire.length; j++) {
      const { key, field } = wire[j]!;
      if (newer !== undefined && (identical || r.readBool())) v[key] = field.copy(newer[key], v[key]);
      else v[key] = readInputField(r, field, v[key]);
    }
    newer = v;
  }
  // After the whole chain: older inputs copied their "same" fields from the raw newer ones.
  for (let i = 0; i < count; i++) {
    const entry = inputs[i]!;
    entry.clamped = sanitizeInput(codec, entry.values);
  }
  out.newestTick = newestTick;
  out.count = count;
  out.interpolationTick = r.readBits(32);
  out.interpolationFraction = r.readBits(16) / 0xffff;
  out.ackTick = r.readBits(32);
  out.ackMask = r.readBits(32);
  r.expectEnd();
  return out;
}
