// Server-at-scale benchmark: the NetServer's tick with 64 players (Stepper clients over the
// loopback, each predicting its player at 30 fps and sending the input of every tick) and 500 more
// ghosts, without physics (500 drones moved by a server system) and with it (500 dynamic Rapier
// boxes, react-netcode/rapier, stepped by the server only and interpolated on clients). Only
// server.tick() is timed: ms per tick and per snapshot tick (mean, p50, p99), heap per tick.
// Run through bench/run.ts; prints a table and, last, one `BENCH {json}` line.
import RAPIER from '@dimforge/rapier3d-compat';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import type { Logger } from '../src/core/emitter.ts';
import { field } from '../src/core/field.ts';
import { defineProtocol, ghost, isSnapshotTick } from '../src/core/protocol.ts';
import { defineSystems, system, type SystemDef } from '../src/core/system.ts';
import { createPhysics } from '../src/rapier/index.ts';
import { createStepper } from '../src/testing/stepper.ts';
import { mean, quantile, round } from './load/measure.ts';

const PLAYERS = 64;
const GHOSTS = 500;
const WARM_UP_MS = 3000;
const MEASURED_MS = 5000;
const SEED = 0x5ca1e;
const FRAME_MS = 1000 / 60;
const CLIENT_FRAME_MS = 1000 / 30; // the players run 30 fps (two inputs committed per frame): the bench process hosts all 64

type Result = { case: string; system: string } & Record<string, number | string | null>;

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted', 'interpolated'] }),
    thing: ghost(
      { position: field.vec3({ quantize: 1000 }), rotation: field.quat(), linvel: field.vec3({ quantize: 1000 }), angvel: field.vec3({ quantize: 1000 }) },
      { modes: ['interpolated'] },
    ),
  },
  input: { move: field.vec2({ quantize: 100, maxLength: 1 }) },
});
type P = typeof protocol;

const gc = (globalThis as { gc?: () => void }).gc;
const quiet: Logger = () => {};


/** Players walk by input (shared); the 500 things are drones on circles, or boxes stepped by Rapier on the server only. */
function game(withPhysics: boolean) {
  const walk = system.shared<P>('walk', (world, ctx) => {
    for (const p of world.query('player')) {
      const { move } = ctx.input(p);
      p.components.position.x += move.x * 4 * ctx.dt;
      p.components.position.z += move.y * 4 * ctx.dt;
    }
  });
  if (!withPhysics) {
    const fly = system.server<P>('fly', (world, ctx) => {
      const a = (ctx.tick / 60) * 0.5;
      let i = 0;
      for (const d of world.query('thing')) {
        const phase = a + i * 0.013;
        const r = 10 + (i % 40);
        d.components.position.x = r * Math.cos(phase);
        d.components.position.z = r * Math.sin(phase);
        d.components.rotation.y = Math.sin(phase / 2);
        d.components.rotation.w = Math.cos(phase / 2);
        i++;
      }
    });
    return { systems: defineSystems(protocol, [walk, fly]), physics: undefined };
  }
  const physics = createPhysics(RAPIER, {
    level: (w, R) => void w.createCollider(R.ColliderDesc.cuboid(60, 0.5, 60).setTranslation(0, -0.5, 0)),
    bodies: { thing: { kind: 'dynamic', collider: { cuboid: [0.25, 0.25, 0.25] }, density: 1, friction: 0.5 } },
  });
  const kick = { x: 0, y: 0.4, z: 0 };
  const stir = system.server<P>('stir', (world, ctx) => {
    for (const b of world.query('thing')) {
      if (ctx.rng.next() > 0.02) continue;
      kick.x = ctx.rng.range(-0.5, 0.5);
      kick.z = ctx.rng.range(-0.5, 0.5);
      physics.applyImpulse(b, kick);
    }
  });
  // Interpolated on clients: the server alone steps the bodies.
  const step: SystemDef<P> = system.server<P>('physics', physics.system<P>().run);
  return { systems: defineSystems(protocol, [walk, stir, step]), physics };
}

interface Sample {
  ms: number;
  snapshot: boolean;
  heap: number;
  t0: number;
  t1: number;
}

