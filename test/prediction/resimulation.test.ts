// A rollback's resimulated ticks reproduce the first-time prediction exactly when nothing was
// mispredicted: integer movement (exact through the wire) and a predicted-only counter, over a
// 60 ms-each-way link with rollback 'always', a fourth ghost spawned mid-run. Every predicted
// sample is remembered the first time it appears in a ghost's history and compared, value for
// value, with what the history holds after each later frame (after each rollback); a resimulation
// that ended anywhere else than the first prediction would also show as a visual correction.
import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, system, type Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    walker: ghost(
      { x: field.i32(), vx: field.i32(), steps: field.u32({ replicated: false }), position: field.vec3({ quantize: 1000 }) },
      { modes: ['predicted', 'interpolated'] },
    ),
  },
  input: { push: field.i32() },
});

const systems = defineSystems(protocol, [
  system.shared('walk', (world, ctx) => {
    for (const w of world.query('walker')) {
      const c = w.components;
      c.vx = Math.max(-50, Math.min(50, c.vx + ctx.input(w).push)); // integers: the server's state and ours agree exactly
      c.x += c.vx;
      c.steps += 1; // predicted-only: restored from our own history at a rollback
      c.position.x = c.x / 1000; // mm on the wire's grid: a resimulation that ends elsewhere shows as a correction
    }
  }),
]);

const quiet: Logger = () => {};

describe('resimulation', () => {
  it('resimulated ticks give exactly the samples the first-time ticks recorded', () => {
    const link = { latencyMs: 60 };
    const s = createStepper({ protocol, systems, seed: 4, log: quiet, clients: [{ link: { up: link, down: link }, engine: { prediction: { rollback: 'always' } } }] });
    s.server.events.on('join', (c) => {
      for (let i = 0; i < 3; i++) s.server.spawn('walker', { x: i * 1000 }, { owner: c.networkId });
    });
    s.joinAll({});
    const client = s.clients[0]!.client;
    const prediction = client.requirePrediction();
    s.until(() => client.world.size === 3 && prediction.lastTick !== undefined, 5000, 'prediction to start');
    s.advance(2000);
    const first = new Map<string, string>(); // `${handle}@${tick}` → the sample when first recorded
    let compared = 0;
    const before = { ...prediction.stats };
    const corrected: number[] = [];
    prediction.events.on('correction', (c) => corrected.push(c.ghostId));
    const firstThree = [...client.world.query('walker')].map((g) => g.id);
    for (let frame = 0; frame < 600; frame++) {
      client.input.current.push = Math.round(Math.sin(frame / 17) * 3);
      if (frame === 300) {
        const owner = client.networkId!;
        s.server.spawn('walker', { x: -500 }, { owner });
      }
      s.advance(1000 / 60);
      for (const g of client.world.query('walker')) {
        const last = prediction.lastTick!;
        prediction.history(g)?.forEach((sample, tick) => {
          if (last - tick > 20) return; // older than any rollback here (about 8 ticks deep): compared already
          const key = `${g.handle}@${tick}`;
          const now = JSON.stringify(sample);
          const seen = first.get(key);
          if (seen === undefined) first.set(key, now);
          else {
            expect(now, key).toBe(seen);
            compared++;
          }
        });
      }
    }
    const st = prediction.stats;
    expect(client.world.size).toBe(4);
    expect(st.mispredictions - before.mispredictions).toBe(0);
    // 600 frames = 10 s at 20 Hz snapshots: about 200 rollbacks of about 8 ticks (120 ms RTT + slack).
    expect(st.rollbacks - before.rollbacks).toBeGreaterThan(150);
    expect(st.resimulatedTicks - before.resimulatedTicks).toBeGreaterThan(150 * 6);
    expect(compared).toBeGreaterThan(20_000); // about 20 ticks × 4 walkers × 600 frames, less the first sight of each
    // The three walkers never moved on screen; the one spawned mid-run jumps once, at the first
    // rollback after it arrived (it is resimulated from its confirmed state: a catch-up).
    expect(corrected.filter((id) => firstThree.includes(id))).toEqual([]);
    expect(corrected.length).toBeLessThanOrEqual(1);
  });
});
