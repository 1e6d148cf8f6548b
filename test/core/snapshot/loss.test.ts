import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { BitReader, BitWriter } from '../../../src/core/bits.ts';
import { decodeAck, encodeAck, SnapshotDecoder, SnapshotEncoder, type SnapshotGhost } from '../../../src/core/snapshot/index.ts';
import { BOX, clone, EVERY, expected, LossyLink, makeGhost, protocol, randomBox, randomEvery } from './harness.ts';

type Values = Record<string, unknown>;
type Shot = Map<number, { typeId: number; owner: number; values: Values }>;

describe('snapshots over a lossy link', () => {
  it('decodes every present ghost exactly under 20% loss, duplication and reordering (600 ticks, 200 ghosts)', () => {
    const rng = new Rng(20_240_601);
    const BUDGET = 1200;
    const enc = new SnapshotEncoder(protocol, { budgetBytes: BUDGET });
    // Clients 1 and 2 get the very same ghost lists (they may share encodes until their losses differ); 3 its own.
    const clients = [1, 2, 3].map((nid) => ({
      nid,
      state: enc.createConnectionState(nid),
      dec: new SnapshotDecoder(protocol, nid),
      down: new LossyLink(new Rng(nid * 7), 0.2, 0.1, 4),
      up: new LossyLink(new Rng(nid * 13), 0.2, 0.1, 4),
      has: new Map<number, Values>(),
      decoded: 0,
      checked: 0,
    }));
    const END = 600;
    const DRAIN = 120;
    let nextId = 1;
    const live: (SnapshotGhost & { values: Values })[] = [];
    const spawn = (): void => {
      const id = nextId++;
      const every = rng.chance(0.25);
      const owner = every ? 1 + rng.int(4) : 0;
      live.push(makeGhost(id, every ? EVERY : BOX, owner, every ? randomEvery(rng) : randomBox(rng)));
    };
    for (let i = 0; i < 200; i++) spawn();
    /** What each client was sent a snapshot about, per tick: the ghosts in its list. */
    const sent = new Map<number, Map<number, Shot>>();
    const lists = (at: number): SnapshotGhost[][] => {
      const tick = Math.min(at, END); // relevance stops changing with the loss phase, so the drain converges
      const shared = live.filter((g) => (g.id + Math.floor(tick / 50)) % 7 !== 0);
      const own = live.filter((g) => (g.id * 3 + Math.floor(tick / 40)) % 5 !== 0);
      return [shared, shared, own];
    };
    for (let tick = 1; tick <= END + DRAIN; tick++) {
      const moving = tick <= END;
      if (moving) {
        for (const g of live) {
          if (!rng.chance(0.6)) continue;
          const next = g.typeId === EVERY ? randomEvery(rng) : randomBox(rng);
          for (const key of Object.keys(next)) if (rng.chance(0.5)) g.values[key] = next[key];
        }
        if (tick % 10 === 0) {
          for (let k = 0; k < 5; k++) {
            const [gone] = live.splice(rng.int(live.length), 1);
            enc.forget(gone!.id);
            spawn();
          }
        }
      }
      if (tick % 2 === 0) {
        const perClient = lists(tick);
        const shots = new Map<number, Shot>();
        clients.forEach((c, i) => {
          const list = perClient[i]!;
          const shot: Shot = new Map(list.map((g) => [g.id, { typeId: g.typeId, owner: g.owner, values: clone(g.values) }]));
          shots.set(c.nid, shot);
          const msg = enc.encode(c.state, tick, list);
          expect(msg.length).toBeLessThanOrEqual(BUDGET);
          c.down.send(tick, msg);
        });
        sent.set(tick, shots);
      }
      for (const c of clients) {
        for (const data of c.down.receive(tick)) {
          const s = c.dec.decode(data);
          if (s === null) continue; // duplicate or older than the newest: dropped
          c.decoded++;
          const shot = sent.get(s.tick)!.get(c.nid)!;
          for (const id of s.despawns) {
            expect(c.has.has(id)).toBe(true);
            c.has.delete(id);
          }
          for (const g of s.spawns) {
            const truth = shot.get(g.id)!;
            expect(truth).toBeDefined();
            expect(c.has.has(g.id)).toBe(false);
            c.has.set(g.id, g.values);
            expect(g.values).toEqual(expected(protocol, truth.typeId, truth.owner, c.nid, truth.values));
            c.checked++;
          }
          for (const g of s.updates) {
            const truth = shot.get(g.id)!;
            expect(c.has.get(g.id)).toBe(g.values);
            expect(g.values).toEqual(expected(protocol, truth.typeId, truth.owner, c.nid, truth.values));
            c.checked++;
          }
          // Acks travel back over their own lossy link; only decoded snapshots are acked.
          const w = new BitWriter();
          encodeAck(w, c.dec.ackTick, c.dec.ackMask);
          c.up.send(tick, w.toBytes());
        }
        for (const data of c.up.receive(tick)) {
          const a = decodeAck(new BitReader(data));
          enc.ack(c.state, a.tick, a.mask);
        }
      }
      if (tick === END) for (const c of clients) {
        // After the loss phase the links become clean so everything converges.
        (c as { down: LossyLink }).down = new LossyLink(new Rng(c.nid), 0, 0, 0);
        (c as { up: LossyLink }).up = new LossyLink(new Rng(c.nid), 0, 0, 0);
      }
    }
    // Converged: each client holds exactly the ghosts of its last list, with their current (static) values.
    const last = lists(END + DRAIN);
    clients.forEach((c, i) => {
      const list = last[i]!;
      expect([...c.has.keys()].sort((a, b) => a - b)).toEqual(list.map((g) => g.id));
      for (const g of list) expect(c.has.get(g.id)).toEqual(expected(protocol, g.typeId, g.owner, c.nid, g.values));
      // 420 snapshots in 720 ticks, ~80% delivered, some dropped as stale: hundreds decoded, thousands of ghost checks.
      expect(c.decoded).toBeGreaterThan(200);
      expect(c.checked).toBeGreaterThan(5000);
    });
  });
});
