// The ack ladder (ladder.ts): acks count only at one of a few ages, the rung chosen per
// connection with hysteresis. Clients with spread ack delays share as many encodes as
// there are rungs; jitter does not make a connection flap; loss still splits and the
// groups merge back; and every client decodes exactly what an encoder of its own sends,
// spawns and despawns included.

import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { LADDER_CALM } from '../../../src/core/snapshot/ladder.ts';
import { type ConnectionSnapshotState, SnapshotDecoder, SnapshotEncoder, type SnapshotGhost } from '../../../src/core/snapshot/index.ts';
import { BOX, expected, makeGhost, protocol, randomBox } from './harness.ts';

type Values = Record<string, unknown>;
/** 60 Hz ticks, a snapshot every 3rd (50 ms). */
const TICK_MS = 1000 / 60;
const EVERY_TICKS = 3;

interface Run {
  /** Ack delay (ms) of client `c`'s ack of the snapshot at `tick`; undefined: the ack is lost. */
  delay: (c: number, tick: number) => number | undefined;
  /** Snapshot (and so its ack) lost for client `c` at `tick`. */
  lost?: (c: number, tick: number) => boolean;
  clients: number;
  snapshots: number;
  ackLadder?: readonly number[] | false;
  /** Called after each snapshot with its tick and the clients' states. */
  after?: (tick: number, states: readonly ConnectionSnapshotState[]) => void;
}

/** Snapshots to `clients` clients (shared encoder vs one each, bytes compared, values checked); returns the states and ghost sets. */
function run(r: Run, ghosts: (SnapshotGhost & { values: Values })[], step: (tick: number) => void) {
  const opts = { budgetBytes: 60_000, ...(r.ackLadder !== undefined ? { ackLadder: r.ackLadder } : {}) };
  // Merging behind gives merged clients older second baselines than an encoder of their own: off, to compare bytes.
  const shared = new SnapshotEncoder(protocol, { ...opts, mergeBehind: false });
  const clients = Array.from({ length: r.clients }, (_, c) => {
    const alone = new SnapshotEncoder(protocol, opts);
    return { state: shared.createConnectionState(c + 1), alone, aloneState: alone.createConnectionState(c + 1), dec: new SnapshotDecoder(protocol, c + 1), has: new Set<number>() };
  });
  let flying: { at: number; c: number; tick: number; mask: number }[] = [];
  for (let n = 1; n <= r.snapshots; n++) {
    const tick = n * EVERY_TICKS;
    step(tick);
    const now = tick * TICK_MS;
    for (const a of flying.filter((x) => x.at <= now)) {
      shared.ack(clients[a.c]!.state, a.tick, a.mask);
      clients[a.c]!.alone.ack(clients[a.c]!.aloneState, a.tick, a.mask);
    }
    flying = flying.filter((x) => x.at > now);
    for (const [c, cl] of clients.entries()) {
      const msg = shared.encode(cl.state, tick, ghosts).slice();
      expect(msg).toEqual(cl.alone.encode(cl.aloneState, tick, ghosts));
      if (r.lost?.(c, tick) === true) continue;
      const s = cl.dec.decode(msg)!;
      for (const id of s.despawns) cl.has.delete(id);
      for (const g of [...s.spawns, ...s.updates]) {
        cl.has.add(g.id);
        const truth = ghosts.find((x) => x.id === g.id)!;
        expect(g.values).toEqual(expected(protocol, truth.typeId, truth.owner, c + 1, truth.values));
      }
      const d = r.delay(c, tick);
      if (d !== undefined) flying.push({ at: now + d, c, tick: cl.dec.ackTick, mask: cl.dec.ackMask });
    }
    r.after?.(tick, clients.map((c) => c.state));
  }
  return { shared, clients, groups: (): number => new Set(clients.map((c) => c.state.group)).size };
}

function world(seed: number, n: number) {
  const rng = new Rng(seed);
  const ghosts = Array.from({ length: n }, (_, i) => makeGhost(i + 1, BOX, 0, randomBox(rng)));
  const step = (): void => {
    for (const g of ghosts) (g.values.position as { x: number }).x += 0.05;
  };
  return { rng, ghosts, step };
}

