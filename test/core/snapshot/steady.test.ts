// The encoder's steady-state path (encode-core.ts `steady`) must produce exactly the
// general path's bytes and leave the same state behind. Two encoders run the same
// scenarios — one with the steady path, one without — and every message is compared
// byte for byte, over random ghost sets, motions, owners, budgets, inputs and ack patterns.

import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { SnapshotDecoder, SnapshotEncoder, type ConnectionSnapshotState, type SnapshotGhost, type SnapshotInput } from '../../../src/core/snapshot/index.ts';
import { BOX, EVERY, expected, makeGhost, protocol, randomBox, randomEvery } from './harness.ts';

type Values = Record<string, unknown>;
type Ghost = SnapshotGhost & { values: Values };

interface Core {
  steadyPath: boolean;
  steadyEncodes: number;
  steadyFallbacks: number;
}
const core = (enc: SnapshotEncoder): Core => (enc as unknown as { core: Core }).core;

interface Scenario {
  seed: number;
  ticks: number;
  clients: number;
  ghosts: number;
  budgetBytes: number;
  refreshTicks: number;
  /** Chance per tick that a ghost jumps / stays still (else it moves linearly). */
  jump: number;
  still: number;
  /** Chance per tick of a spawn / a despawn. */
  churn: number;
  /** Chance that a message, or its ack, is lost; chance that an ack is delayed by a tick. */
  loss: number;
  delay: number;
  every: boolean;
  inputs: boolean;
  predicted: boolean;
  prepare: boolean;
}

/** Run `s` on a steady-path encoder and a general-path one; every message must be equal. Returns the steady path's counters. */
function run(s: Scenario): Core {
  const rng = new Rng(s.seed);
  const a = new SnapshotEncoder(protocol, { budgetBytes: s.budgetBytes, refreshTicks: s.refreshTicks });
  const b = new SnapshotEncoder(protocol, { budgetBytes: s.budgetBytes, refreshTicks: s.refreshTicks });
  core(b).steadyPath = false;
  const sa: ConnectionSnapshotState[] = [];
  const sb: ConnectionSnapshotState[] = [];
  for (let c = 0; c < s.clients; c++) {
    sa.push(a.createConnectionState(c + 1));
    sb.push(b.createConnectionState(c + 1));
  }
  const decoders = Array.from({ length: s.clients }, (_, c) => new SnapshotDecoder(protocol, c + 1));
  let nextId = 1;
  const velocity = new Map<number, { x: number; z: number }>();
  const spawn = (): Ghost => {
    const every = s.every && rng.chance(0.3);
    const owner = rng.chance(0.3) ? 1 + rng.int(s.clients + 1) : 0;
    const g = makeGhost(nextId, every ? EVERY : BOX, owner, every ? randomEvery(rng) : randomBox(rng));
    nextId += 1 + (rng.chance(0.1) ? rng.int(5000) : 0);
    velocity.set(g.id, { x: rng.range(-0.2, 0.2), z: rng.range(-0.2, 0.2) });
    return g;
  };
  let ghosts: Ghost[] = Array.from({ length: s.ghosts }, spawn);
  let pendingAcks: { c: number; tick: number; mask: number }[] = [];
  for (let n = 0; n < s.ticks; n++) {
    const tick = 100 + n * 3;
    // Move, spawn, despawn.
    for (const g of ghosts) {
      if (rng.chance(s.still)) continue;
      if (g.typeId === EVERY) {
        if (rng.chance(s.jump)) g.values = randomEvery(rng);
        else (g.values.pos as { x: number }).x += 0.25;
        continue;
      }
      const p = g.values.position as { x: number; y: number; z: number };
      const v = velocity.get(g.id)!;
      g.values.position = rng.chance(s.jump) ? { x: rng.range(-50, 50), y: p.y, z: p.z } : { x: p.x + v.x, y: p.y, z: p.z + v.z };
    }
    if (rng.chance(s.churn)) ghosts.push(spawn());
    if (rng.chance(s.churn) && ghosts.length > 0) {
      const [gone] = ghosts.splice(rng.int(ghosts.length), 1);
      a.forget(gone!.id);
      b.forget(gone!.id);
    }
    ghosts = [...ghosts].sort((x, y) => x.id - y.id);
    const inputs: SnapshotInput[] | undefined = s.inputs ? [{ networkId: 1, values: { move: { x: rng.range(-1, 1), y: 0 }, jump: rng.chance(0.5), fire: n } }] : undefined;
    const predicted = s.predicted ? (g: SnapshotGhost): boolean => g.owner === 1 : undefined;
    if (s.prepare && rng.chance(0.5)) {
      a.prepare(tick, ghosts);
      b.prepare(tick, ghosts);
    }
    // Acks of the previous tick that were delayed arrive now.
    for (const p of pendingAcks) {
      a.ack(sa[p.c]!, p.tick, p.mask);
      b.ack(sb[p.c]!, p.tick, p.mask);
    }
    pendingAcks = [];
    for (let c = 0; c < s.clients; c++) {
      const opts = { ...(inputs ? { inputs } : {}), ...(predicted ? { predicted } : {}) };
      const ma = a.encode(sa[c]!, tick, ghosts, opts).slice();
      const mb = b.encode(sb[c]!, tick, ghosts, opts);
      expect(ma, `seed ${s.seed}, tick ${tick}, client ${c}`).toEqual(mb);
      if (rng.chance(s.loss)) continue;
      const d = decoders[c]!;
      d.decode(ma);
      if (rng.chance(s.loss)) continue;
      if (rng.chance(s.delay)) pendingAcks.push({ c, tick: d.ackTick, mask: d.ackMask });
      else {
        a.ack(sa[c]!, d.ackTick, d.ackMask);
        b.ack(sb[c]!, d.ackTick, d.ackMask);
      }
    }
  }
  // The clients hold what the server has (those that decoded the last snapshot and every ghost fits).
  if (s.budgetBytes >= 60_000 && s.loss === 0) {
    const d = decoders[0]!;
    const last = a.encode(sa[0]!, 100 + s.ticks * 3, ghosts);
    const out = d.decode(last.slice())!;
    expect(out).not.toBeNull();
    for (const u of out.updates) {
      const g = ghosts.find((x) => x.id === u.id)!;
      expect(u.values).toEqual(expected(protocol, g.typeId, g.owner, 1, g.values));
    }
  }
  return core(a);
}

