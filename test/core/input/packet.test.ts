import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../../src/core/bits.ts';
import { NetcodeError, WireError } from '../../../src/core/errors.ts';
import { field } from '../../../src/core/field.ts';
import { InputBuffer } from '../../../src/core/input/buffer.ts';
import { createDecodedInputPacket, decodeInputPacket, encodeInputPacket, type InputPacketExtras } from '../../../src/core/input/packet.ts';
import { Rng } from '../../../src/core/rng.ts';
import { compileSchema, type Schema, type SchemaCodec } from '../../../src/core/schema.ts';
import { tickAdd } from '../../../src/core/clock/tick.ts';
import { MessageKind } from '../../../src/core/wire.ts';

const rich = compileSchema({
  move: field.vec2({ quantize: 100, maxLength: 1 }),
  aim: field.f32(),
  facing: field.quat({ bits: 10 }),
  stance: field.enum(['stand', 'crouch', 'prone']),
  sprint: field.bool(),
  jump: field.event(),
  local: field.u8({ replicated: false }),
});
const small = compileSchema({ move: field.vec2({ quantize: 100 }), jump: field.event() });
const extras: InputPacketExtras = { interpolationTick: 4321, interpolationFraction: 0.25, ackTick: 4330, ackMask: 0x8000_0005 };

function message<S extends Schema>(codec: SchemaCodec<S>, buffer: InputBuffer<S>, newest: number, count: number, ex = extras): { bytes: Uint8Array; n: number } {
  const w = new BitWriter();
  w.writeBits(MessageKind.Input, 8);
  const n = encodeInputPacket(w, codec, buffer, newest, count, ex);
  return { bytes: w.toBytes(), n };
}

function read<S extends Schema>(codec: SchemaCodec<S>, bytes: Uint8Array, out = createDecodedInputPacket<S>()) {
  const r = new BitReader(bytes);
  expect(r.readBits(8)).toBe(MessageKind.Input);
  return decodeInputPacket(r, codec, out);
}

describe('input packet', () => {
  it('round-trips the newest inputs, newest first, and the extras', () => {
    const rng = new Rng(3);
    const b = new InputBuffer(rich);
    const start = 0xffff_fff0;
    for (let i = 0; i < 20; i++) {
      const c = b.current;
      c.move = { x: rng.range(-0.7, 0.7), y: rng.range(-0.7, 0.7) };
      c.aim = rng.range(-10, 10);
      c.facing = { x: rng.next(), y: rng.next(), z: rng.next(), w: rng.next() };
      c.stance = rng.chance(0.5) ? 'crouch' : 'prone';
      c.sprint = rng.chance(0.5);
      c.local = 9;
      if (rng.chance(0.3)) b.press('jump', 1 + rng.int(3));
      b.commit(tickAdd(start, i));
    }
    const newest = tickAdd(start, 19); // 0xfffffff0 + 19 wraps to 3
    const { bytes, n } = message(rich, b, newest, 6);
    expect(n).toBe(6);
    const p = read(rich, bytes);
    expect(p.newestTick).toBe(3);
    expect(p.count).toBe(6);
    expect(p.inputs.slice(0, 6).map((e) => e.tick)).toEqual([3, 2, 1, 0, 0xffff_ffff, 0xffff_fffe]);
    for (let i = 0; i < 6; i++) {
      const sent = { ...b.get(p.inputs[i]!.tick)!, local: 0 }; // a predicted-only field is not sent
      expect(p.inputs[i]!.values).toEqual(sent);
    }
    expect(p.interpolationTick).toBe(4321);
    expect(p.interpolationFraction).toBeCloseTo(0.25, 4); // round(0.25 × 65535) = 16384 → 16384 / 65535 = 0.250004
    expect(p.ackTick).toBe(4330);
    expect(p.ackMask).toBe(0x8000_0005);
  });

  it('sends an older input that equals the newer one in one bit', () => {
    const b = new InputBuffer(small);
    b.current.move.x = 0.5;
    b.press('jump', 3);
    for (let t = 10; t <= 13; t++) b.commit(t);
    // 8 kind + 32 newestTick + 8 count + input 24 (move.x zigzag(50) = 100: 8, move.y 0: 8, jump 3: 8)
    // + 3 older × 1 bit "same" + extras 32 + 16 + 32 + 32 = 187 bits → 24 bytes
    expect(message(small, b, 13, 4).bytes.byteLength).toBe(24);
    b.press('jump');
    b.commit(14); // differs from 13 in jump only: 1 bit "not same" + move 1 bit "same" + jump 1 bit + 8 bits = 11 bits
    // 8 + 40 + 24 + 11 + 2 × 1 + 112 = 197 bits → 25 bytes
    const { bytes } = message(small, b, 14, 4);
    expect(bytes.byteLength).toBe(25);
    expect(read(small, bytes).inputs.slice(0, 4).map((e) => e.values.jump)).toEqual([4, 3, 3, 3]);
  });

  it('stops at the first tick the buffer lacks', () => {
    const b = new InputBuffer(small);
    for (const t of [7, 9, 10]) b.commit(t);
    const { bytes, n } = message(small, b, 10, 4);
    expect(n).toBe(2); // 10, 9; tick 8 was never committed
    expect(read(small, bytes).count).toBe(2);
  });

  it('refuses to encode what it cannot send', () => {
    const b = new InputBuffer(small);
    b.commit(1);
    expect(() => message(small, b, 2, 4)).toThrow(/commit it before sending/);
    expect(() => message(small, b, 1, 0)).toThrow(NetcodeError);
    expect(() => message(small, b, 1, 33)).toThrow(/1\.\.32/);
    expect(() => message(small, b, 1, 1, { ...extras, interpolationFraction: 1.5 })).toThrow(/interpolationFraction/);
  });

  it('throws WireError on every truncation, a bad count and trailing data', () => {
    const b = new InputBuffer(small);
    b.current.move = { x: 0.3, y: -0.2 };
    for (let t = 0; t < 4; t++) {
      b.press('jump');
      b.commit(t);
    }
    const { bytes } = message(small, b, 3, 4);
    for (let len = 1; len < bytes.byteLength; len++) {
      expect(() => read(small, bytes.subarray(0, len))).toThrow(WireError);
    }
    const zero = bytes.slice();
    zero[5] = 0; // byte 5 = the count (after kind + u32 tick)
    expect(() => read(small, zero)).toThrow(/count 0 at bit 40 is outside 1\.\.32/);
    const many = bytes.slice();
    many[5] = 33;
    expect(() => read(small, many)).toThrow(WireError);
    const long = new Uint8Array(bytes.byteLength + 1);
    long.set(bytes);
    long[bytes.byteLength] = 1;
    expect(() => read(small, long)).toThrow(/unread bits remain|non-zero padding/);
  });

  it('decodes into the same objects every time', () => {
    const b = new InputBuffer(small);
    for (let t = 0; t < 8; t++) {
      b.current.move.x = t / 10;
      b.commit(t);
    }
    const out = createDecodedInputPacket<typeof small.schema>();
    read(small, message(small, b, 3, 4).bytes, out);
    const entries = [...out.inputs];
    const moves = entries.map((e) => e.values.move);
    read(small, message(small, b, 7, 4).bytes, out);
    expect(out.inputs).toHaveLength(4);
    out.inputs.forEach((e, i) => {
      expect(e).toBe(entries[i]);
      expect(e.values.move).toBe(moves[i]);
    });
    expect(out.inputs.map((e) => e.values.move.x)).toEqual([0.7, 0.6, 0.5, 0.4]);
  });
});
