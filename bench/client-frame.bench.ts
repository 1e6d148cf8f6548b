// Client-frame benchmark: what one rendered frame of a NetClient costs at 60 fps with one
// predicted player (a Rapier character), 200 interpolated ghosts and 50 predicted Rapier boxes
// (react-netcode/rapier, 'smoothed' mode), a snapshot every third tick (60/20 Hz) and a rollback
// at each (policy 'always'), over a Stepper link of 50 ms each way. The frame is NetClient.update
// plus reading client.view() of every ghost, as a renderer does. Mean ms per frame, rollback
// frames (mean, p95) and heap bytes per frame. Run through bench/run.ts; prints a table and,
// last, one `BENCH {json}` line.
import RAPIER from '@dimforge/rapier3d-compat';
import { Session } from 'node:inspector/promises';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import type { Logger } from '../src/core/emitter.ts';
import { field } from '../src/core/field.ts';
import { defineProtocol, ghost } from '../src/core/protocol.ts';
import { defineSystems, system, type SystemDef } from '../src/core/system.ts';
import type { Ghost } from '../src/core/world.ts';
import { createPhysics } from '../src/rapier/index.ts';
import { createStepper } from '../src/testing/stepper.ts';
import { mean, quantile, round } from './load/measure.ts';

const DRONES = 200;
const BOXES = 50;
const LATENCY_MS = 50; // each way
const WARM_UP_MS = 5000;
const MEASURED_MS = 20_000;
const HEAP_MS = 10_000; // frames under the sampling heap profiler (timed apart: the profiler slows them)
const HEAP_USED_RUNS = 3; // runs of HEAP_USED_MS with heapUsed read around every frame, each after a forced gc
const HEAP_USED_MS = 5000;
/**
 * Played time after which heapUsed is measured again (heapUsedBytesPerFrameSteady): V8 optimizes a function after some
 * hundreds of calls, which what runs per snapshot (20 Hz) or per Pong reaches only after a minute or more; until then
 * its floats are heap numbers.
 */
const STEADY_MS = 150_000;
const SEED = 0xc11e47;
const FRAME_MS = 1000 / 60;

type Result = { case: string; system: string } & Record<string, number | string | null>;

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted', 'interpolated'] }),
    drone: ghost({ position: field.vec3({ quantize: 1000 }), rotation: field.quat() }, { modes: ['interpolated'] }),
    box: ghost(
      { position: field.vec3({ quantize: 1000 }), rotation: field.quat(), linvel: field.vec3({ quantize: 1000 }), angvel: field.vec3({ quantize: 1000 }) },
      { modes: ['predicted'] },
    ),
  },
  input: { move: field.vec2({ quantize: 100, maxLength: 1 }) },
});
type P = typeof protocol;

const gc = (globalThis as { gc?: () => void }).gc;
const quiet: Logger = Object.assign(() => {}, { levels: [] }); // writes nothing, and says so: the client builds no info line per correction


