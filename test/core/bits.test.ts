import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter, codes, encodeQuat, quantizeQuat, type QuatLike } from '../../src/core/bits.ts';
import { NetcodeError, WireError } from '../../src/core/errors.ts';
import { Rng } from '../../src/core/rng.ts';

function wireCode(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof WireError) return e.code;
    if (e instanceof NetcodeError) return `netcode:${e.code}`;
    throw e;
  }
  return 'no error';
}

function bytes(fn: (w: BitWriter) => void): Uint8Array {
  const w = new BitWriter(4);
  fn(w);
  return w.toBytes();
}

describe('BitWriter / BitReader layout', () => {
  it('is LSB-first within a byte and little-endian across bytes', () => {
    const out = bytes((w) => {
      w.writeBits(1, 1);
      w.writeBits(0b10, 2);
      w.writeBits(0xff, 8);
    });
    expect([...out]).toEqual([0b1111_1101, 0b0000_0111]);
    expect([...bytes((w) => w.writeBits(0x12345678, 32))]).toEqual([0x78, 0x56, 0x34, 0x12]);
  });

  it('round-trips 0, 1 and max at every width 1..32 at every bit offset 0..7', () => {
    for (let offset = 0; offset < 8; offset++) {
      const w = new BitWriter(8);
      w.writeBits(0, offset);
      for (let bits = 1; bits <= 32; bits++) for (const v of [0, 1, 2 ** bits - 1]) w.writeBits(v, bits);
      const r = new BitReader(w.toBytes());
      expect(r.readBits(offset)).toBe(0);
      for (let bits = 1; bits <= 32; bits++) for (const v of [0, 1, 2 ** bits - 1]) expect(r.readBits(bits)).toBe(v);
      r.expectEnd();
    }
  });

  it('writes the full 32-bit value 0xffffffff and masks writeBits input to its width', () => {
    const w = new BitWriter();
    w.writeBits(1, 3);
    w.writeBits(0xffffffff, 32);
    w.writeBits(0x1ff, 4);
    const r = new BitReader(w.toBytes());
    expect(r.readBits(3)).toBe(1);
    expect(r.readBits(32)).toBe(0xffffffff);
    expect(r.readBits(4)).toBe(0xf);
    expect(r.remainingBits).toBe(1);
  });

  it('round-trips a seeded random mixed-width sequence', () => {
    const rng = new Rng(99);
    const items: [number, number][] = [];
    const w = new BitWriter(16);
    for (let i = 0; i < 5000; i++) {
      const bits = rng.int(33);
      const v = bits === 32 ? rng.nextUint32() : rng.nextUint32() % 2 ** bits;
      items.push([v, bits]);
      w.writeBits(v, bits);
    }
    const r = new BitReader(w.view());
    for (const [v, bits] of items) expect(r.readBits(bits)).toBe(v);
    expect(r.remainingBits).toBeLessThan(8);
  });

  it('rejects bit widths outside 0..32 as usage errors', () => {
    expect(wireCode(() => new BitWriter().writeBits(0, 33))).toBe('netcode:usage');
    expect(wireCode(() => new BitReader(new Uint8Array(8)).readBits(-1))).toBe('netcode:usage');
  });
});

