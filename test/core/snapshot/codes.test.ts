import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../../src/core/bits.ts';
import { WireError } from '../../../src/core/errors.ts';
import { Rng } from '../../../src/core/rng.ts';
import { compileBodyWriters } from '../../../src/core/snapshot/compiled-delta.ts';
import { compileQuantizer } from '../../../src/core/snapshot/compiled.ts';
import { compileSteadyWriters } from '../../../src/core/snapshot/compiled-steady.ts';
import { BitSink, COMBO_LENGTH, COMBO_VALUE, codeBits, copyBits, crc16, putCode, readCode, unzigzag, zigzag } from '../../../src/core/snapshot/codes.ts';
import { DeltaWriter, emptyBaselines } from '../../../src/core/snapshot/delta.ts';
import { IntMap } from '../../../src/core/snapshot/intmap.ts';
import { compileLayouts, quantizeInto } from '../../../src/core/snapshot/layout.ts';
import { QUAT_CODES, quatCodes } from '../../../src/core/snapshot/quat.ts';
import { field } from '../../../src/core/field.ts';
import { defineProtocol, ghost } from '../../../src/core/protocol.ts';
import { EVERY, protocol, randomEvery, randomQuat } from './harness.ts';

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
    // The slicing-by-8 loop against the textbook bitwise CRC, every length and start phase.
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

  it('combined codes: one put of a changed bit and the codes of m small values, as put one by one', () => {
    for (let m = 2; m <= 4; m++) {
      for (let x = 0; x < 1 << (3 * m); x++) {
        const one = new BitWriter(16);
        const byOne = new BitSink().begin(one);
        if (x === 0) byOne.put(0, 1);
        else {
          byOne.put(1, 1);
          for (let j = 0; j < m; j++) putCode(byOne, (x >>> (3 * j)) & 7);
        }
        byOne.flush();
        const combined = new BitWriter(16);
        const sink = new BitSink().begin(combined);
        sink.put(COMBO_VALUE[m]![x]!, COMBO_LENGTH[m]![x]!);
        sink.flush();
        expect(combined.bitLength).toBe(one.bitLength);
        expect([...combined.view()]).toEqual([...one.view()]);
      }
    }
  });

  it('maps ghost ids like a Map through inserts and deletes', () => {
    const rng = new Rng(2);
    const m = new IntMap(4);
    const ref = new Map<number, number>();
    for (let i = 0; i < 20_000; i++) {
      const key = rng.chance(0.5) ? rng.int(300) : rng.nextUint32();
      if (rng.chance(0.3)) {
        m.delete(key);
        ref.delete(key);
      } else {
        m.set(key, i);
        ref.set(key, i);
      }
      if (i % 1000 === 0) for (const [k, v] of ref) expect(m.get(k)).toBe(v);
    }
    expect(m.size).toBe(ref.size);
    for (let k = 0; k < 300; k++) expect(m.get(k)).toBe(ref.get(k) ?? -1);
  });
});