/** The game: the player walks (a character) through the boxes; drones circle on the server; boxes get small seeded kicks. */
function game(withBodies: boolean) {
  const physics = createPhysics(RAPIER, {
    level: (w, R) => void w.createCollider(R.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0)),
    bodies: {
      player: { kind: 'character', collider: { capsule: [0.5, 0.3] } },
      box: { kind: 'dynamic', collider: { cuboid: [0.25, 0.25, 0.25] }, density: 1, friction: 0.5 },
    },
  });
  const kick = { x: 0, y: 0.3, z: 0 };
  const list: SystemDef<P>[] = [
    system.shared('walk', (world, ctx) => {
      for (const p of world.query('player')) {
        const { move } = ctx.input(p);
        physics.moveCharacter(p, { x: move.x * 4 * ctx.dt, y: 0, z: move.y * 4 * ctx.dt });
      }
    }),
    system.shared('stir', (world, ctx) => {
      if (ctx.tick % 6 !== 0) return;
      for (const b of world.query('box')) {
        if (ctx.rng.next() > 0.2) continue;
        kick.x = ctx.rng.range(-0.3, 0.3);
        kick.z = ctx.rng.range(-0.3, 0.3);
        physics.applyImpulse(b, kick);
      }
    }),
    physics.system(),
    system.server('fly', (world, ctx) => {
      const a = (ctx.tick / 60) * 0.5;
      let i = 0;
      for (const d of world.query('drone')) {
        const r = 10 + (i % 20);
        const phase = a + i * 0.031;
        d.components.position.x = r * Math.cos(phase);
        d.components.position.z = r * Math.sin(phase);
        d.components.position.y = 3 + (i % 7) * 0.5;
        const half = phase / 2;
        d.components.rotation.y = Math.sin(half);
        d.components.rotation.w = Math.cos(half);
        i++;
      }
    }),
  ];
  return { physics, systems: defineSystems(protocol, withBodies ? list : list.filter((s) => s.name !== 'stir')), withBodies };
}

interface Frame {
  ms: number;
  rollback: boolean;
  resimulated: number;
}

/** The frame's functions as the heap profile names them: the timing wrapper and the frame it times. */
const FRAME_FUNCTIONS = new Set(['timedClientFrame', 'measuredClientFrame']);

type ProfileNode = { callFrame: { functionName: string }; selfSize: number; children: ProfileNode[] };

/**
 * Bytes allocated inside the timed frame (garbage included) while `run` runs: V8's sampling heap
 * profiler, keeping the samples of objects already collected, scales each sample to an estimate of
 * the bytes it stands for. The server's work in between frames is not counted.
 */
async function allocatedInFrames(run: () => void): Promise<number> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', { samplingInterval: 128, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  run();
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
  session.disconnect();
  const sum = (n: ProfileNode): number => n.children.reduce((total, c) => total + sum(c), n.selfSize);
  // Under either name: V8 may inline measuredClientFrame into timedClientFrame, and a stack then shows only the latter.
  const inFrames = (n: ProfileNode): number => (FRAME_FUNCTIONS.has(n.callFrame.functionName) ? sum(n) : n.children.reduce((t, c) => t + inFrames(c), 0));
  return inFrames(profile.head);
}

/** Heap bytes that one process.memoryUsage() call itself adds between two readings (median of 50). */
function readingCost(): number {
  const deltas: number[] = [];
  for (let i = 0; i < 50; i++) {
    const a = process.memoryUsage().heapUsed;
    deltas.push(process.memoryUsage().heapUsed - a);
  }
  deltas.sort((a, b) => a - b);
  return deltas[25]!;
}

/** Per-frame heapUsed growth, collected while `on` is set, and the frames during which a gc ran. */
class HeapUsedProbe {
  on = false;
  private readonly cost = readingCost();
  private samples: { t0: number; t1: number; bytes: number }[] = [];
  private gcs: { start: number; end: number }[] = [];
  private readonly observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) this.gcs.push({ start: e.startTime, end: e.startTime + e.duration });
  });

  around(frame: (now: number) => void, now: number): void {
    const t0 = performance.now();
    const m0 = process.memoryUsage().heapUsed;
    frame(now);
    const m1 = process.memoryUsage().heapUsed;
    this.samples.push({ t0, t1: performance.now(), bytes: m1 - m0 - this.cost });
  }

  /**
   * HEAP_USED_RUNS runs of `run`, each after a forced gc and 500 ms of re-warm-up: per run the mean
   * growth per frame over the frames without a gc inside; the largest of the runs, and the frames left out.
   */
  async measure(advance: (ms: number) => void): Promise<{ perFrame: number; discarded: number; frames: number } | null> {
    if (typeof gc !== 'function') return null;
    this.observer.observe({ entryTypes: ['gc'] });
    let worst = 0;
    let discarded = 0;
    let frames = 0;
    for (let r = 0; r < HEAP_USED_RUNS; r++) {
      gc();
      advance(500);
      this.samples = [];
      this.gcs = [];
      this.on = true;
      advance(HEAP_USED_MS);
      this.on = false;
      await new Promise((resolve) => setTimeout(resolve, 20)); // let the gc entries arrive
      const clean = this.samples.filter((s) => !this.gcs.some((g) => g.end >= s.t0 && g.start <= s.t1));
      discarded += this.samples.length - clean.length;
      frames += clean.length;
      if (clean.length > 0) worst = Math.max(worst, clean.reduce((t, s) => t + s.bytes, 0) / clean.length);
    }
    this.observer.disconnect();
    return { perFrame: worst, discarded, frames };
  }
}