describe('integers', () => {
  it('writeUint / writeInt round-trip the range ends of every width and reject values outside', () => {
    for (let bits = 1; bits <= 32; bits++) {
      const w = new BitWriter();
      const [lo, hi] = [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1];
      w.writeUint(0, bits);
      w.writeUint(2 ** bits - 1, bits);
      w.writeInt(lo, bits);
      w.writeInt(hi, bits);
      w.writeInt(bits === 1 ? 0 : -1, bits);
      const r = new BitReader(w.toBytes());
      expect([r.readUint(bits), r.readUint(bits), r.readInt(bits), r.readInt(bits), r.readInt(bits)]).toEqual([0, 2 ** bits - 1, lo, hi, bits === 1 ? 0 : -1]);
      expect(wireCode(() => w.writeUint(2 ** bits, bits))).toBe('wire/bad-value');
      expect(wireCode(() => w.writeInt(hi + 1, bits))).toBe('wire/bad-value');
      expect(wireCode(() => w.writeInt(lo - 1, bits))).toBe('wire/bad-value');
    }
    const w = new BitWriter();
    for (const bad of [-1, 1.5, NaN, Infinity]) expect(wireCode(() => w.writeUint(bad, 8))).toBe('wire/bad-value');
    expect(w.bitLength).toBe(0);
  });

  it('writes bools as one bit', () => {
    const w = new BitWriter();
    w.writeBool(true);
    w.writeBool(false);
    w.writeBool(true);
    expect(w.bitLength).toBe(3);
    const r = new BitReader(w.toBytes());
    expect([r.readBool(), r.readBool(), r.readBool()]).toEqual([true, false, true]);
  });

  it('varuint uses 8 bits per 7-bit group at the boundaries', () => {
    const cases: [number, number][] = [[0, 8], [1, 8], [127, 8], [128, 16], [16383, 16], [16384, 24], [2 ** 21 - 1, 24], [2 ** 21, 32], [2 ** 28 - 1, 32], [2 ** 28, 40], [2 ** 32 - 1, 40]];
    const w = new BitWriter();
    for (const [v, size] of cases) {
      const before = w.bitLength;
      w.writeBits(1, 1); // keep the groups off byte boundaries
      w.writeVarUint(v);
      expect(w.bitLength - before - 1).toBe(size);
    }
    const r = new BitReader(w.toBytes());
    for (const [v] of cases) {
      expect(r.readBits(1)).toBe(1);
      expect(r.readVarUint()).toBe(v);
    }
    for (const bad of [-1, 2 ** 32, 0.5, NaN]) expect(wireCode(() => w.writeVarUint(bad))).toBe('wire/bad-value');
    expect([...bytes((x) => x.writeVarUint(300))]).toEqual([0xac, 0x02]);
  });

  it('rejects bad varuints: a 6th group, a value above 2^32-1, a missing group', () => {
    expect(new BitReader(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x0f)).readVarUint()).toBe(2 ** 32 - 1);
    expect(wireCode(() => new BitReader(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x00)).readVarUint())).toBe('wire/bad-value');
    expect(wireCode(() => new BitReader(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x1f)).readVarUint())).toBe('wire/bad-value');
    expect(wireCode(() => new BitReader(Uint8Array.of(0x80)).readVarUint())).toBe('wire/end-of-data');
  });

  it('varint zigzags int32 so small magnitudes are short', () => {
    const cases: [number, number][] = [[0, 8], [-1, 8], [1, 8], [-64, 8], [63, 8], [64, 16], [-65, 16], [-(2 ** 31), 40], [2 ** 31 - 1, 40]];
    const w = new BitWriter();
    for (const [v, size] of cases) {
      const before = w.bitLength;
      w.writeVarInt(v);
      expect(w.bitLength - before).toBe(size);
    }
    const r = new BitReader(w.toBytes());
    for (const [v] of cases) expect(r.readVarInt()).toBe(v);
    for (const bad of [2 ** 31, -(2 ** 31) - 1, 0.5]) expect(wireCode(() => w.writeVarInt(bad))).toBe('wire/bad-value');
  });
});

describe('floats', () => {
  it('round-trips float32 bit patterns including -0, the largest float and the smallest subnormal', () => {
    const values = [0, -0, 1.5, Math.fround(0.1), -123456.5, 3.4028234663852886e38, 1.401298464324817e-45];
    const w = new BitWriter();
    w.writeBits(0, 5);
    for (const v of values) w.writeF32(v);
    expect(w.bitLength).toBe(5 + 32 * values.length);
    const r = new BitReader(w.toBytes());
    r.readBits(5);
    for (const v of values) expect(Object.is(r.readF32(), v)).toBe(true);
    expect(new BitReader(bytes((x) => x.writeF32(0.1))).readF32()).toBe(Math.fround(0.1));
  });

  it('refuses to write or read NaN and ±Infinity (including finite values that overflow float32)', () => {
    for (const bad of [NaN, Infinity, -Infinity, 1e39]) expect(wireCode(() => new BitWriter().writeF32(bad))).toBe('wire/bad-value');
    for (const raw of [0x7fc00000, 0x7f800000, 0xff800000, 0x7f800001]) {
      expect(wireCode(() => new BitReader(bytes((w) => w.writeBits(raw, 32))).readF32())).toBe('wire/bad-value');
    }
  });

  it('quantizes as round(v*factor) zigzag varints and reads rounded/factor', () => {
    const w = new BitWriter();
    w.writeQuantized(1.234, 100);
    w.writeQuantized(-0.004, 100);
    w.writeQuantized((2 ** 31 - 1) / 100, 100);
    w.writeQuantized(-(2 ** 31 - 1) / 100, 100);
    const r = new BitReader(w.toBytes());
    expect(r.readQuantized(100)).toBe(1.23);
    expect(Object.is(r.readQuantized(100), 0)).toBe(true);
    expect(r.readQuantized(100)).toBe((2 ** 31 - 1) / 100);
    expect(r.readQuantized(100)).toBe(-(2 ** 31 - 1) / 100);
    for (const bad of [2 ** 31 / 100, -(2 ** 31) / 100, NaN, Infinity]) expect(wireCode(() => w.writeQuantized(bad, 100))).toBe('wire/bad-value');
    expect(wireCode(() => w.writeQuantized(1, 0))).toBe('netcode:usage');
  });
});

