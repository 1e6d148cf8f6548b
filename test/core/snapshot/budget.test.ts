import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { maxWaitSnapshots, SnapshotDecoder, SnapshotEncoder } from '../../../src/core/snapshot/index.ts';
import { BOX, makeGhost, protocol, randomBox } from './harness.ts';

describe('snapshot budget and priorities', () => {
  it('computes the documented starvation bound', () => {
    // ⌈(G − 1)·s / (budget − 10 − 2s)⌉ + 1, with 10 bytes of snapshot overhead:
    expect(maxWaitSnapshots(10_000, 5, 1200)).toBe(44); // ⌈49,995 / 1180⌉ + 1 = ⌈42.37⌉ + 1
    expect(maxWaitSnapshots(1, 5, 1200)).toBe(1); // alone: sent in the next snapshot
    expect(maxWaitSnapshots(0, 5, 1200)).toBe(0);
    expect(maxWaitSnapshots(10, 600, 1200)).toBe(Infinity); // records of half the budget: no bound
  });

  it('never exceeds the budget and starves no ghost beyond maxWaitSnapshots (10,000 moving ghosts, 1200 B)', () => {
    const rng = new Rng(77);
    const G = 10_000;
    const BUDGET = 1200;
    // Start near the defaults so the spawn phase (every ghost sent once) is short.
    const ghosts = Array.from({ length: G }, (_, i) => makeGhost(i + 1, BOX, 0, { position: { x: i % 100, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 }, velocity: { x: 0, y: 0, z: 0 } }));
    const enc = new SnapshotEncoder(protocol, { budgetBytes: BUDGET });
    const state = enc.createConnectionState(1);
    const dec = new SnapshotDecoder(protocol, 1);
    const lastSeen = new Float64Array(G + 1).fill(-1);
    let maxWait = 0;
    let bytes = 0;
    let records = 0;
    let snaps = 0;
    let start = 0; // first snapshot of the steady state (every ghost spawned)
    for (let n = 1; n <= 330; n++) {
      // A slow random walk: every ghost changes every snapshot (nothing is skipped as unchanged).
      for (const g of ghosts) {
        const p = g.values.position as { x: number; y: number; z: number };
        g.values.position = { x: p.x + rng.range(-0.05, 0.05), y: p.y, z: p.z + rng.range(-0.05, 0.05) };
      }
      const msg = enc.encode(state, n * 3, ghosts);
      expect(msg.length).toBeLessThanOrEqual(BUDGET);
      const s = dec.decode(msg)!;
      enc.ack(state, dec.ackTick, dec.ackMask);
      if (start === 0 && dec.ghostCount === G && s.spawns.length === 0) start = n;
      for (const g of [...s.spawns, ...s.updates]) {
        // Waits between two sends that both happened in the steady state.
        if (start > 0 && lastSeen[g.id]! >= start) maxWait = Math.max(maxWait, n - lastSeen[g.id]!);
        lastSeen[g.id] = n;
      }
      if (start > 0) {
        bytes += msg.length - 10; // record bytes, without the overhead the bound already counts
        records += s.updates.length;
        snaps++;
      }
    }
    expect(snaps).toBeGreaterThan(200); // several full rotations (~45 snapshots each) measured
    const avg = bytes / records;
    const bound = maxWaitSnapshots(G, avg, BUDGET);
    console.log(`10,000 ghosts, budget ${BUDGET} B: ${(records / snaps).toFixed(0)} ghosts per snapshot, ${avg.toFixed(2)} B each; longest wait ${maxWait} snapshots, bound ${bound}`);
    expect(maxWait).toBeGreaterThan(1); // they really had to wait: G·s ≫ budget
    expect(maxWait).toBeLessThanOrEqual(bound);
  });

  it('keeps unimportant ghosts waiting longer, but never forever', () => {
    const rng = new Rng(5);
    const ghosts = Array.from({ length: 400 }, (_, i) => makeGhost(i + 1, BOX, 0, randomBox(rng), i < 200 ? 4 : 1));
    const enc = new SnapshotEncoder(protocol, { budgetBytes: 300 });
    const state = enc.createConnectionState(1);
    const dec = new SnapshotDecoder(protocol, 1);
    const sends = new Float64Array(401);
    for (let n = 1; n <= 300; n++) {
      for (const g of ghosts) g.values.velocity = { x: rng.range(-5, 5), y: 0, z: 0 };
      const s = dec.decode(enc.encode(state, n, ghosts))!;
      enc.ack(state, dec.ackTick, dec.ackMask);
      for (const g of [...s.spawns, ...s.updates]) sends[g.id]!++;
    }
    const important = sends.slice(1, 201).reduce((a, b) => a + b, 0) / 200;
    const normal = sends.slice(201).reduce((a, b) => a + b, 0) / 200;
    // Importance 4 vs 1: sent about 4× as often (priority = importance × age, so the wait is ∝ 1/importance).
    expect(important / normal).toBeGreaterThan(2.5);
    expect(Math.min(...sends.slice(1))).toBeGreaterThan(0);
  });
});