const base: Scenario = {
  seed: 1, ticks: 40, clients: 3, ghosts: 60, budgetBytes: 60_000, refreshTicks: 60,
  jump: 0, still: 0, churn: 0, loss: 0, delay: 0, every: false, inputs: false, predicted: false, prepare: false,
};

describe('snapshot steady-state path', () => {
  it('takes the steady path for acked, linearly moving ghosts, with the same bytes', () => {
    const c = run(base);
    expect(c.steadyEncodes).toBeGreaterThan(30);
  });

  it('gives the same bytes under loss, delayed acks, churn, owners, strings, inputs, prediction and prepare()', () => {
    const c = run({ ...base, seed: 2, loss: 0.1, delay: 0.2, churn: 0.2, every: true, inputs: true, predicted: true, prepare: true, jump: 0.05, still: 0.3, refreshTicks: 6 });
    expect(c.steadyEncodes).toBeGreaterThan(0);
    expect(c.steadyFallbacks).toBeGreaterThan(0);
  });

  it('falls back when the budget binds, with the same bytes', () => {
    const c = run({ ...base, seed: 3, ghosts: 200, budgetBytes: 300, clients: 2 });
    expect(c.steadyFallbacks).toBeGreaterThan(0);
    // Just above what every record needs: the estimate and the final size decide.
    run({ ...base, seed: 4, ghosts: 100, budgetBytes: 420, clients: 2, still: 0.5, refreshTicks: 3 });
  });

  it('decides like the general path at every budget around the message size', () => {
    // 50 moving boxes take ~150 bytes: each budget byte near it moves the line between all and some.
    let steady = 0;
    let fallbacks = 0;
    for (let budget = 100; budget <= 220; budget++) {
      const c = run({ ...base, seed: 5, ghosts: 50, clients: 1, ticks: 12, budgetBytes: budget, still: 0.2, refreshTicks: 4 });
      steady += c.steadyEncodes;
      fallbacks += c.steadyFallbacks;
    }
    expect(steady).toBeGreaterThan(0);
    expect(fallbacks).toBeGreaterThan(0);
  });

  it('gives the same bytes as the general path over random scenarios (property test)', () => {
    const rng = new Rng(0xfa57);
    let steady = 0;
    for (let k = 0; k < 40; k++) {
      const s: Scenario = {
        seed: 1000 + k,
        ticks: 10 + rng.int(30),
        clients: 1 + rng.int(4),
        ghosts: rng.int(80),
        budgetBytes: rng.chance(0.3) ? 64 + rng.int(800) : 60_000,
        refreshTicks: 1 + rng.int(20),
        jump: rng.chance(0.5) ? 0 : rng.range(0, 0.5),
        still: rng.chance(0.5) ? 0 : rng.range(0, 1),
        churn: rng.chance(0.5) ? 0 : rng.range(0, 0.5),
        loss: rng.chance(0.5) ? 0 : rng.range(0, 0.4),
        delay: rng.chance(0.5) ? 0 : rng.range(0, 0.5),
        every: rng.chance(0.5),
        inputs: rng.chance(0.3),
        predicted: rng.chance(0.3),
        prepare: rng.chance(0.3),
      };
      steady += run(s).steadyEncodes;
    }
    expect(steady).toBeGreaterThan(100);
  });
});