/** A uniformly random unit quaternion (rejection-sampled from the 4-cube). */
function randomQuat(rng: Rng): QuatLike {
  for (;;) {
    const [x, y, z, w] = [rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1)];
    const n = Math.sqrt(x * x + y * y + z * z + w * w);
    if (n > 0.1 && n <= 1) return { x: x / n, y: y / n, z: z / n, w: w / n };
  }
}

describe('quaternions (smallest three)', () => {
  it('round-trips the identity exactly in 2 + 3*bits bits', () => {
    const w = new BitWriter();
    w.writeQuat(0, 0, 0, 1, 12);
    expect(w.bitLength).toBe(38);
    expect(new BitReader(w.toBytes()).readQuat(12)).toEqual({ x: 0, y: 0, z: 0, w: 1 });
    const w2 = new BitWriter();
    w2.writeQuat(0, 0, 0, -5, 4); // normalised, sign flipped
    expect(new BitReader(w2.toBytes()).readQuat(4)).toEqual({ x: 0, y: 0, z: 0, w: 1 });
  });

  // Error bound. The three small components lie in [-1/√2, 1/√2] and are rounded to a
  // grid of step s = (1/√2)/(2^(bits-1)-1), so each is off by at most e = s/2. The largest
  // component L >= 1/2 is rebuilt as L' = sqrt(1 - Σc'²); with |c_i'-c_i| <= e,
  // |L'² - L²| <= e(2Σ|c_i| + 3e) <= e(3 + 3e) =: A   (Σ|c_i| <= √3·√(1-L²) <= 3/2 at L = 1/2),
  // and |L' - L|(2L - |L'-L|) <= A gives |L' - L| <= δ = (1 - √(1 - 4A))/2 ≈ 3e.
  // So every component is within δ (the small three within e), about 1.5 × (1/2^(bits-1))·(1/√2).
  it.each([4, 8, 12, 16])('stays within the derived bound over 10,000 random unit quaternions (bits=%i), for q and -q', (bits) => {
    const e = Math.SQRT1_2 / ((2 ** (bits - 1) - 1) * 2);
    const A = e * (3 + 3 * e);
    const delta = (1 - Math.sqrt(1 - 4 * A)) / 2;
    const rng = new Rng(1234 + bits);
    const w = new BitWriter();
    const wn = new BitWriter();
    const r = new BitReader();
    const out = { x: 0, y: 0, z: 0, w: 0 };
    let worstSmall = 0;
    let worstAll = 0;
    for (let i = 0; i < 10_000; i++) {
      const q = randomQuat(rng);
      const comps = [q.x, q.y, q.z, q.w];
      const big = comps.reduce((m, c, j) => (Math.abs(c) > Math.abs(comps[m]!) ? j : m), 0);
      const sign = comps[big]! < 0 ? -1 : 1;
      w.reset().writeQuat(q.x, q.y, q.z, q.w, bits);
      wn.reset().writeQuat(-q.x, -q.y, -q.z, -q.w, bits);
      expect(wn.view()).toEqual(w.view());
      expect(r.reset(w.view()).readQuat(bits, out)).toBe(out);
      const got = [out.x, out.y, out.z, out.w];
      expect(Math.abs(Math.hypot(...got) - 1)).toBeLessThan(1e-12);
      expect(quantizeQuat(q, bits)).toEqual(out);
      for (let j = 0; j < 4; j++) {
        const err = Math.abs(got[j]! - sign * comps[j]!);
        worstAll = Math.max(worstAll, err);
        if (j !== big) worstSmall = Math.max(worstSmall, err);
      }
    }
    expect(worstSmall).toBeLessThanOrEqual(e + 1e-12);
    expect(worstAll).toBeLessThanOrEqual(delta + 1e-12);
    expect(worstSmall).toBeGreaterThan(0.9 * e); // the grid really is this coarse: the bound is tight
    if (bits === 12) expect(delta).toBeLessThan(5.2e-4);
  });

  it('encodes like the plain definition (first largest |component|, k = ±max/√½/len, round, clamp) on ties, signs and extreme lengths', () => {
    // encodeQuat has no branch on the data; this is the definition it must equal, written as a loop.
    const plain = (q: number[], bits: number): number[] | null => {
      const len = Math.sqrt(q[0]! * q[0]! + q[1]! * q[1]! + q[2]! * q[2]! + q[3]! * q[3]!);
      if (!(len > 0 && len < Infinity)) return null;
      let idx = 0;
      for (let i = 1; i < 4; i++) if (Math.abs(q[i]!) > Math.abs(q[idx]!)) idx = i;
      const max = (1 << (bits - 1)) - 1;
      const k = (q[idx]! < 0 ? -max : max) / Math.SQRT1_2 / len;
      const out = [idx];
      for (let i = 0; i < 4; i++) if (i !== idx) out.push(Math.min(max, Math.max(-max, Math.round(q[i]! * k))) + max);
      return out;
    };
    const h = Math.SQRT1_2;
    const special = [[0.5, 0.5, 0.5, 0.5], [-0.5, 0.5, -0.5, 0.5], [h, h, 0, 0], [0, -h, h, 0], [0, 0, -h, -h], [h, 0, 0, -h], [1, 0, 0, 0], [0, 0, 0, -1],
      [-0, 0, -0, 1], [3, 3, 3, 3], [1e-150, -1e-150, 1e-150, 2e-150], [1e150, 2e150, -3e150, 1e150], [1, 1e-20, -1e-20, 0], [0, 0, 0, 0], [NaN, 0, 0, 1], [1e-170, 0, 0, 0]];
    const rng = new Rng(17);
    for (let i = 0; i < 20_000; i++) {
      let q = special[i];
      if (q === undefined) {
        const scale = [1, 1, 1e3, 1e-145, 1e-158, 1e-160, 1e145][rng.int(7)]!;
        q = [0, 1, 2, 3].map(() => rng.range(-1, 1) * scale);
        if (rng.chance(0.5)) q[rng.int(4)] = (rng.chance(0.5) ? 1 : -1) * Math.abs(q[rng.int(4)]!);
      }
      const bits = 4 + rng.int(13);
      const got = encodeQuat(q[0]!, q[1]!, q[2]!, q[3]!, bits) ? [...codes] : null;
      const want = plain(q, bits);
      if (JSON.stringify(got) !== JSON.stringify(want)) expect([q, bits, got]).toEqual([q, bits, want]);
    }
  });

  it('rejects NaN, zero and infinite quaternions and bits outside 4..16', () => {
    const w = new BitWriter();
    expect(wireCode(() => w.writeQuat(NaN, 0, 0, 1, 12))).toBe('wire/bad-value');
    expect(wireCode(() => w.writeQuat(0, 0, 0, 0, 12))).toBe('wire/bad-value');
    expect(wireCode(() => w.writeQuat(Infinity, 0, 0, 1, 12))).toBe('wire/bad-value');
    expect(wireCode(() => w.writeQuat(0, 0, 0, 1, 3))).toBe('netcode:usage');
    expect(wireCode(() => w.writeQuat(0, 0, 0, 1, 17))).toBe('netcode:usage');
    expect(w.bitLength).toBe(0);
  });

  it('rejects component codes beyond the grid and small three longer than a unit quaternion', () => {
    // bits=4: codes 0..14 (q+7); 15 is off the grid.
    const offGrid = bytes((w) => [3, 15, 7, 7].forEach((v, i) => w.writeBits(v, i === 0 ? 2 : 4)));
    expect(wireCode(() => new BitReader(offGrid).readQuat(4))).toBe('wire/bad-value');
    // three components of 1/√2 each: squares sum to 1.5 > 1.
    const tooLong = bytes((w) => [3, 14, 14, 14].forEach((v, i) => w.writeBits(v, i === 0 ? 2 : 4)));
    expect(wireCode(() => new BitReader(tooLong).readQuat(4))).toBe('wire/bad-value');
    // two at 1/√2: sum exactly 1 (up to rounding) decodes with the largest clamped to 0.
    const edge = new BitReader(bytes((w) => [3, 14, 14, 7].forEach((v, i) => w.writeBits(v, i === 0 ? 2 : 4)))).readQuat(4);
    expect(edge.w).toBeLessThan(1e-7);
    expect(edge.x).toBeCloseTo(Math.SQRT1_2, 15);
  });
});