async function measure(withBodies: boolean): Promise<{ result: Result; frames: number; heapFrames: number; heapUsed: string }> {
  const { physics, systems } = game(withBodies);
  const link = { latencyMs: LATENCY_MS };
  const stepper = createStepper({
    protocol, systems, seed: SEED, log: quiet, serverClock: { framePeriodMs: FRAME_MS },
    clients: [{ clock: { framePeriodMs: FRAME_MS }, link: { up: link, down: link }, engine: { prediction: { rollback: 'always' } } }],
  });
  stepper.server.events.on('join', (c) => {
    stepper.server.spawn('player', { position: { x: 0, y: 0.81, z: 0 } }, { owner: c.networkId });
  });
  for (let i = 0; i < DRONES; i++) stepper.server.spawn('drone', {});
  if (withBodies) for (let i = 0; i < BOXES; i++) stepper.server.spawn('box', { position: { x: 1.5 + (i % 10) * 0.6, y: 0.25, z: -1.2 + Math.floor(i / 10) * 0.6 } });
  stepper.joinAll({});
  const client = stepper.clients[0]!.client;
  const prediction = client.requirePrediction();
  // The stick: a new seeded direction every second (of the client's ticks), held in between.
  let frameNo = 0;
  const steer = (): void => {
    if (frameNo % 60 !== 0) return;
    const angle = ((frameNo / 60) * 2.399) % (2 * Math.PI);
    client.input.current.move.x = Math.round(Math.cos(angle) * 100) / 100;
    client.input.current.move.y = Math.round(Math.sin(angle) * 100) / 100;
  };
  // What a renderer reads each frame: the shown values of every ghost.
  // Summed in a local and stored once per frame: a float kept in a closure's variable is a new heap number per write.
  const sink = new Float64Array(1);
  const present = (): void => {
    let sum = 0;
    for (const g of client.world.all()) sum += client.view(g as Ghost<P>).position.x;
    sink[0] = sink[0]! + sum;
  };
  const frames: Frame[] = [];
  let recording = false;
  let counted = 0;
  const update = client.update.bind(client);
  function measuredClientFrame(now: number): void {
    update(now);
    present();
  }
  const probe = new HeapUsedProbe();
  (client as { update: (now: number) => void }).update = function timedClientFrame(now: number): void {
    frameNo++;
    counted++;
    steer();
    const rollbacks = prediction.stats.rollbacks;
    const resim = prediction.stats.resimulatedTicks;
    const t0 = performance.now();
    if (probe.on) probe.around(measuredClientFrame, now);
    else measuredClientFrame(now);
    const t1 = performance.now();
    if (recording) frames.push({ ms: t1 - t0, rollback: prediction.stats.rollbacks !== rollbacks, resimulated: prediction.stats.resimulatedTicks - resim });
  };
  stepper.advance(WARM_UP_MS);
  if (client.world.size !== DRONES + 1 + (withBodies ? BOXES : 0)) throw new Error(`react-netcode: bench client sees ${client.world.size} ghosts`);
  gc?.();
  stepper.advance(500); // re-warm after the forced gc
  recording = true;
  stepper.advance(MEASURED_MS);
  recording = false;
  counted = 0;
  const allocated = await allocatedInFrames(() => stepper.advance(HEAP_MS));
  const heapFrames = counted;
  const used = await probe.measure((ms) => stepper.advance(ms));
  stepper.advance(Math.max(0, STEADY_MS - stepper.now));
  const steady = await probe.measure((ms) => stepper.advance(ms));
  physics.dispose(stepper.server.world);
  physics.dispose(client.world);
  if (sink[0] === 0) throw new Error('react-netcode: bench read no view');
  const rollbackFrames = frames.filter((f) => f.rollback);
  const name = withBodies ? `1 player, ${DRONES} interpolated, ${BOXES} predicted bodies` : `1 player, ${DRONES} interpolated, no boxes (the player's character only)`;
  return {
    result: {
      case: name, system: 'react-netcode', msPerFrame: round(mean(frames.map((f) => f.ms)), 4),
      msPerFrameP95: round(quantile(frames.map((f) => f.ms), 0.95), 4),
      rollbackFrameMs: round(mean(rollbackFrames.map((f) => f.ms)), 4), rollbackFrameMsP95: round(quantile(rollbackFrames.map((f) => f.ms), 0.95), 4),
      rollbackFrames: rollbackFrames.length, resimulatedTicksPerRollback: round(mean(rollbackFrames.map((f) => f.resimulated)), 2),
      heapBytesPerFrame: round(allocated / heapFrames, 0),
      heapUsedBytesPerFrame: used === null ? null : round(used.perFrame, 0),
      heapUsedBytesPerFrameSteady: steady === null ? null : round(steady.perFrame, 0),
    },
    frames: frames.length,
    heapFrames,
    heapUsed: used === null ? 'no gc: run with --expose-gc for heapUsedBytesPerFrame' : `${used.frames} heapUsed frames, ${used.discarded} with a gc left out`,
  };
}

