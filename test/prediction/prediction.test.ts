// Client prediction with rollback over the Stepper: the local player moves on the
// tick of its input, ahead of the confirmed state; deterministic movement never
// needs a correction; an unpredictable server push is corrected and smoothed.

import { describe, expect, it } from 'vitest';
import { defineSystems, system, type Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { runnerProtocol, runnerSystems, SPEED } from '../helpers/runner.ts';

const quiet: Logger = () => {};
const bad = { latencyMs: 75, jitterMs: 20, loss: 0.05 }; // 150 ms RTT ± 20 ms, 5 % loss each way

function setup(systems = runnerSystems, link = bad, seed = 9) {
  const s = createStepper({ protocol: runnerProtocol, systems, seed, log: quiet, clients: [{ link: { up: link, down: link } }] });
  s.server.events.on('join', (c) => s.server.spawn('runner', {}, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  const client = s.clients[0]!.client;
  s.until(() => client.world.size === 1 && client.prediction!.lastTick !== undefined, 5000, 'prediction to start');
  s.advance(2000); // clock sync settles
  const me = [...client.world.query('runner')][0]!;
  return { s, client, me };
}

describe('prediction', () => {
  it('moves the local player on the tick of the input, at least RTT ahead of the confirmed state', () => {
    const { s, client, me } = setup();
    const startX = me.components.position.x;
    client.input.current.move.x = 1;
    const before = client.prediction!.lastTick!;
    s.advance(1000 / 60); // the next predicted tick commits this input and simulates it at once
    expect(client.prediction!.lastTick!).toBeGreaterThan(before);
    expect(me.components.position.x).toBeGreaterThan(startX); // moved on the input's tick
    s.advance(500);
    const rec = client.ghosts.record(me.id)!;
    const confirmedX = (rec.history.get(rec.confirmedTick)!.position as { x: number }).x; // GhostRecord is untyped (any ghost type)
    // Predicted − confirmed ≥ RTT worth of movement: 150 ms × 4 m/s = 0.6 m (less a tick of rounding).
    expect(me.components.position.x - confirmedX).toBeGreaterThan(0.6 - SPEED / 60);
    expect(client.prediction!.lastTick! - rec.confirmedTick).toBeGreaterThanOrEqual(9); // 150 ms = 9 ticks
  });

  it('deterministic movement for 60 s at 150 ms RTT ± 20 ms, 5 % loss: no correction above 1 mm', () => {
    const { s, client, me } = setup();
    s.advance(3000); // 5 s after joining in all: clock sync and adaptive slack have settled
    const corrections: number[] = [];
    for (let i = 0; i < 60 * 60; i++) {
      const t = i / 60;
      client.input.current.move.x = Math.round(Math.sin(t) * 100) / 100;
      client.input.current.move.y = Math.round(Math.cos(t * 0.7) * 100) / 100;
      s.advance(1000 / 60);
      const c = client.prediction!.correction(me)!;
      if (c.offsetMagnitude > 0.001) corrections.push(c.offsetMagnitude);
    }
    expect(corrections).toEqual([]);
    // 'check' resimulates only on a real misprediction (a late input the server had to guess): rare.
    const rollbacks = client.prediction!.stats.rollbacks;
    expect(rollbacks).toBeLessThanOrEqual(1 + 5); // the first (prediction starting) plus a few late inputs
    expect(s.server.inputStats(s.server.connections.get(client.networkId!)!)!.received).toBeGreaterThan(3000);
  });

  it('corrects an unpredictable server push; the visual offset decays monotonically without overshoot', () => {
    const push = defineSystems(runnerProtocol, [
      ...runnerSystems,
      system.server('push', (world, ctx) => {
        if (ctx.tick % 600 !== 300) return; // once every 10 s
        for (const r of world.query('runner')) r.components.position.x += 0.5;
      }),
    ]);
    const { s, client, me } = setup(push, { latencyMs: 50, jitterMs: 0, loss: 0 });
    const c = () => client.prediction!.correction(me)!;
    s.until(() => c().offsetMagnitude > 0.1, 12_000, 'the push to be corrected');
    expect(client.prediction!.stats.rollbacks).toBeGreaterThan(0);
    const mags: number[] = [];
    for (let i = 0; i < 30; i++) {
      mags.push(c().offsetMagnitude);
      s.advance(1000 / 144);
    }
    expect(mags[0]).toBeGreaterThan(0.3);
    expect(mags[0]).toBeLessThanOrEqual(0.5 + 1e-6);
    for (let i = 1; i < mags.length; i++) expect(mags[i]).toBeLessThanOrEqual(mags[i - 1]!); // monotonic
    expect(mags.at(-1)).toBe(0); // 100 ms smoothing; 30 frames at 144 Hz = 208 ms
    expect(client.prediction!.correction(me)!.offset).toEqual({ x: 0, y: 0, z: 0 }); // no overshoot left
    const server = s.server.world.get(me.id)!;
    expect(Math.abs(server.components.position.x - me.components.position.x)).toBeLessThan(0.01); // sim took the server's word
  });
});

/** The runner's systems, and the server alone pushing every runner 0.25 m back every 2 s: a misprediction each time. */
const pushBack = defineSystems(runnerProtocol, [
  ...runnerSystems,
  system.server('push', (world, ctx) => {
    if (ctx.tick % 120 !== 60) return;
    for (const r of world.query('runner')) r.components.position.z -= 0.25;
  }),
]);

describe('prediction details', () => {
  it('reports mispredictions per field and restores predicted-only fields from local history', () => {
    const { s, client, me } = setup(pushBack, { latencyMs: 50, jitterMs: 0, loss: 0 });
    const reports: { field: string; distance: number; tolerance: number }[] = [];
    client.prediction!.events.on('misprediction', (m) => reports.push({ field: m.field, distance: m.distance, tolerance: m.tolerance }));
    const startSteps = me.components.steps;
    const startTick = client.prediction!.lastTick!;
    s.advance(5000);
    expect(client.prediction!.stats.rollbacks).toBeGreaterThanOrEqual(2); // a push every 2 s
    expect(reports.length).toBeGreaterThanOrEqual(2);
    for (const r of reports) {
      expect(r.field).toBe('position');
      expect(r.distance).toBeCloseTo(0.25, 2); // the push, seen at the confirmed tick
      expect(r.tolerance).toBeCloseTo(Math.sqrt(3) / 1000, 9); // one quantization step per axis
    }
    // `steps` (replicated: false) counted one per predicted tick, unbroken by the rollbacks:
    // had a rollback taken the confirmed value (never sent: 0), it would have restarted from 0.
    expect(me.components.steps - startSteps).toBe(client.prediction!.lastTick! - startTick);
  });

  it('counts the same mispredictions with no listener (the history kernel) as with one (a report per field)', () => {
    const counted = (listen: boolean): number => {
      const { s, client } = setup(pushBack, { latencyMs: 50, jitterMs: 0, loss: 0 });
      if (listen) client.prediction!.events.on('misprediction', () => {});
      const before = client.prediction!.stats.mispredictions;
      s.advance(5000);
      return client.prediction!.stats.mispredictions - before;
    };
    const heard = counted(true);
    expect(heard).toBeGreaterThanOrEqual(2); // a push every 2 s
    expect(counted(false)).toBe(heard);
  });

  it('exposes NetworkTime: predictedTick ahead of serverTick ahead of interpolationTick', () => {
    const { s, client } = setup(runnerSystems, { latencyMs: 75, jitterMs: 0, loss: 0 });
    s.advance(1000);
    const t = client.time;
    const server = s.server.currentTick;
    // predicted ≈ server + one-way (75 ms = 4.5 ticks) + slack (≥ 2); interpolation ≈ server − one-way − delay.
    expect(t.predictedTick - server).toBeGreaterThanOrEqual(5);
    expect(t.predictedTick - server).toBeLessThanOrEqual(10);
    expect(Math.abs(t.serverTick - server)).toBeLessThan(1.5);
    expect(server - t.interpolationTick).toBeGreaterThanOrEqual(6);
    expect(t.rttMs).toBeGreaterThan(140);
    expect(t.isResimulating).toBe(false);
    expect(t.isFirstTimeFullyPredictingTick).toBe(true);
  });
});

describe('prediction limits', () => {
  it("with 'check', a run without misprediction performs no resimulation", () => {
    const { s, client } = setup(runnerSystems, { latencyMs: 60, jitterMs: 0, loss: 0 });
    const before = { ...client.prediction!.stats };
    for (let i = 0; i < 600; i++) {
      client.input.current.move.x = i % 120 < 60 ? 1 : -1; // inputs change, the server replays them exactly
      s.advance(1000 / 60);
    }
    const after = client.prediction!.stats;
    expect(after.skipped - before.skipped).toBeGreaterThan(150); // ~200 snapshots checked (10 s × 20 Hz)
    expect(after.rollbacks - before.rollbacks).toBe(0);
    expect(after.resimulatedTicks - before.resimulatedTicks).toBe(0);
  });

  it('beyond the 500 ms prediction cap, added latency becomes input delay and inputs still arrive in time', () => {
    const { s, client } = setup(runnerSystems, { latencyMs: 600, jitterMs: 0, loss: 0 });
    s.advance(4000);
    // RTT 1200 ms: lead wanted = 600 ms + slack ≈ 36 + 2 ticks; capped at 500 ms = 30 ticks;
    // the rest (≈ 8 ticks) is input delay.
    expect(client.clock.inputDelayTicks).toBeGreaterThanOrEqual(7);
    expect(client.clock.predictedTick - s.server.currentTick).toBeLessThanOrEqual(31);
    const conn = s.server.connections.get(client.networkId!)!;
    const before = { ...s.server.inputStats(conn)! };
    s.advance(5000);
    const after = s.server.inputStats(conn)!;
    expect(after.late - before.late).toBe(0);
    expect(after.missing - before.missing).toBe(0);
    expect(after.received - before.received).toBeGreaterThan(280); // 5 s × 60 ticks, all on time
  });
});