describe('strings and bytes', () => {
  const samples = ['', 'hello', 'héllo', '日本語', '😀 emoji', '\uFEFFbom first', 'a'.repeat(300)];

  it('round-trips UTF-8 strings aligned and unaligned, with varuint byte length', () => {
    for (const offset of [0, 3]) {
      const w = new BitWriter(2);
      w.writeBits(0, offset);
      for (const s of samples) w.writeString(s, 300);
      const r = new BitReader(w.toBytes());
      r.readBits(offset);
      for (const s of samples) expect(r.readString(300)).toBe(s);
      r.expectEnd();
    }
    expect(bytes((w) => w.writeString('héllo', 5)).length).toBe(7);
    expect([...bytes((w) => w.writeString('😀', 2))]).toEqual([4, 0xf0, 0x9f, 0x98, 0x80]);
  });

  it('enforces maxLength on write and read, and rejects lone surrogates and invalid UTF-8', () => {
    expect(wireCode(() => new BitWriter().writeString('abc', 2))).toBe('wire/too-large');
    expect(wireCode(() => new BitWriter().writeString('a\uD800b', 10))).toBe('wire/bad-value');
    expect(wireCode(() => new BitWriter().writeString('\uDC00', 10))).toBe('wire/bad-value');
    expect(wireCode(() => new BitReader(bytes((w) => w.writeString('abcd', 4))).readString(3))).toBe('wire/too-large');
    expect(wireCode(() => new BitReader(Uint8Array.of(10, ...new Array<number>(10).fill(97))).readString(3))).toBe('wire/too-large');
    expect(wireCode(() => new BitReader(Uint8Array.of(2, 0xc3, 0x28)).readString(10))).toBe('wire/bad-value');
    expect(wireCode(() => new BitReader(Uint8Array.of(2, 0xc0, 0x80)).readString(10))).toBe('wire/bad-value');
    expect(wireCode(() => new BitReader(Uint8Array.of(3, 0xed, 0xa0, 0x80)).readString(10))).toBe('wire/bad-value');
    expect(wireCode(() => new BitReader(Uint8Array.of(5, 97, 98)).readString(10))).toBe('wire/end-of-data');
  });

  it('round-trips byte arrays and returns copies that do not alias the message', () => {
    const payload = Uint8Array.of(1, 2, 3, 250);
    for (const offset of [0, 5]) {
      const w = new BitWriter(1);
      w.writeBits(0, offset);
      w.writeBytes(payload);
      w.writeBytes(new Uint8Array(0));
      const data = w.toBytes();
      const r = new BitReader(data);
      r.readBits(offset);
      const got = r.readBytes(4);
      expect(got).toEqual(payload);
      expect(r.readBytes(0)).toEqual(new Uint8Array(0));
      data.fill(0);
      expect(got).toEqual(payload);
    }
    expect(wireCode(() => new BitReader(bytes((w) => w.writeBytes(payload))).readBytes(3))).toBe('wire/too-large');
  });
});