describe('snapshot compiled code', () => {
  const layout = compileLayouts(protocol)[EVERY]!;
  const n = layout.slotCount;
  const sn = layout.stringCount;

  it('quantizes like the generic path, and the quaternion codes are those writeQuat sends', () => {
    const rng = new Rng(3);
    const q = compileQuantizer(layout);
    for (let i = 0; i < 500; i++) {
      const values = randomEvery(rng);
      const a = new Int32Array(n);
      const b = new Int32Array(n);
      const sa = new Array<string>(sn).fill('');
      const sb = new Array<string>(sn).fill('');
      expect(q(values, a, 0, sa, 0)).toBe(true);
      quantizeInto(layout.fields, values, b, 0, sb, 0, 1, 'every');
      expect(a).toEqual(b);
      expect(sa).toEqual(sb);
    }
    const bad = { ...randomEvery(rng), small: 256 };
    expect(q(bad, new Int32Array(n), 0, [], 0)).toBe(false);
    expect(() => quantizeInto(layout.fields, bad, new Int32Array(n), 0, [], 0, 1, 'every')).toThrow(/field "small" must be an integer in 0..255/);
    for (let i = 0; i < 2000; i++) {
      const quat = randomQuat(rng);
      const bits = 4 + rng.int(13);
      expect(quatCodes(quat.x, quat.y, quat.z, quat.w, bits)).toBe(true);
      const w = new BitWriter(8);
      w.writeQuat(quat.x, quat.y, quat.z, quat.w, bits);
      const r = new BitReader(w.toBytes());
      expect([r.readBits(2), r.readBits(bits), r.readBits(bits), r.readBits(bits)]).toEqual([...QUAT_CODES]);
    }
  });

  it('picks the same largest quaternion component and codes as encodeQuat: ties, signs, unnormalised lengths', () => {
    // The compiled quantizer chooses the component without branches and applies the sign as a factor;
    // bits.ts encodeQuat (what writeQuat sends) is the definition. The first largest |component| wins.
    const p = defineProtocol({ ghosts: { g: ghost({ rot: field.quat({ bits: 12 }), fine: field.quat({ bits: 16 }) }) } });
    const g = compileLayouts(p)[0]!;
    const q = compileQuantizer(g);
    const h = Math.SQRT1_2;
    const special = [
      [0.5, 0.5, 0.5, 0.5], [-0.5, 0.5, -0.5, 0.5], [0.5, -0.5, 0.5, -0.5], [-0.5, -0.5, -0.5, -0.5],
      [h, h, 0, 0], [0, -h, h, 0], [0, 0, -h, -h], [h, 0, 0, -h], [-h, 0, h, 0],
      [1, 0, 0, 0], [0, -1, 0, 0], [0, 0, 1, 0], [0, 0, 0, -1], [-0, 0, -0, 1],
      [3, 3, 3, 3], [1e-150, -1e-150, 1e-150, 2e-150], [1e150, 2e150, -3e150, 1e150], [1, 1e-20, -1e-20, 0],
    ];
    const rng = new Rng(12);
    const row = new Int32Array(g.slotCount);
    for (let i = 0; i < 4000; i++) {
      let c: number[];
      if (i < special.length) c = special[i]!;
      else {
        // Random rotations, half of them with two or more components of equal magnitude.
        // Some far from unit length, down to squares that underflow to subnormals (where the length is inexact and the codes need their clamp).
        const scale = [1, 1, 1, 1e3, 1e-145, 1e-158, 1e-160, 1e145][rng.int(8)]!;
        c = [rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1)].map((x) => x * scale);
        if (rng.chance(0.5)) c[rng.int(4)] = (rng.chance(0.5) ? 1 : -1) * Math.abs(c[rng.int(4)]!);
      }
      const [x, y, z, w] = c as [number, number, number, number];
      expect(q({ rot: { x, y, z, w }, fine: { x: -y, y: x, z: w, w: -z } }, row, 0, [], 0)).toBe(true);
      expect(quatCodes(x, y, z, w, 12)).toBe(true);
      expect([...row.subarray(0, 4)]).toEqual([...QUAT_CODES]);
      expect(quatCodes(-y, x, w, -z, 16)).toBe(true);
      expect([...row.subarray(4, 8)]).toEqual([...QUAT_CODES]);
    }
    for (const bad of [[0, 0, 0, 0], [NaN, 0, 0, 1], [Infinity, 0, 0, 1], [1e-170, 0, 0, 0]]) {
      const [x, y, z, w] = bad as [number, number, number, number];
      expect(q({ rot: { x, y, z, w }, fine: { x: 0, y: 0, z: 0, w: 1 } }, row, 0, [], 0)).toBe(false);
      expect(quatCodes(x, y, z, w, 12)).toBe(false);
    }
  });

  it('rounds exactly like Math.round, also where floor(p + 0.5) alone would not', () => {
    // The compiled quantizer rounds as floor(p) + (fraction >= 1/2), with the comparison as a 0/1 value (no branch).
    // Factor 1 puts the edge cases on the rounding exactly; factor 1000 and quaternions get random values.
    const p = defineProtocol({ ghosts: { g: ghost({ one: field.vec3({ quantize: 1 }), mm: field.f32({ quantize: 1000 }), rot: field.quat() }) } });
    const g = compileLayouts(p)[0]!;
    const q = compileQuantizer(g);
    const m = g.slotCount;
    const edge = [0.49999999999999994, -0.49999999999999994, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0, -0, 1e-300, -1e-300, 2 ** 31 - 1.5, 2 ** 31 - 0.5, -(2 ** 31) + 0.5, 2 ** 52 + 1, NaN, Infinity];
    const rng = new Rng(9);
    for (let i = 0; i < 3000; i++) {
      const pick = (): number => (i < edge.length ? edge[i]! : rng.chance(0.1) ? edge[rng.int(edge.length)]! : rng.range(-1e4, 1e4));
      const values = { one: { x: pick(), y: rng.range(-10, 10), z: pick() }, mm: rng.range(-1e3, 1e3), rot: randomQuat(rng) };
      const a = new Int32Array(m);
      const b = new Int32Array(m);
      const okA = q(values, a, 0, [], 0);
      let okB = true;
      try {
        quantizeInto(g.fields, values, b, 0, [], 0, 1, 'g');
      } catch {
        okB = false;
      }
      expect(okA).toBe(okB);
      if (okA) expect(a).toEqual(b);
    }
    const half = new Int32Array(m);
    expect(q({ one: { x: 0.49999999999999994, y: -0.5, z: 2.5 }, mm: 0, rot: { x: 0, y: 0, z: 0, w: 1 } }, half, 0, [], 0)).toBe(true);
    expect([...half.subarray(0, 3)]).toEqual([0, 0, 3]);
  });

  it('writes the same bodies as the portable DeltaWriter, with and without a prediction baseline', () => {
    const rng = new Rng(4);
    const writers = compileBodyWriters(layout);
    const portable = new DeltaWriter();
    const q = compileQuantizer(layout);
    const row = (): { r: Int32Array; s: string[] } => {
      const r = new Int32Array(n);
      const s = new Array<string>(sn).fill('');
      q(randomEvery(rng), r, 0, s, 0);
      return { r, s };
    };
    for (let i = 0; i < 400; i++) {
      const cur = row();
      const near = rng.chance(0.3); // small residuals (the table-coded path), as for moving ghosts
      const b0 = rng.chance(0.3) || near ? { r: cur.r.slice(), s: [...cur.s] } : row(); // sometimes unchanged
      if (near) for (let j = 0; j < n; j++) if (rng.chance(0.5)) b0.r[j] = (b0.r[j]! + rng.int(7) - 3) | 0;
      const b1 = row();
      const base = emptyBaselines();
      Object.assign(base, { b0: b0.r, b0s: b0.s, b1: rng.chance(0.5) ? b1.r : null, dt0: 1 + rng.int(9), dt1: 1 + rng.int(9) });
      for (const view of [0, 1] as const) {
        let usedA = false;
        let usedB = false;
        const a = bytesOf((s) => (usedA = writers[view](s, cur.r, 0, cur.s, 0, base)));
        const b = bytesOf((s) => (usedB = portable.write(s, layout.views[view], cur.r, 0, cur.s, 0, base, n)));
        expect(a).toEqual(b);
        expect(usedA).toBe(usedB);
      }
    }
  });
});

