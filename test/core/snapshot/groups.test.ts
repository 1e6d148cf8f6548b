// Connections sharing encodes (groups.ts): a shared encoder must send each client exactly
// what an encoder of its own would — while acks agree, after they diverge, and after
// groups merge again — so every test compares with one encoder per client.

import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { GhostStates, REC_UPDATE } from '../../../src/core/snapshot/ghost-states.ts';
import { SnapshotDecoder, SnapshotEncoder, type SnapshotGhost } from '../../../src/core/snapshot/index.ts';
import { BOX, EVERY, expected, makeGhost, protocol, randomBox, randomEvery } from './harness.ts';

type Values = Record<string, unknown>;

describe('connections sharing an encode', () => {
  it('send exactly the bytes separate encoders would, while their acks agree and after they diverge', () => {
    const rng = new Rng(8);
    const ghosts: (SnapshotGhost & { values: Values })[] = [];
    for (let i = 1; i <= 60; i++) ghosts.push(i % 10 === 0 ? makeGhost(i, EVERY, 1 + (i % 3), randomEvery(rng)) : makeGhost(i, BOX, 0, randomBox(rng)));
    const shared = new SnapshotEncoder(protocol, { budgetBytes: 700, mergeBehind: false }); // bytes compared with encoders of their own
    // Clients 1..3 own view-dependent ghosts (they never share with others); 4..8 own none.
    const clients = [1, 2, 3, 4, 5, 6, 7, 8].map((nid) => {
      const alone = new SnapshotEncoder(protocol, { budgetBytes: 700 });
      return { nid, state: shared.createConnectionState(nid), alone, aloneState: alone.createConnectionState(nid), dec: new SnapshotDecoder(protocol, nid), loses: nid >= 7 };
    });
    const inputs = [{ networkId: 4, values: { move: { x: 1, y: 0 }, jump: false, fire: 1 } }];
    for (let t = 1; t <= 120; t++) {
      for (const g of ghosts) if (rng.chance(0.5)) g.values.position = { x: rng.range(-9, 9), y: 0, z: rng.range(-9, 9) };
      for (const c of clients) {
        const a = shared.encode(c.state, t, ghosts, { inputs }).slice();
        const b = c.alone.encode(c.aloneState, t, ghosts, { inputs });
        expect(a).toEqual(b);
        // Clients 7 and 8 lose some snapshots (differently), so their acks diverge from the rest.
        if (c.loses && rng.chance(0.3)) continue;
        const s = c.dec.decode(a)!;
        for (const g of [...s.spawns, ...s.updates]) {
          const truth = ghosts.find((x) => x.id === g.id)!;
          expect(g.values).toEqual(expected(protocol, truth.typeId, truth.owner, c.nid, truth.values));
        }
        shared.ack(c.state, c.dec.ackTick, c.dec.ackMask);
        c.alone.ack(c.aloneState, c.dec.ackTick, c.dec.ackMask);
      }
    }
    // Clients 4..6 never diverged: they are still one group (one encode per tick for three connections).
    expect(clients[3]!.state.group).toBe(clients[4]!.state.group);
    expect(clients[4]!.state.group).toBe(clients[5]!.state.group);
    expect(clients[6]!.state.group).not.toBe(clients[3]!.state.group);
  });

  it('reuses sent records once no group holds them any more, and every client still decodes exactly (several ack windows, forks)', () => {
    const rng = new Rng(11);
    const ghosts = Array.from({ length: 40 }, (_, i) => makeGhost(i + 1, BOX, 0, randomBox(rng)));
    const enc = new SnapshotEncoder(protocol, { budgetBytes: 60_000 });
    // Clients 3..5 lose snapshots and acks and skip ticks now and then: groups fork off and share older records with their parent.
    const clients = [1, 2, 3, 4, 5].map((nid) => ({ nid, state: enc.createConnectionState(nid), dec: new SnapshotDecoder(protocol, nid), loss: nid >= 3 ? 0.2 : 0 }));
    const records = new Set<unknown>();
    let encodes = 0;
    // 500 ticks, almost four ack windows (128 ticks): every record leaves the window several times.
    for (let t = 1; t <= 500; t++) {
      for (const g of ghosts) if (rng.chance(0.7)) g.values.position = { x: rng.range(-9, 9), y: 0, z: t / 10 };
      for (const c of clients) {
        if (c.loss > 0 && rng.chance(0.05)) continue;
        const msg = enc.encode(c.state, t, ghosts);
        encodes++;
        records.add(c.state.group.states.sent.get(t));
        if (rng.chance(c.loss)) continue;
        // A record refilled while a group still needed it would give this client a delta against the wrong baseline.
        const s = c.dec.decode(msg)!;
        for (const g of [...s.spawns, ...s.updates]) expect(g.values).toEqual(expected(protocol, BOX, 0, c.nid, ghosts[g.id - 1]!.values));
        if (rng.chance(c.loss)) continue;
        enc.ack(c.state, c.dec.ackTick, c.dec.ackMask);
      }
    }
    for (const c of clients) expect(c.dec.ghostCount).toBe(40);
    // Records are reused: far fewer than one per group encode.
    expect(encodes).toBeGreaterThan(2000);
    expect(records.size).toBeLessThan(encodes / 3);
  });

  it('one group holding every connection, then members splitting off at a tick: same bytes as separate encoders', () => {
    const rng = new Rng(12);
    const ghosts = Array.from({ length: 50 }, (_, i) => makeGhost(i + 1, BOX, 0, randomBox(rng)));
    const shared = new SnapshotEncoder(protocol, { budgetBytes: 60_000 });
    const clients = [1, 2, 3, 4].map((nid) => {
      const alone = new SnapshotEncoder(protocol, { budgetBytes: 60_000 });
      return { nid, state: shared.createConnectionState(nid), alone, aloneState: alone.createConnectionState(nid), dec: new SnapshotDecoder(protocol, nid) };
    });
    let together = 0;
    for (let t = 3; t <= 300; t += 3) {
      for (const g of ghosts) (g.values.position as { x: number }).x += 0.05;
      for (const c of clients) {
        const a = shared.encode(c.state, t, ghosts).slice();
        expect(a).toEqual(c.alone.encode(c.aloneState, t, ghosts));
        const s = c.dec.decode(a)!;
        for (const g of [...s.spawns, ...s.updates]) expect(g.values).toEqual(expected(protocol, BOX, 0, c.nid, ghosts[g.id - 1]!.values));
        // Client 3 loses one ack, later client 4: at the next tick each splits off the group that held everyone.
        if ((c.nid === 3 && t === 150) || (c.nid === 4 && t === 210)) continue;
        shared.ack(c.state, c.dec.ackTick, c.dec.ackMask);
        c.alone.ack(c.aloneState, c.dec.ackTick, c.dec.ackMask);
      }
      if (clients.every((c) => c.state.group === clients[0]!.state.group)) together++;
    }
    // One group for all four until client 3 split off; each split-off member merges back once its acks caught up (one tick later).
    expect(together).toBe(98);
    expect(new Set(clients.map((c) => c.state.group)).size).toBe(1);
  });

  it('a member that skips ticks goes on alone and still decodes correctly', () => {
    const rng = new Rng(9);
    const ghosts = Array.from({ length: 30 }, (_, i) => makeGhost(i + 1, BOX, 0, randomBox(rng)));
    const enc = new SnapshotEncoder(protocol, { budgetBytes: 60_000 });
    const a = { state: enc.createConnectionState(1), dec: new SnapshotDecoder(protocol, 1) };
    const b = { state: enc.createConnectionState(2), dec: new SnapshotDecoder(protocol, 2) };
    for (let t = 1; t <= 40; t++) {
      for (const g of ghosts) g.values.position = { x: rng.range(-9, 9), y: 0, z: t };
      // b only gets a snapshot every 5th tick (as if its rate were lower).
      for (const c of t % 5 === 0 ? [a, b] : [a]) {
        const s = c.dec.decode(enc.encode(c.state, t, ghosts))!;
        for (const g of [...s.spawns, ...s.updates]) expect(g.values).toEqual(expected(protocol, BOX, 0, 1, ghosts[g.id - 1]!.values));
        enc.ack(c.state, c.dec.ackTick, c.dec.ackMask);
      }
    }
    expect(b.dec.ghostCount).toBe(30);
    expect(a.state.group).not.toBe(b.state.group);
  });

  it('disposing connections frees destroyed ghosts they still knew', () => {
    const rng = new Rng(10);
    const enc = new SnapshotEncoder(protocol);
    const s1 = enc.createConnectionState(1);
    const g = [makeGhost(1, BOX, 0, randomBox(rng))];
    enc.encode(s1, 1, g);
    enc.forget(1);
    enc.disposeConnectionState(s1);
    expect(() => enc.encode(s1, 2, g)).toThrow(/disposed/);
    // Id 1 is free again: a new ghost with another type may take it.
    const s2 = enc.createConnectionState(2);
    const d2 = new SnapshotDecoder(protocol, 2);
    const fresh = [makeGhost(1, EVERY, 0, randomEvery(rng))];
    expect(d2.decode(enc.encode(s2, 3, fresh))!.spawns.map((x) => x.typeId)).toEqual([EVERY]);
  });

  it('merge again after losses, and still send every client the bytes of an encoder of its own (loss, delayed acks)', () => {
    const rng = new Rng(13);
    const ghosts = Array.from({ length: 40 }, (_, i) => makeGhost(i + 1, BOX, 0, randomBox(rng)));
    // Merging behind gives merged clients older second baselines than an encoder of their own: off, to compare bytes.
    const shared = new SnapshotEncoder(protocol, { budgetBytes: 60_000, mergeBehind: false });
    const clients = Array.from({ length: 12 }, (_, i) => {
      const alone = new SnapshotEncoder(protocol, { budgetBytes: 60_000 });
      return { nid: i + 1, state: shared.createConnectionState(i + 1), alone, aloneState: alone.createConnectionState(i + 1), dec: new SnapshotDecoder(protocol, i + 1) };
    });
    let late: { c: (typeof clients)[number]; tick: number; mask: number }[] = [];
    let most = 0;
    for (let t = 3; t <= 600; t += 3) {
      for (const g of ghosts) (g.values.position as { x: number }).x += 0.05;
      // 10 % of snapshots and of acks lost, 10 % of acks a tick late, until tick 450; then a clean link.
      const lossy = t <= 450;
      for (const a of late) {
        shared.ack(a.c.state, a.tick, a.mask);
        a.c.alone.ack(a.c.aloneState, a.tick, a.mask);
      }
      late = [];
      for (const c of clients) {
        const msg = shared.encode(c.state, t, ghosts).slice();
        expect(msg).toEqual(c.alone.encode(c.aloneState, t, ghosts));
        if (lossy && rng.chance(0.1)) continue;
        const s = c.dec.decode(msg)!;
        for (const g of [...s.spawns, ...s.updates]) expect(g.values).toEqual(expected(protocol, BOX, 0, c.nid, ghosts[g.id - 1]!.values));
        if (lossy && rng.chance(0.1)) continue;
        if (lossy && rng.chance(0.1)) late.push({ c, tick: c.dec.ackTick, mask: c.dec.ackMask });
        else {
          shared.ack(c.state, c.dec.ackTick, c.dec.ackMask);
          c.alone.ack(c.aloneState, c.dec.ackTick, c.dec.ackMask);
        }
      }
      most = Math.max(most, new Set(clients.map((c) => c.state.group)).size);
    }
    // Losses split the clients into several groups; two ticks after the last one they are one group again.
    expect(most).toBeGreaterThan(3);
    expect(new Set(clients.map((c) => c.state.group)).size).toBe(1);
  });

  it.each([
    // Without the ladder each lag is a class: four encodes per tick for seven connections.
    { ackLadder: false as const, groups: 4 },
    // With rungs 1, 3, 5: lags 2 and 3 share rung 3, so three; with 1, 2, 5 (the default) lags 3 and 5 share rung 5.
    { ackLadder: [1, 3, 5], groups: 3 },
    { ackLadder: undefined, groups: 3 },
  ])('keep one group per ack-delay class (ackLadder $ackLadder), with the bytes of separate encoders', ({ ackLadder, groups }) => {
    const rng = new Rng(14);
    const ghosts = Array.from({ length: 30 }, (_, i) => makeGhost(i + 1, BOX, 0, randomBox(rng)));
    const opts = { budgetBytes: 60_000, ...(ackLadder !== undefined ? { ackLadder } : {}) };
    const shared = new SnapshotEncoder(protocol, opts);
    // Acks of snapshot t reach the server at t + lag · 3 ticks: lags 1, 1, 2, 2, 2, 3, 5.
    const lags = [1, 1, 2, 2, 2, 3, 5];
    const clients = lags.map((lag, i) => {
      const alone = new SnapshotEncoder(protocol, opts);
      return { lag, state: shared.createConnectionState(i + 1), alone, aloneState: alone.createConnectionState(i + 1), dec: new SnapshotDecoder(protocol, i + 1) };
    });
    const flying: { at: number; c: (typeof clients)[number]; tick: number; mask: number }[] = [];
    for (let t = 3; t <= 300; t += 3) {
      for (const g of ghosts) (g.values.position as { x: number }).x += 0.05;
      for (const a of flying.filter((x) => x.at <= t)) {
        shared.ack(a.c.state, a.tick, a.mask);
        a.c.alone.ack(a.c.aloneState, a.tick, a.mask);
      }
      flying.splice(0, flying.length, ...flying.filter((x) => x.at > t));
      for (const c of clients) {
        const msg = shared.encode(c.state, t, ghosts).slice();
        expect(msg).toEqual(c.alone.encode(c.aloneState, t, ghosts));
        c.dec.decode(msg);
        flying.push({ at: t + 3 * c.lag, c, tick: c.dec.ackTick, mask: c.dec.ackMask });
      }
    }
    expect(new Set(clients.map((c) => c.state.group)).size).toBe(groups);
  });

  it('merge only states whose future is the same: a sent snapshot one of them may still ack must match', () => {
    const states = (kind: number): GhostStates => {
      const s = new GhostStates();
      s.ensure(1);
      s.lastTick = 9;
      s.hasEncoded = true;
      const rec = s.record(9, 1);
      rec.push(0, 4, kind);
      s.sent.set(9, rec);
      return s;
    };
    const ack = (s: GhostStates): GhostStates => {
      s.ackedOk[9] = 1;
      s.ackedTick[9] = 9;
      return s;
    };
    // Equal records: mergeable whatever was acked. Different records (here: a spawn sent to one, an update to the other):
    // only when both are acked, as a later ack could apply either record.
    const merges = (a: GhostStates, b: GhostStates): boolean => a.merge(b, 1, false);
    expect(merges(states(REC_UPDATE), states(REC_UPDATE))).toBe(true);
    expect(merges(ack(states(REC_UPDATE)), states(REC_UPDATE))).toBe(true);
    expect(merges(states(REC_UPDATE), states(0))).toBe(false);
    expect(merges(ack(states(REC_UPDATE)), states(0))).toBe(false);
    expect(merges(ack(states(REC_UPDATE)), ack(states(0)))).toBe(true);
    const other = states(REC_UPDATE);
    other.g[1] = 3; // another per-ghost record
    expect(merges(states(REC_UPDATE), other)).toBe(false);
    // Acked by one side only: heard, not applied again, and not a baseline every client of the merged states holds.
    const merged = ack(states(REC_UPDATE));
    expect(merges(merged, states(REC_UPDATE))).toBe(true);
    expect([merged.isAcked(9), merged.ackedOk[9]]).toEqual([true, 2]);
  });
});
