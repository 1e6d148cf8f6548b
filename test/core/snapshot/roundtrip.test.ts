import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../../src/core/bits.ts';
import { Rng } from '../../../src/core/rng.ts';
import { decodeAck, encodeAck, SnapshotDecoder, SnapshotEncoder, type DecodedSnapshot } from '../../../src/core/snapshot/index.ts';
import { MessageKind } from '../../../src/core/wire.ts';
import { BOX, clone, EVERY, expected, makeGhost, protocol, randomBox, randomEvery } from './harness.ts';

/** Values of ghost `id` in a decoded snapshot, or undefined when it was not in it. */
function present(s: DecodedSnapshot, id: number): Record<string, unknown> | undefined {
  return (s.spawns.find((g) => g.id === id) ?? s.updates.find((g) => g.id === id))?.values;
}

describe('snapshot round trip', () => {
  it('decodes every field kind bit-identically to field.quantize, owner and non-owner views, across deltas', () => {
    const rng = new Rng(11);
    const enc = new SnapshotEncoder(protocol, { budgetBytes: 60_000 });
    // Client 7 owns ghost 1, client 8 owns nothing: owner-only / nonOwner-only fields differ.
    const clients = [7, 8].map((nid) => ({ nid, state: enc.createConnectionState(nid), dec: new SnapshotDecoder(protocol, nid) }));
    const ghosts = [makeGhost(1, EVERY, 7, randomEvery(rng)), makeGhost(2, EVERY, 0, randomEvery(rng)), makeGhost(3, BOX, 8, randomBox(rng))];
    let checked = 0;
    for (let n = 1; n <= 40; n++) {
      const tick = 1000 + n * 2;
      for (const g of ghosts) {
        // Change some ghosts a lot, some a little, some not at all.
        if (n % 3 === 0) continue;
        const next = g.typeId === EVERY ? randomEvery(rng) : randomBox(rng);
        for (const key of Object.keys(next)) if (rng.chance(0.5)) g.values[key] = next[key];
      }
      for (const c of clients) {
        const msg = enc.encode(c.state, tick, ghosts);
        expect(msg[0]).toBe(MessageKind.Snapshot);
        const snap = c.dec.decode(msg)!;
        expect(snap.tick).toBe(tick);
        for (const g of ghosts) {
          const got = present(snap, g.id);
          if (got === undefined) continue;
          // toEqual compares numbers with Object.is: -0 and +0 differ, so this is bit-identical.
          expect(got).toEqual(expected(protocol, g.typeId, g.owner, c.nid, g.values));
          checked++;
        }
        // Ack only every other snapshot: the rest are received but never become baselines.
        if (n % 2 === 0) enc.ack(c.state, c.dec.ackTick, c.dec.ackMask);
      }
    }
    // Big budget and changes in 2 of 3 ticks: every changed ghost is in every snapshot;
    // unchanged acked ones are skipped, so fewer than 40 × 2 clients × 3 ghosts = 240 checks.
    expect(checked).toBeGreaterThan(150);
  });

  it('does not send owner-only fields to others, nonOwner fields to the owner, or replicated:false fields at all', () => {
    const rng = new Rng(3);
    const enc = new SnapshotEncoder(protocol, { budgetBytes: 60_000 });
    const values = randomEvery(rng);
    values.ammo = 77;
    values.label = 'blue team';
    values.secret = { x: 12.3, y: 4, z: 5 };
    values.local = 0.5;
    const owner = { state: enc.createConnectionState(5), dec: new SnapshotDecoder(protocol, 5) };
    const other = { state: enc.createConnectionState(6), dec: new SnapshotDecoder(protocol, 6) };
    const ghosts = [makeGhost(9, EVERY, 5, values)];
    const a = owner.dec.decode(enc.encode(owner.state, 1, ghosts))!.spawns[0]!.values;
    const b = other.dec.decode(enc.encode(other.state, 1, ghosts))!.spawns[0]!.values;
    expect(a.ammo).toBe(77);
    expect(a.secret).toEqual({ x: 12.3, y: 4, z: 5 });
    expect(a.label).toBe(''); // nonOwner field: the owner keeps the default
    expect(b.ammo).toBe(0); // owner field: others keep the default
    expect(b.secret).toEqual({ x: 0, y: 0, z: 0 });
    expect(b.label).toBe('blue team');
    expect(a.local).toBe(0); // never replicated
    expect(b.local).toBe(0);
    // The string 'blue team' (9 UTF-8 bytes + length) only goes to the non-owner, u8 + vec3 only to the owner.
    const bytes = (nid: number): number => enc.encode(enc.createConnectionState(nid), 2, ghosts).length;
    expect(bytes(6)).not.toBe(bytes(5));
  });

  it('costs at most 2 bytes for an unchanged, acked ghost (and nothing when it is not due a refresh)', () => {
    const rng = new Rng(4);
    const enc = new SnapshotEncoder(protocol, { budgetBytes: 60_000, refreshTicks: 1 });
    const state = enc.createConnectionState(1);
    const dec = new SnapshotDecoder(protocol, 1);
    const one = [makeGhost(1, BOX, 0, randomBox(rng))];
    const two = [...one, makeGhost(2, BOX, 0, randomBox(rng))];
    for (let t = 1; t <= 4; t++) {
      dec.decode(enc.encode(state, t, two));
      enc.ack(state, dec.ackTick, dec.ackMask);
    }
    // Both ghosts acked and unchanged; refreshTicks 1 makes them due every snapshot.
    const withTwo = enc.encode(state, 5, two).length;
    // Message with one ghost from an identical second connection history.
    const enc1 = new SnapshotEncoder(protocol, { budgetBytes: 60_000, refreshTicks: 1 });
    const s1 = enc1.createConnectionState(1);
    const d1 = new SnapshotDecoder(protocol, 1);
    for (let t = 1; t <= 4; t++) {
      d1.decode(enc1.encode(s1, t, one));
      enc1.ack(s1, d1.ackTick, d1.ackMask);
    }
    const withOne = enc1.encode(s1, 5, one).length;
    // The second unchanged ghost: id gap code (1 bit) + spawn bit + same-baselines bit + unchanged bit = 4 bits.
    expect(withTwo - withOne).toBeLessThanOrEqual(2);
    // With the default refresh (tickRate = 60 ticks), unchanged acked ghosts are left out entirely:
    const enc2 = new SnapshotEncoder(protocol, { budgetBytes: 60_000 });
    const s2 = enc2.createConnectionState(1);
    const d2 = new SnapshotDecoder(protocol, 1);
    for (let t = 1; t <= 4; t++) {
      d2.decode(enc2.encode(s2, t, two));
      enc2.ack(s2, d2.ackTick, d2.ackMask);
    }
    // Only the spawns at tick 1 were sent: from tick 2 on, both were acked and unchanged.
    const snap = d2.decode(enc2.encode(s2, 5, two))!;
    expect(snap.updates.length + snap.spawns.length).toBe(0);
    // ... until 60 ticks after their last send: 1 + 60 = tick 61.
    expect(d2.decode(enc2.encode(s2, 60, two))!.updates.length).toBe(0);
    expect(d2.decode(enc2.encode(s2, 61, two))!.updates.map((u) => u.id)).toEqual([1, 2]);
  });

  it('carries the player inputs section', () => {
    const enc = new SnapshotEncoder(protocol);
    const state = enc.createConnectionState(1);
    const dec = new SnapshotDecoder(protocol, 1);
    const inputs = [
      { networkId: 1, values: { move: { x: 0.5, y: -1 }, jump: true, fire: 3 } },
      { networkId: 300, values: { move: { x: 0.123, y: 0 }, jump: false, fire: 2 ** 32 - 1 } },
    ];
    const snap = dec.decode(enc.encode(state, 10, [], { inputs }))!;
    expect(snap.inputs).toEqual([
      { networkId: 1, values: { move: { x: 0.5, y: -1 }, jump: true, fire: 3 } },
      { networkId: 300, values: { move: { x: 0.12, y: 0 }, jump: false, fire: 2 ** 32 - 1 } }, // 0.123 quantized to 0.01 steps
    ]);
    expect(dec.decode(enc.encode(state, 11, []))!.inputs).toEqual([]);
  });

  it('encodes and decodes the SnapshotAck body', () => {
    const w = new BitWriter();
    encodeAck(w, 0xffff_fffe, 0x8000_0001);
    const got = decodeAck(new BitReader(w.toBytes()));
    expect(got).toEqual({ tick: 0xffff_fffe, mask: 0x8000_0001 });
    expect(w.byteLength).toBe(8); // u32 + u32
  });

  it('keeps the ack of the newest tick and a mask of the 32 before it, across the uint32 wrap', () => {
    const enc = new SnapshotEncoder(protocol);
    const state = enc.createConnectionState(1);
    const dec = new SnapshotDecoder(protocol, 1);
    expect(dec.hasAck).toBe(false);
    const ghosts = [makeGhost(1, BOX, 0, randomBox(new Rng(1)))];
    const ticks = [0xffff_fffd, 0xffff_ffff, 1, 2];
    const msgs = ticks.map((t) => enc.encode(state, t, ghosts).slice());
    dec.decode(msgs[0]!);
    dec.decode(msgs[2]!);
    expect(dec.ackTick).toBe(1);
    // 0xfffffffd is 4 ticks before 1: bit 4 − 1 = 3.
    expect(dec.ackMask).toBe(1 << 3);
    expect(dec.decode(msgs[1]!)).toBeNull(); // older than the newest: dropped, not acked
    dec.decode(msgs[3]!);
    expect(dec.ackTick).toBe(2);
    expect(dec.ackMask).toBe((1 << 0) | (1 << 4)); // tick 1 → bit 0, 0xfffffffd → bit 4
    expect(dec.decode(msgs[3]!)).toBeNull(); // duplicate
    void clone;
  });
});
