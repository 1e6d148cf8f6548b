import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../../src/core/bits.ts';
import { WireError } from '../../../src/core/errors.ts';
import { Rng } from '../../../src/core/rng.ts';
import { compileKernel } from '../../../src/core/snapshot/compiled.ts';
import { BitSink, codeBits, copyBits, crc16, putCode, readCode, unzigzag, zigzag } from '../../../src/core/snapshot/codes.ts';
import { compileLayouts } from '../../../src/core/snapshot/layout.ts';
import { field } from '../../../src/core/field.ts';
import { defineProtocol, ghost } from '../../../src/core/protocol.ts';

const bytesOf = (f: (sink: BitSink) => void): Uint8Array => {
  const w = new BitWriter(8);
  const sink = new BitSink().begin(w);
  f(sink);
  sink.flush();
  return w.toBytes();
};

describe('snapshot bit codes', () => {
  it('prefix-codes uint32 values in the documented sizes', () => {
    // Buckets of widths 0, 2, 4, 7, 10, 14, 20, 32 start at 0, 1, 5, 21, 149, 1173, 17557, 1066133;
    // a value in bucket i costs i + 1 + width bits (the last bucket has no terminating zero: 7 + 32).
    const cases: [number, number][] = [
      [0, 1], [1, 4], [4, 4], [5, 7], [20, 7], [21, 11], [148, 11], [149, 15], [1172, 15],
      [1173, 20], [17556, 20], [17557, 27], [1066132, 27], [1066133, 39], [2 ** 32 - 1, 39],
    ];
    for (const [v, bits] of cases) {
      expect(codeBits(v)).toBe(bits);
      const w = new BitWriter(8);
      const sink = new BitSink().begin(w);
      sink.put(1, 3); // off the byte boundary
      putCode(sink, v);
      sink.flush();
      expect(w.bitLength).toBe(3 + bits);
      const r = new BitReader(w.toBytes());
      r.readBits(3);
      expect(readCode(r)).toBe(v);
    }
    // The last bucket can spell values above 2^32 − 1: rejected.
    const bad = bytesOf((s) => {
      s.put(127, 7);
      s.put(0xffff_ffff, 32);
    });
    expect(() => readCode(new BitReader(bad))).toThrow(WireError);
  });

  it('zigzags int32 differences', () => {
    expect([0, -1, 1, -2, 2].map(zigzag)).toEqual([0, 1, 2, 3, 4]);
    expect(zigzag(-0x8000_0000)).toBe(0xffff_ffff);
    for (const v of [0, -1, 7, -0x8000_0000, 0x7fff_ffff]) expect(unzigzag(zigzag(v))).toBe(v);
  });

  it('BitSink writes exactly what BitWriter.writeBits would, and copyBits copies any bit range', () => {
    const rng = new Rng(1);
    const ops: [number, number][] = [];
    for (let i = 0; i < 2000; i++) {
      const bits = 1 + rng.int(32);
      ops.push([bits === 32 ? rng.nextUint32() : rng.nextUint32() % 2 ** bits, bits]);
    }
    const direct = new BitWriter(8);
    for (const [v, b] of ops) direct.writeBits(v, b);
    const viaSink = bytesOf((s) => ops.forEach(([v, b]) => s.put(v, b)));
    expect(viaSink).toEqual(direct.toBytes());
    const src = direct.toBytes();
    // Short copies go word by word, long ones (> 256 bits) byte-wise through BitWriter.appendBits:
    // both after any number of bits already in the sink, at every source phase.
    for (let i = 0; i < 400; i++) {
      const long = i % 2 === 1;
      const len = long ? 257 + rng.int(3000) : rng.int(100);
      const pos = rng.int(direct.bitLength - len);
      const pre = rng.int(40);
      const copied = bytesOf((s) => {
        for (let k = 0; k < pre; k++) s.put(k & 1, 1);
        copyBits(s, src, pos, len);
        s.put(0b101, 3);
      });
      const r = new BitReader(src);
      r.readBits(0);
      const expectW = new BitWriter(8);
      for (let k = 0; k < pre; k++) expectW.writeBits(k & 1, 1);
      for (let k = 0; k < pos; k++) r.readBits(1);
      for (let k = 0; k < len; k++) expectW.writeBits(r.readBits(1), 1);
      expectW.writeBits(0b101, 3);
      expect(copied).toEqual(expectW.toBytes());
    }
  });

  it('computes CRC-16/CCITT-FALSE (check value of "123456789" is 0x29B1)', () => {
    const data = new TextEncoder().encode('xx123456789');
    expect(crc16(data, 2, data.length)).toBe(0x29b1);
    // The table-driven loop against the textbook bitwise CRC, every length and start phase.
    const bitwise = (d: Uint8Array, start: number, end: number): number => {
      let crc = 0xffff;
      for (let i = start; i < end; i++) {
        crc ^= d[i]! << 8;
        for (let k = 0; k < 8; k++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
      }
      return crc;
    };
    const rng = new Rng(7);
    const buf = Uint8Array.from({ length: 64 }, () => rng.int(256));
    for (let start = 0; start < 9; start++) for (let end = start; end <= buf.length; end++) expect(crc16(buf, start, end)).toBe(bitwise(buf, start, end));
  });
});

describe('generated snapshot functions', () => {
  const mode = (values: [string, ...string[]]) => defineProtocol({ ghosts: { unit: ghost({ pos: field.vec3({ quantize: 100 }), mode: field.enum(values) }) } });

  it('are shared by every encoder of the same layouts (one call target for all rooms), and differ where the layouts do', () => {
    const kernel = (values: [string, ...string[]]) => compileKernel(compileLayouts(mode(values))[0]!);
    const [a, b, c] = [kernel(['idle', 'run']), kernel(['idle', 'run']), kernel(['run', 'idle'])];
    expect(a.quantize).toBe(b.quantize);
    expect(a.body[1]).toBe(b.body[1]);
    // Same source, other enum values: the enum table is part of the quantizer, so it is another one...
    expect(c.quantize).not.toBe(a.quantize);
    // ...and each quantizes with its own table.
    const row = new Int32Array(8);
    expect(a.quantize({ pos: { x: 0, y: 0, z: 0 }, mode: 'run' }, row, 0, [], 0)).toBe(true);
    const runInA = row[3];
    expect(c.quantize({ pos: { x: 0, y: 0, z: 0 }, mode: 'run' }, row, 0, [], 0)).toBe(true);
    expect([runInA, row[3]]).toEqual([1, 0]);
    // The body writers capture no per-layout data: one per distinct source.
    expect(c.body[1]).toBe(a.body[1]);
  });
});