async function measure(withPhysics: boolean): Promise<{ result: Result; discarded: number }> {
  const { systems, physics } = game(withPhysics);
  const stepper = createStepper({
    protocol, systems, seed: SEED, log: quiet, serverClock: { framePeriodMs: FRAME_MS },
    clients: Array.from({ length: PLAYERS }, () => ({ clock: { framePeriodMs: CLIENT_FRAME_MS } })),
  });
  const server = stepper.server;
  server.events.on('join', (c) => {
    server.spawn('player', { position: { x: (c.networkId % 8) * 2, y: 0.5, z: Math.floor(c.networkId / 8) * 2 } }, { owner: c.networkId });
  });
  for (let i = 0; i < GHOSTS; i++) {
    const layer = Math.floor(i / 100);
    server.spawn('thing', { position: { x: (i % 10) * 0.55 + layer * 0.13, y: 0.26 + layer * 0.52, z: Math.floor((i % 100) / 10) * 0.55 } });
  }
  stepper.joinAll({});
  // Each player's stick turns a little every frame (seeded by its index), so inputs change every tick.
  for (const c of stepper.clients) {
    let frame = 0;
    const update = c.client.update.bind(c.client);
    (c.client as { update: (now: number) => void }).update = (now: number): void => {
      const a = (frame++ / 30) * (0.5 + (c.index % 8) * 0.1) + c.index;
      c.client.input.current.move.x = Math.round(Math.cos(a) * 100) / 100;
      c.client.input.current.move.y = Math.round(Math.sin(a) * 100) / 100;
      update(now);
    };
  }
  const samples: Sample[] = [];
  let recording = false;
  const tick = server.tick.bind(server);
  server.tick = (): void => {
    const snapshot = isSnapshotTick(protocol, server.currentTick);
    const t0 = performance.now();
    const m0 = process.memoryUsage().heapUsed;
    tick();
    const m1 = process.memoryUsage().heapUsed;
    const t1 = performance.now();
    if (recording) samples.push({ ms: t1 - t0, snapshot, heap: m1 - m0, t0, t1 });
  };
  stepper.advance(WARM_UP_MS);
  if (stepper.clients.some((c) => c.client.world.size !== PLAYERS + GHOSTS)) throw new Error('react-netcode: bench clients do not see every ghost');
  gc?.();
  const gcs: { start: number; end: number }[] = [];
  const observer = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  recording = true;
  stepper.advance(MEASURED_MS);
  recording = false;
  await new Promise((resolve) => setTimeout(resolve, 20));
  observer.disconnect();
  const missing = [...server.connectionsInGame].reduce((sum, c) => sum + (server.inputStats(c)?.missing ?? 0), 0);
  physics?.dispose(server.world);
  const clean = samples.filter((s) => !gcs.some((g) => g.end >= s.t0 && g.start <= s.t1));
  const plain = samples.filter((s) => !s.snapshot).map((s) => s.ms);
  const snaps = samples.filter((s) => s.snapshot).map((s) => s.ms);
  return {
    result: {
      case: `${PLAYERS} players, ${GHOSTS} ghosts, ${withPhysics ? '500 Rapier boxes' : 'no physics'}`, system: 'react-netcode',
      msPerTick: round(mean(samples.map((s) => s.ms)), 4),
      msPerPlainTickP50: round(quantile(plain, 0.5), 4), msPerPlainTickP99: round(quantile(plain, 0.99), 4),
      msPerSnapshotTick: round(mean(snaps), 4), msPerSnapshotTickP50: round(quantile(snaps, 0.5), 4), msPerSnapshotTickP99: round(quantile(snaps, 0.99), 4),
      heapBytesPerTick: gc ? round(mean(clean.map((s) => s.heap)), 0) : null, ticks: samples.length, inputsMissing: missing,
    },
    discarded: samples.length - clean.length,
  };
}

export async function run(): Promise<void> {
  const started = performance.now();
  await RAPIER.init();
  const results: Result[] = [];
  const notes: string[] = [];
  for (const withPhysics of [false, true]) {
    const m = await measure(withPhysics);
    results.push(m.result);
    notes.push(`${m.discarded} of ${String(m.result['ticks'])}`);
  }
  console.table(results.map(({ case: name, system: sys, ...metrics }) => ({ case: name, system: sys, ...metrics })));
  console.log(`server.tick() of a NetServer with ${PLAYERS} Stepper clients (loopback, 30 fps, input every tick, all ghosts relevant to all), ${MEASURED_MS / 1000} s after ${WARM_UP_MS / 1000} s of warm-up.`);
  console.log('msPerTick: mean over every tick; PlainTick: ticks without snapshots (p50, p99); SnapshotTick: the ticks that build and send the 64 snapshots (mean, p50, p99).');
  console.log(`heapBytesPerTick: mean heapUsed growth around one tick, ticks with a gc inside left out (${notes.join(', ')}); inputsMissing: ticks the server ran without a player's input (whole run).`);
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'server-scale', results })}`);
}