export async function run(): Promise<void> {
  const started = performance.now();
  await RAPIER.init();
  const results: Result[] = [];
  const notes: string[] = [];
  for (const withBodies of [true, false]) {
    const m = await measure(withBodies);
    results.push(m.result);
    notes.push(`${m.frames} timed frames, ${m.heapFrames} sampled, ${m.heapUsed}`);
  }
  console.table(results.map(({ case: name, system: sys, ...metrics }) => ({ case: name, system: sys, ...metrics })));
  console.log(`One NetClient at 60 fps (Stepper, ${LATENCY_MS} ms each way, snapshots at 20 Hz, rollback 'always'); frame = client.update(now) + client.view() of every ghost.`);
  console.log(`msPerFrame: mean (p95) over ${MEASURED_MS / 1000} s of frames after ${WARM_UP_MS / 1000} s of warm-up; rollbackFrameMs: the frames that rolled back (mean, p95).`);
  console.log(`heapBytesPerFrame: bytes allocated inside the frame (garbage included) per frame, from V8's sampling heap profiler over a further ${HEAP_MS / 1000} s; heapUsedBytesPerFrame: process.memoryUsage().heapUsed growth around each frame (minus a reading's own cost), mean over the frames without a gc inside, largest of ${HEAP_USED_RUNS} runs of ${HEAP_USED_MS / 1000} s each after a forced gc (${notes.join('; ')}); heapUsedBytesPerFrameSteady: the same after ${STEADY_MS / 1000} s of play.`);
  const full = results[0]!;
  console.log(`goals: msPerFrame ${String(full['msPerFrame'])} <= 1; rollbackFrameMs ${String(full['rollbackFrameMs'])} <= 2; heapUsedBytesPerFrame ${String(full['heapUsedBytesPerFrame'])} <= 1024 (after ${STEADY_MS / 1000} s: ${String(full['heapUsedBytesPerFrameSteady'])}).`);
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'client-frame', results })}`);
}
