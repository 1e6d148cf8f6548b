// A pinned trace of what a client shows, frame by frame, in seeded scenarios: predicted ghosts with
// float and integer fields under rollback 'always' and 'check', a server that nudges them (so
// mispredictions and visual corrections), a lossy, jittery link, uneven frame rates (frame
// interpolation at every fraction), interpolated ghosts, a spawn and a despawn mid-run and a stall.
// Each frame, client.view() of every ghost (full precision), the prediction's stats and the events
// seen go into a running FNV-1a hash; the hash is pinned every 120 frames. The pinned values were
// taken on the engine as it was before the prediction engine's rollback and frame interpolation were
// restructured: any change to what a client shows (a value, an order, a correction) changes a digest.
// A change that is meant to alter what is shown must update the pins and say why.
import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, system, type Logger } from '../../src/index.ts';
import { createStepper, type StepperClientOptions } from '../../src/testing/index.ts';

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    walker: ghost(
      {
        position: field.vec3({ quantize: 1000 }),
        rotation: field.quat({ tolerance: 0.01 }),
        velocity: field.vec3({ quantize: 1000 }),
        heat: field.f32({ tolerance: 0.01 }),
        steps: field.u32({ replicated: false }),
        lap: field.i32(),
        open: field.bool(),
      },
      { modes: ['predicted', 'interpolated'] },
    ),
    drone: ghost({ position: field.vec3({ quantize: 1000 }), rotation: field.quat(), glow: field.f32() }, { modes: ['interpolated'] }),
  },
  input: { move: field.vec2({ quantize: 100, maxLength: 1 }), jump: field.bool() },
});

const systems = defineSystems(protocol, [
  system.shared('walk', (world, ctx) => {
    for (const w of world.query('walker')) {
      const c = w.components;
      const { move, jump } = ctx.input(w);
      c.velocity.x = c.velocity.x * 0.9 + move.x * 0.6;
      c.velocity.z = c.velocity.z * 0.9 + move.y * 0.6;
      c.velocity.y = jump ? 3 : Math.max(-5, c.velocity.y - 9.8 * ctx.dt);
      c.position.x += c.velocity.x * ctx.dt;
      c.position.y = Math.max(0, c.position.y + c.velocity.y * ctx.dt);
      c.position.z += c.velocity.z * ctx.dt;
      const a = Math.atan2(c.velocity.z, c.velocity.x) / 2;
      c.rotation.x = 0;
      c.rotation.y = Math.sin(a);
      c.rotation.z = 0;
      c.rotation.w = Math.cos(a);
      c.heat = c.heat * 0.95 + Math.abs(move.x) * 0.1;
      c.steps += 1;
      if (c.position.x > 3) c.lap += 1;
      c.open = c.position.y > 0.2;
    }
  }),
  // Server only: pushes every walker now and then, which the client cannot predict.
  system.server('nudge', (world, ctx) => {
    if (ctx.tick % 41 !== 0) return;
    for (const w of world.query('walker')) {
      w.components.position.x += ctx.rng.range(-0.4, 0.4);
      w.components.heat += 1;
    }
  }),
  system.server('fly', (world, ctx) => {
    let i = 0;
    for (const d of world.query('drone')) {
      const a = ctx.tick / 60 + i++;
      d.components.position.x = Math.cos(a) * 5;
      d.components.position.z = Math.sin(a) * 5;
      d.components.rotation.y = Math.sin(a / 2);
      d.components.rotation.w = Math.cos(a / 2);
      d.components.glow = (ctx.tick % 30) / 30;
    }
  }),
]);

const quiet: Logger = () => {};

/** FNV-1a over a string, chained. */
function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

interface Scenario {
  seed: number;
  client: StepperClientOptions;
  frames: number;
  /** Frame at which the client's main thread is blocked for `stallMs`. */
  stallAt?: number;
  stallMs?: number;
}

