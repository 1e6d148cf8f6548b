// Merging behind (SnapshotEncoder's mergeBehind): clients that lost a snapshot their group acked share its
// encode again once their newest baselines agree. The same seeded run (loss, duplication, reordering of
// snapshots and acks) through an encoder with it and one without: every client decodes the same ghost values
// and sends the same acks after every snapshot, with fewer encodes.

import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { decodeAck, encodeAck, SnapshotDecoder, SnapshotEncoder } from '../../../src/core/snapshot/index.ts';
import { BOX, EVERY, expected, LossyLink, makeGhost, protocol, randomBox, randomEvery } from './harness.ts';
import { BitReader, BitWriter } from '../../../src/core/bits.ts';

type Values = Record<string, unknown>;
const CLIENTS = 12;

interface Link { loss: number; dup: number; delay: number }

/** One encoder and its clients, each with a seeded lossy link down (snapshots) and up (acks). */
function setup(mergeBehind: boolean, link: Link) {
  const enc = new SnapshotEncoder(protocol, { budgetBytes: 60_000, mergeBehind });
  const clients = Array.from({ length: CLIENTS }, (_, i) => ({
    nid: i + 1,
    state: enc.createConnectionState(i + 1),
    dec: new SnapshotDecoder(protocol, i + 1),
    down: new LossyLink(new Rng(100 + i), link.loss, link.dup, link.delay),
    up: new LossyLink(new Rng(200 + i), link.loss, link.dup, link.delay),
    has: new Map<number, Values>(),
  }));
  return { enc, clients, sent: [] as Uint8Array[] };
}

describe('merging behind', () => {
  it.each([
    { name: '5% loss, 5% duplication, delays of 0-4 ticks (reordering)', link: { loss: 0.05, dup: 0.05, delay: 4 }, fewer: 0.995 },
    { name: '5% loss, acks at once', link: { loss: 0.05, dup: 0, delay: 0 }, fewer: 0.97 },
  ])('gives every client the ghost values and acks it would decode without it, with fewer encodes ($name)', ({ link, fewer }) => {
    const rng = new Rng(4_711);
    const ghosts = Array.from({ length: 40 }, (_, i) => {
      const every = i % 6 === 0;
      return makeGhost(i + 1, every ? EVERY : BOX, every ? 1 + (i % CLIENTS) : 0, every ? randomEvery(rng) : randomBox(rng));
    });
    const speed = ghosts.map(() => ({ x: rng.range(-0.2, 0.2), z: rng.range(-0.2, 0.2) }));
    const runs = [setup(true, link), setup(false, link)];
    let differ = 0;
    for (let tick = 3; tick <= 450; tick += 3) {
      ghosts.forEach((g, i) => {
        if (g.typeId !== BOX) {
          if (rng.chance(0.2)) g.values.small = rng.int(256);
          return;
        }
        const p = g.values.position as { x: number; z: number };
        p.x += speed[i]!.x;
        p.z += speed[i]!.z;
      });
      const now = ghosts.map((g) => [g.id, g] as const);
      for (const run of runs) {
        for (const c of run.clients) {
          for (const a of c.up.receive(tick)) {
            const ack = decodeAck(new BitReader(a));
            run.enc.ack(c.state, ack.tick, ack.mask);
          }
        }
        run.clients.forEach((c, k) => {
          const msg = run.enc.encode(c.state, tick, ghosts);
          run.sent[k] = msg.slice();
          c.down.send(tick, msg);
          for (const m of c.down.receive(tick)) {
            const out = c.dec.decode(m); // throws on a baseline the client does not hold
            if (out === null) continue; // older than the newest decoded one, or a duplicate
            for (const s of out.spawns) c.has.set(s.id, s.values);
            for (const u of out.updates) c.has.set(u.id, u.values);
            for (const id of out.despawns) c.has.delete(id);
            const w = new BitWriter();
            encodeAck(w, c.dec.ackTick, c.dec.ackMask);
            c.up.send(tick, w.toBytes());
          }
        });
      }
      for (let k = 0; k < CLIENTS; k++) if (!sameBytes(runs[0]!.sent[k]!, runs[1]!.sent[k])) differ++;
      // Same acks and values on every client after every tick, with or without merging behind.
      for (let k = 0; k < CLIENTS; k++) {
        const [a, b] = [runs[0]!.clients[k]!, runs[1]!.clients[k]!];
        expect([a.dec.ackTick, a.dec.ackMask]).toEqual([b.dec.ackTick, b.dec.ackMask]);
        expect(a.has).toEqual(b.has);
      }
      // And they are the server's values when the snapshot of this tick was decoded (checked every 5th snapshot).
      for (const [k, c] of runs[0]!.clients.entries()) {
        if (c.dec.ackTick !== tick || tick % 15 !== 0) continue;
        for (const [id, g] of now) expect(c.has.get(id), `client ${k + 1} ghost ${id} at ${tick}`).toEqual(expected(protocol, g.typeId, g.owner, c.nid, g.values));
      }
    }
    // Merging behind changed what was sent (other second baselines), and saved encodes.
    expect(differ).toBeGreaterThan(10);
    const [on, off] = runs.map((r) => r.enc.encodes);
    expect(on!).toBeLessThan(off! * fewer);
  });
});

function sameBytes(a: Uint8Array, b: Uint8Array | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);
}

