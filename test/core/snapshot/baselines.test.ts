import { describe, expect, it } from 'vitest';
import { WireError } from '../../../src/core/errors.ts';
import { Rng } from '../../../src/core/rng.ts';
import { SnapshotDecoder, SnapshotEncoder, type DecodedSnapshot } from '../../../src/core/snapshot/index.ts';
import { BOX, expected, makeGhost, protocol, randomBox } from './harness.ts';

const ids = (s: DecodedSnapshot): { spawns: number[]; updates: number[]; despawns: number[] } => ({
  spawns: s.spawns.map((g) => g.id),
  updates: s.updates.map((g) => g.id),
  despawns: [...s.despawns],
});

function moving(n: number, seed: number) {
  const rng = new Rng(seed);
  const ghosts = Array.from({ length: n }, (_, i) => makeGhost(i + 1, BOX, 0, randomBox(rng)));
  const move = (): void => {
    for (const g of ghosts) g.values.position = { x: rng.range(-50, 50), y: 1, z: rng.range(-50, 50) };
  };
  return { ghosts, move };
}

describe('snapshot baselines', () => {
  it('deltas only against acked snapshots: a client missing un-acked ones still decodes', () => {
    const { ghosts, move } = moving(20, 1);
    // Without the ack ladder every ack counts at the next tick (ladder.test.ts covers acks held back).
    const enc = new SnapshotEncoder(protocol, { budgetBytes: 60_000, ackLadder: false });
    const state = enc.createConnectionState(1);
    const a = new SnapshotDecoder(protocol, 1);
    const b = new SnapshotDecoder(protocol, 1);
    const msgs: Uint8Array[] = [];
    const send = (tick: number): Uint8Array => {
      move();
      const m = enc.encode(state, tick, ghosts).slice();
      msgs.push(m);
      return m;
    };
    // 10: both clients decode and ack. 11, 12: never delivered (lost). 13: delivered to a only, not acked.
    a.decode(send(10));
    b.decode(msgs[0]!);
    enc.ack(state, a.ackTick, a.ackMask);
    send(11);
    send(12);
    a.decode(send(13));
    // 14 may only build on 10 (the one ack): b, which never saw 11..13, decodes it.
    const m14 = send(14);
    const sa = a.decode(m14)!;
    const sb = b.decode(m14)!;
    expect(sa.updates.length).toBe(20);
    for (const [i, g] of ghosts.entries()) {
      expect(sa.updates[i]!.values).toEqual(expected(protocol, BOX, 0, 1, g.values));
      expect(sb.updates[i]!.values).toEqual(sa.updates[i]!.values);
    }
    // Now ack 13 (a has it, b does not): 15 builds on 13, so b — which never decoded 13 — cannot decode it.
    enc.ack(state, 13, 0);
    const m15 = send(15);
    expect(a.decode(m15)!.updates.length).toBe(20);
    expect(() => b.decode(m15)).toThrow(WireError);
  });

  it('repeats spawns and despawns until acked, and applies each once on the client', () => {
    const rng = new Rng(2);
    const enc = new SnapshotEncoder(protocol, { budgetBytes: 60_000 });
    const state = enc.createConnectionState(1);
    const dec = new SnapshotDecoder(protocol, 1);
    const g1 = makeGhost(1, BOX, 0, randomBox(rng));
    const g2 = makeGhost(2, BOX, 0, randomBox(rng));
    const m1 = enc.encode(state, 1, [g1, g2]).slice();
    const m2 = enc.encode(state, 2, [g1, g2]).slice();
    // No ack yet: 2 repeats both spawns. A client that lost 1 gets them from 2.
    expect(ids(new SnapshotDecoder(protocol, 1).decode(m2)!).spawns).toEqual([1, 2]);
    // The client that has 1 sees them once: spawned by 1, updated (not re-spawned) by 2.
    expect(ids(dec.decode(m1)!)).toEqual({ spawns: [1, 2], updates: [], despawns: [] });
    expect(ids(dec.decode(m2)!)).toEqual({ spawns: [], updates: [1, 2], despawns: [] });
    enc.ack(state, dec.ackTick, dec.ackMask); // acks 2 and 1
    // Acked: 3 carries updates, which a client that never had the ghosts cannot decode.
    g1.values.position = { x: 1, y: 2, z: 3 };
    const m3 = enc.encode(state, 3, [g1, g2]).slice();
    expect(() => new SnapshotDecoder(protocol, 1).decode(m3)).toThrow(WireError);
    expect(ids(dec.decode(m3)!)).toEqual({ spawns: [], updates: [1], despawns: [] }); // 2 is unchanged and acked: left out
    enc.ack(state, dec.ackTick, dec.ackMask);
    // Ghost 2 leaves: despawned in 4 and, unacked, again in 5; the client applies it once.
    const m4 = enc.encode(state, 4, [g1]).slice();
    const m5 = enc.encode(state, 5, [g1]).slice();
    expect(ids(dec.decode(m4)!).despawns).toEqual([2]);
    expect(ids(dec.decode(m5)!).despawns).toEqual([]); // already gone: idempotent
    expect(dec.ghostCount).toBe(1);
    enc.ack(state, 5, 0);
    // Acked: no more despawn records (a client still holding ghost 2 would keep it).
    const other = new SnapshotDecoder(protocol, 1);
    for (const m of [m1, m2, m3]) other.decode(m);
    expect(other.decode(enc.encode(state, 6, [g1]))!.despawns).toEqual([]);
    expect(other.ghostCount).toBe(2);
    // Ghost 2 comes back: spawned again (its old baselines are never used).
    const s7 = dec.decode(enc.encode(state, 7, [g1, g2]))!;
    expect(ids(s7).spawns).toEqual([2]);
    expect(s7.spawns[0]!.values).toEqual(expected(protocol, BOX, 0, 1, g2.values));
  });

  it('despawns a forgotten ghost and spawns a new ghost that reuses its id in the same snapshot', () => {
    const rng = new Rng(3);
    const enc = new SnapshotEncoder(protocol, { budgetBytes: 60_000 });
    const state = enc.createConnectionState(1);
    const dec = new SnapshotDecoder(protocol, 1);
    const old = makeGhost(5, BOX, 0, randomBox(rng));
    dec.decode(enc.encode(state, 1, [old]));
    enc.ack(state, dec.ackTick, dec.ackMask);
    enc.forget(5);
    const reborn = makeGhost(5, BOX, 9, randomBox(rng)); // new owner: a different ghost
    const s = dec.decode(enc.encode(state, 2, [reborn]))!;
    expect(ids(s)).toEqual({ spawns: [5], updates: [], despawns: [5] });
    expect(s.spawns[0]!.owner).toBe(9);
    expect(s.spawns[0]!.values).toEqual(expected(protocol, BOX, 9, 1, reborn.values));
  });

  it('sends the ghosts the recipient predicts in every snapshot, first, even when unchanged', () => {
    const { ghosts, move } = moving(300, 4);
    const enc = new SnapshotEncoder(protocol, { budgetBytes: 200 });
    const state = enc.createConnectionState(1);
    const dec = new SnapshotDecoder(protocol, 1);
    const predicted = new Set([7, 150, 299]);
    const still = ghosts[149]!; // ghost 150 never moves
    const stillValues = structuredClone(still.values);
    for (let t = 1; t <= 60; t++) {
      move();
      still.values = structuredClone(stillValues);
      const msg = enc.encode(state, t, ghosts, { predicted: (g) => predicted.has(g.id) });
      expect(msg.length).toBeLessThanOrEqual(200);
      const s = dec.decode(msg)!;
      const got = new Set([...s.spawns, ...s.updates].map((g) => g.id));
      for (const id of predicted) expect(got.has(id)).toBe(true);
      // 200 bytes cannot carry 300 moving ghosts: the snapshot is partial.
      expect(got.size).toBeLessThan(300);
      enc.ack(state, dec.ackTick, dec.ackMask);
    }
  });
});