describe('reader bounds', () => {
  it('respects byteOffset/byteLength of Node Buffer views', () => {
    const msg = bytes((w) => {
      w.writeVarUint(300);
      w.writeString('hi', 8);
      w.writeBits(5, 3);
    });
    const sliced = Buffer.concat([Buffer.alloc(5, 0xff), msg, Buffer.alloc(5, 0xff)]).subarray(5, 5 + msg.length);
    expect(sliced.byteOffset).toBeGreaterThan(0);
    expect(new Uint8Array(sliced.buffer, sliced.byteOffset - 1, 1)[0]).toBe(0xff);
    Buffer.from([9, 9, 9]); // make sure the next small Buffer lands mid-pool
    const pooled = Buffer.from(msg);
    expect(pooled.byteOffset).toBeGreaterThan(0);
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.byteLength);
    for (const data of [sliced, pooled]) {
      const r = new BitReader(data);
      expect(r.remainingBits).toBe(msg.length * 8);
      expect([r.readVarUint(), r.readString(8), r.readBits(3)]).toEqual([300, 'hi', 5]);
      r.expectEnd();
      // the 0xff bytes after the view are never read
      expect(wireCode(() => r.readBits(8))).toBe('wire/end-of-data');
    }
  });

  const message = (w: BitWriter): void => {
    w.writeBool(true);
    w.writeVarUint(70000);
    w.writeVarInt(-5);
    w.writeF32(2.5);
    w.writeQuantized(3.14159, 1000);
    w.writeQuat(0.1, 0.7, -0.2, 0.5, 12);
    w.writeString('netcode ✓', 32);
    w.writeBytes(Uint8Array.of(7, 8));
    w.writeInt(-3, 5);
  };
  const decode = (r: BitReader): unknown[] => {
    const out = [r.readBool(), r.readVarUint(), r.readVarInt(), r.readF32(), r.readQuantized(1000), r.readQuat(12), r.readString(32), r.readBytes(8), r.readInt(5)];
    r.expectEnd();
    return out;
  };

  it('throws end-of-data for every truncated prefix of a multi-field message, never returning values', () => {
    const full = bytes(message);
    const expected = decode(new BitReader(full));
    expect(expected.slice(0, 3)).toEqual([true, 70000, -5]);
    expect(expected[6]).toBe('netcode ✓');
    const r = new BitReader();
    for (let n = 0; n < full.length; n++) {
      expect(wireCode(() => decode(r.reset(full.subarray(0, n))))).toBe('wire/end-of-data');
    }
    expect(decode(r.reset(full))).toEqual(expected);
  });

  it('expectEnd accepts only zero padding under 8 bits', () => {
    const r = new BitReader(Uint8Array.of(0b0000_0101, 0));
    r.readBits(3);
    expect(wireCode(() => r.expectEnd())).toBe('wire/bad-value'); // 13 bits left
    r.readBits(8);
    expect(r.remainingBits).toBe(5);
    expect(wireCode(() => r.expectEnd())).toBe('no error');
    const dirty = new BitReader(Uint8Array.of(0b1000_0101));
    dirty.readBits(3);
    expect(wireCode(() => dirty.expectEnd())).toBe('wire/bad-value');
  });

  it('align() skips to the byte boundary on both sides', () => {
    const w = new BitWriter();
    w.writeBits(0b101, 3);
    w.align();
    expect(w.bitLength).toBe(8);
    w.align();
    expect(w.bitLength).toBe(8);
    w.writeBits(0xab, 8);
    const r = new BitReader(w.toBytes());
    expect(r.readBits(3)).toBe(0b101);
    r.align();
    expect(r.bitPosition).toBe(8);
    expect(r.readBits(8)).toBe(0xab);
  });
});