describe('the ack ladder', () => {
  it('puts clients with spread, jittering ack delays into as many groups as rungs, with the bytes of separate encoders', () => {
    const { rng, ghosts, step } = world(21, 30);
    // Round trips spread over 20-240 ms (five snapshot intervals), each ack jittered by ±10 ms.
    const base = Array.from({ length: 12 }, (_, c) => 20 + (220 * c) / 11);
    const off = run({ clients: 12, snapshots: 150, ackLadder: false, delay: (c) => base[c]! + rng.range(-10, 10) }, ghosts, step);
    const w2 = world(21, 30);
    let most = 0;
    const on = run({
      clients: 12, snapshots: 150, delay: (c) => base[c]! + w2.rng.range(-10, 10),
      after: (tick, states) => {
        if (tick > 50 * EVERY_TICKS) most = Math.max(most, new Set(states.map((x) => x.group)).size);
      },
    }, w2.ghosts, w2.step);
    // Off: a group per measured delay class and then some (jitter splits them); on: at most one per rung [1, 2, 5].
    expect(off.groups()).toBeGreaterThan(3);
    expect(most).toBeLessThanOrEqual(3); // at every snapshot after the first 50
    const rungs = new Set(on.clients.map((c) => c.state.rung));
    expect(on.groups()).toBe(rungs.size);
    expect(rungs.size).toBe(3);
  });

  it('does not flap under jitter around a rung boundary, and moves down only after a calm stretch', () => {
    const { rng, ghosts, step } = world(22, 10);
    // Snapshots 1-200: acks 30-70 ms after the snapshot, so one or two snapshots old at random; then 10 ms (always one).
    const PHASE = 200;
    let rawChanges = 0;
    let lastRaw = -1;
    const rungs: number[] = [];
    const r = run({
      clients: 1, snapshots: 300,
      delay: (_, tick) => {
        if (tick > PHASE * EVERY_TICKS) return 10;
        const d = rng.range(30, 70);
        const raw = d > 50 ? 1 : 0; // whether it misses the next snapshot
        if (raw !== lastRaw) rawChanges++;
        lastRaw = raw;
        return d;
      },
      after: (_, states) => rungs.push(states[0]!.rung),
    }, ghosts, step);
    // The measured age alone would change rung tens of times; the connection moves up once and stays.
    expect(rawChanges).toBeGreaterThan(30);
    const firstUp = rungs.indexOf(1);
    expect(firstUp).toBeGreaterThan(-1);
    expect(firstUp).toBeLessThan(20);
    expect(rungs.slice(firstUp, PHASE).every((x) => x === 1)).toBe(true);
    // Then one move down, LADDER_CALM measurements into the calm phase: two moves in all.
    const down = rungs.indexOf(0, PHASE);
    expect(down - PHASE).toBeGreaterThanOrEqual(LADDER_CALM - 1);
    expect(down - PHASE).toBeLessThanOrEqual(LADDER_CALM + 1);
    expect(rungs.slice(down).every((x) => x === 0)).toBe(true);
    expect(r.clients[0]!.state.moves).toBe(2);
  });

  it('splits a client that lost snapshots or acks off its rung\'s group, and merges it back once the link is clean', () => {
    const { rng, ghosts, step } = world(23, 20);
    // Eight clients on one rung (acks 60-140 ms: two or three snapshots old, rung 5); clients 6 and 7 lose 20 % of snapshots and of acks until snapshot 100.
    const lossy = (c: number, tick: number): boolean => c >= 6 && tick <= 300 && rng.chance(0.2);
    let most = 0;
    const r = run({
      clients: 8, snapshots: 140, lost: lossy,
      delay: (c, tick) => (lossy(c, tick) ? undefined : rng.range(60, 140)),
      after: (_, states) => {
        most = Math.max(most, new Set(states.map((s) => s.group)).size);
      },
    }, ghosts, step);
    expect(most).toBeGreaterThan(1);
    expect(r.groups()).toBe(1);
    expect(r.clients.every((c) => c.state.rung === 2)).toBe(true);
  });

  it('delivers every spawn and despawn, and every ack counts in the end (acks held back stay pending)', () => {
    const { rng, ghosts, step } = world(24, 12);
    const all = [...ghosts];
    // Ghosts leave and come back every few snapshots; acks 20-240 ms late, a few lost.
    const churn = (tick: number): void => {
      step();
      if (tick % 12 !== 0) return;
      const g = all[rng.int(all.length)]!;
      const at = ghosts.indexOf(g);
      if (at >= 0) ghosts.splice(at, 1);
      else ghosts.splice(ghosts.findIndex((x) => x.id > g.id) >>> 0, 0, g);
    };
    const base = Array.from({ length: 6 }, (_, c) => 20 + 44 * c);
    const r = run({ clients: 6, snapshots: 160, delay: (c) => (rng.chance(0.05) ? undefined : base[c]! + rng.range(-10, 10)) }, ghosts, churn);
    // Every client holds exactly the ghosts it is given now.
    const now = new Set(ghosts.map((g) => g.id));
    for (const c of r.clients) {
      expect(c.has).toEqual(now);
      expect(c.dec.ghostCount).toBe(now.size);
    }
    // No ack waits longer than the top rung (5 snapshots) plus its flight: every pending one is recent.
    for (const c of r.clients) for (let i = 0; i < c.state.pendingCount; i++) expect(160 * EVERY_TICKS - c.state.pending[i]!).toBeLessThanOrEqual(6 * EVERY_TICKS);
  });
});