function trace(sc: Scenario): { pins: string[]; stats: Record<string, number> } {
  const s = createStepper({ protocol, systems, seed: sc.seed, log: quiet, clients: [sc.client] });
  const owned: number[] = [];
  s.server.events.on('join', (c) => {
    for (let i = 0; i < 3; i++) owned.push(s.server.spawn('walker', { position: { x: i, y: 0, z: 0 } }, { owner: c.networkId }).id);
    for (let i = 0; i < 4; i++) s.server.spawn('drone', {});
  });
  s.joinAll({});
  const sc0 = s.clients[0]!;
  const client = sc0.client;
  const prediction = client.requirePrediction();
  s.until(() => client.world.size === 7 && prediction.lastTick !== undefined, 5000, 'prediction to start');
  let events = '';
  prediction.events.on('misprediction', (m) => (events += `m${m.ghostId}.${m.field}@${m.tick};`));
  prediction.events.on('correction', (c) => (events += `c${c.ghostId}@${c.tick}<${c.fromTick}:${c.distance};`));
  prediction.events.on('rollbackCapped', (id, depth) => (events += `x${id}:${depth};`));
  let h = 2166136261;
  const pins: string[] = [];
  for (let frame = 0; frame < sc.frames; frame++) {
    client.input.current.move.x = Math.round(Math.sin(frame / 23) * 100) / 100;
    client.input.current.move.y = Math.round(Math.cos(frame / 31) * 100) / 100;
    client.input.current.jump = frame % 97 < 3;
    if (frame === Math.floor(sc.frames / 3)) s.server.spawn('walker', { position: { x: -2, y: 1, z: 0 } }, { owner: client.networkId! });
    if (frame === Math.floor(sc.frames / 2)) s.server.despawn(s.server.world.get(owned[1]!)!);
    if (frame === sc.stallAt) s.stall(sc0, sc.stallMs!);
    const before = sc0.frames;
    while (sc0.frames === before) s.advance(1);
    let line = `${frame}|`;
    const all = [...client.world.all()].sort((a, b) => a.id - b.id);
    for (const g of all) line += `${g.id}:${g.mode}:${JSON.stringify(client.view(g as never))};`;
    line += JSON.stringify(prediction.stats) + events;
    events = '';
    h = fnv(h, line);
    if ((frame + 1) % 120 === 0) pins.push(h.toString(16).padStart(8, '0'));
  }
  return { pins, stats: { ...prediction.stats } };
}

const lossy = { latencyMs: 45, jitterMs: 20, loss: 0.1, reorder: 0.05, duplicate: 0.02 };

describe('client-visible trace', () => {
  it("rollback 'always', 60 ms each way, 144 Hz frames with jitter: the pinned digests", () => {
    const r = trace({
      seed: 11, frames: 1440,
      client: { link: { up: { latencyMs: 60 }, down: { latencyMs: 60 } }, clock: { framePeriodMs: 1000 / 144, frameJitter: 0.4 }, engine: { prediction: { rollback: 'always' } } },
    });
    expect(r.stats['rollbacks']).toBeGreaterThan(100);
    expect(r.stats['mispredictions']).toBeGreaterThan(10);
    expect(r.stats['corrections']).toBeGreaterThan(10);
    expect(r.pins).toEqual(PINS.always);
  });

  it("rollback 'check', a lossy jittery link, 50 Hz frames: the pinned digests", () => {
    const r = trace({
      seed: 12, frames: 720,
      client: { link: { up: lossy, down: lossy }, clock: { framePeriodMs: 20, frameJitter: 0.3 }, engine: { prediction: { rollback: 'check' } } },
    });
    expect(r.stats['rollbacks']).toBeGreaterThan(10);
    expect(r.stats['catchUpTicks']).toBeGreaterThan(0);
    expect(r.stats['skipped']).toBeGreaterThan(100);
    expect(r.stats['corrections']).toBeGreaterThan(5);
    expect(r.pins).toEqual(PINS.check);
  });

  it('a stall of 1.5 s at 30 Hz frames (capped ticks per frame, restart from the snapshot): the pinned digests', () => {
    const r = trace({
      seed: 13, frames: 360, stallAt: 150, stallMs: 1500,
      client: { link: { up: { latencyMs: 40 }, down: { latencyMs: 40 } }, clock: { framePeriodMs: 1000 / 30 }, engine: { prediction: { rollback: 'always' } } },
    });
    expect(r.stats['skippedTicks']).toBeGreaterThan(30);
    expect(r.pins).toEqual(PINS.stall);
  });
});

const PINS: Record<'always' | 'check' | 'stall', string[]> = {
  always: ['bd4a9b3c', 'ef00525d', '92a3c620', 'caa9ec02', 'bc10d998', '42ef226e', '420e79f0', '7d57fdd2', 'eaa7d786', 'd80a836e', '498376a8', 'dc5ac2f4'],
  check: ['3814103b', '62429a95', '4358ef84', '8175fc43', '35ad226f', '2b522676'],
  stall: ['2f40ebed', '687f82f2', '75a139a9'],
};