describe('BitWriter buffer management', () => {
  it('grows past its initial capacity without losing data', () => {
    const w = new BitWriter(1);
    for (let i = 0; i < 10_000; i++) w.writeBits(i & 0x1ff, 9);
    expect(w.byteLength).toBe(Math.ceil(90_000 / 8));
    const r = new BitReader(w.toBytes());
    for (let i = 0; i < 10_000; i++) expect(r.readBits(9)).toBe(i & 0x1ff);
  });

  it('reset() reuses the buffer without leaking stale bits', () => {
    const w = new BitWriter(16);
    for (let i = 0; i < 16; i++) w.writeBits(0xff, 8);
    const first = w.view();
    w.reset();
    expect(w.bitLength).toBe(0);
    w.writeBits(0b101, 3);
    w.align();
    w.writeBits(1, 1);
    expect([...w.toBytes()]).toEqual([0b101, 1]);
    expect(w.view().buffer).toBe(first.buffer); // no reallocation
  });

  it('view() is a window on the internal buffer; toBytes() is an exact-size copy', () => {
    const w = new BitWriter(64);
    w.writeBits(0xabc, 12);
    const view = w.view();
    const copy = w.toBytes();
    expect(view.length).toBe(2);
    expect(copy.length).toBe(2);
    expect(copy.buffer.byteLength).toBe(2);
    expect(view.buffer.byteLength).toBe(64);
    w.reset();
    w.writeBits(0x11, 8);
    expect(view[0]).toBe(0x11);
    expect(copy[0]).toBe(0xbc);
  });
});