describe('generated snapshot functions', () => {
  const mode = (values: [string, ...string[]]) => defineProtocol({ ghosts: { unit: ghost({ pos: field.vec3({ quantize: 100 }), mode: field.enum(values) }) } });

  it('are shared by every encoder of the same layouts (one call target for all rooms), and differ where the layouts do', () => {
    const a = compileLayouts(mode(['idle', 'run']))[0]!;
    const b = compileLayouts(mode(['idle', 'run']))[0]!;
    const c = compileLayouts(mode(['run', 'idle']))[0]!;
    expect(compileQuantizer(a)).toBe(compileQuantizer(b));
    expect(compileBodyWriters(a)[1]).toBe(compileBodyWriters(b)[1]);
    expect(compileSteadyWriters(a)![1]).toBe(compileSteadyWriters(b)![1]);
    // Same source, other enum values: the enum table is part of the function, so it is another one...
    expect(compileQuantizer(c)).not.toBe(compileQuantizer(a));
    expect(compileSteadyWriters(c)![1]).not.toBe(compileSteadyWriters(a)![1]);
    // ...and each quantizes with its own table.
    const row = new Int32Array(8);
    expect(compileQuantizer(a)({ pos: { x: 0, y: 0, z: 0 }, mode: 'run' }, row, 0, [], 0)).toBe(true);
    const runInA = row[a.fields[1]!.slot];
    expect(compileQuantizer(c)({ pos: { x: 0, y: 0, z: 0 }, mode: 'run' }, row, 0, [], 0)).toBe(true);
    expect([runInA, row[c.fields[1]!.slot]]).toEqual([1, 0]);
    // The body writers capture no per-layout data: one per distinct source.
    expect(compileBodyWriters(c)[1]).toBe(compileBodyWriters(a)[1]);
  });
});
