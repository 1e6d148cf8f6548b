import { describe, expect, it } from 'vitest';
import { WireError } from '../../../src/core/errors.ts';
import { Rng } from '../../../src/core/rng.ts';
import { crc16 } from '../../../src/core/snapshot/codes.ts';
import { SnapshotDecoder, SnapshotEncoder, type DecodedSnapshot } from '../../../src/core/snapshot/index.ts';
import { BOX, EVERY, makeGhost, protocol, randomBox, randomEvery } from './harness.ts';

/** A deep copy of what a decode returned (the decoder reuses its objects). */
const summary = (s: DecodedSnapshot | null): unknown => structuredClone(s);

/** Three real snapshots of a mixed scene, the third against acked baselines of the first two. */
function scene(): Uint8Array[] {
  const rng = new Rng(99);
  const enc = new SnapshotEncoder(protocol, { budgetBytes: 4000 });
  const state = enc.createConnectionState(2);
  const dec = new SnapshotDecoder(protocol, 2);
  const ghosts = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? makeGhost(i + 1, EVERY, i % 4, randomEvery(rng)) : makeGhost(i + 1, BOX, 0, randomBox(rng))));
  const inputs = [{ networkId: 2, values: { move: { x: 0.25, y: 1 }, jump: true, fire: 9 } }];
  const out: Uint8Array[] = [];
  for (let t = 1; t <= 4; t++) {
    for (const g of ghosts) if (rng.chance(0.7)) g.values = g.typeId === EVERY ? randomEvery(rng) : randomBox(rng);
    const live = t === 4 ? ghosts.slice(3) : ghosts; // the last one also despawns three
    const m = enc.encode(state, t * 2, live, { inputs }).slice();
    dec.decode(m);
    enc.ack(state, dec.ackTick, dec.ackMask);
    out.push(m);
  }
  return out;
}

/** A decoder that has decoded `prefix`. */
function decoderAfter(prefix: readonly Uint8Array[]): SnapshotDecoder {
  const d = new SnapshotDecoder(protocol, 2);
  for (const m of prefix) d.decode(m);
  return d;
}

/** Put a valid CRC on a damaged message, so the parser itself meets the damage. */
function recrc(m: Uint8Array): Uint8Array {
  if (m.length < 3) return m;
  const c = crc16(m, 3, m.length);
  m[1] = c & 0xff;
  m[2] = c >>> 8;
  return m;
}

describe('snapshot decoding of damaged data', () => {
  const msgs = scene();
  const prefix = msgs.slice(0, 3);
  const good = msgs[3]!;
  const want = summary(decoderAfter(prefix).decode(good));

  /** Decode `bad`: it must throw WireError (then the state is untouched: `good` decodes as usual) or decode. */
  function attempt(bad: Uint8Array, mustThrow: boolean): 'threw' | 'decoded' {
    const d = decoderAfter(prefix);
    try {
      d.decode(bad);
    } catch (e) {
      expect(e).toBeInstanceOf(WireError);
      expect(summary(d.decode(good))).toEqual(want);
      return 'threw';
    }
    expect(mustThrow).toBe(false);
    return 'decoded';
  }

  it('rejects every truncation, with or without a matching checksum, and stays intact', () => {
    let threw = 0;
    for (let len = 0; len < good.length; len++) {
      // The CRC covers every byte, so a cut is always caught (there is no zero padding to lose: the last byte holds data).
      if (attempt(good.slice(0, len), true) === 'threw') threw++;
      // Even with a valid CRC the parser runs out of bits or finds garbage.
      if (len >= 3 && attempt(recrc(good.slice(0, len)), false) === 'threw') threw++;
    }
    expect(threw).toBeGreaterThan(good.length * 2 - 10);
  });

  it('rejects byte flips (CRC-16 catches every burst up to 16 bits) and survives flips behind a valid CRC', () => {
    const rng = new Rng(5);
    let decoded = 0;
    for (let i = 0; i < 600; i++) {
      const bad = good.slice();
      const at = rng.int(bad.length);
      bad[at] = bad[at]! ^ (1 + rng.int(255));
      attempt(bad, true);
      // Same damage with a fixed-up CRC: WireError or a decode, never another exception or a corrupted decoder.
      if (at >= 3 && attempt(recrc(bad.slice()), false) === 'decoded') decoded++;
    }
    // Most flips behind a valid CRC still break some structure; a few decode to other valid values.
    expect(decoded).toBeLessThan(600);
  });

  it('names wrong messages: other kinds, too short', () => {
    const d = new SnapshotDecoder(protocol, 2);
    const other = good.slice();
    other[0] = 7;
    expect(() => d.decode(other)).toThrow(expect.objectContaining({ code: 'wire/unknown-message' }));
    expect(() => d.decode(new Uint8Array(4))).toThrow(expect.objectContaining({ code: 'wire/end-of-data' }));
    expect(d.hasAck).toBe(false);
    expect(summary(decoderAfter(prefix).decode(good))).toEqual(want);
  });
});
