// Physics benchmark (react-netcode/rapier): a rollback of 30 ticks with 200 dynamic
// boxes (restore every ghost's components, resimulate 30 ticks of the physics system)
// against 30 plain ticks of the same world, in 'smoothed' mode (with and without the
// client's world snapshots) and 'exact' mode; the server's tick cost with and without
// the exact-mode rebuild; heap bytes per tick. And the tick cost itself: 30 plain ticks of
// physics.system() split into Rapier's pipeline step and the adapter's own work, per body,
// with all 200 boxes awake and with most of them asleep. And one world restore, as a smoothed
// client does at every recorded tick and rollback: World.restoreSnapshot against in place.
// A 'stir' system kicks 20 seeded boxes each tick so the pile never falls asleep.
// Run through bench/run.ts; prints a table and, last, one `BENCH {json}` line.
import RAPIER from '@dimforge/rapier3d-compat';
import { performance } from 'node:perf_hooks';
import { field } from '../src/core/field.ts';
import { defineProtocol, ghost, type InputValues, type Protocol } from '../src/core/protocol.ts';
import { defineSystems, system, SystemRunner, type SystemDef, type SystemStage } from '../src/core/system.ts';
import { EngineWorld } from '../src/core/world.ts';
import { createPhysics, type PhysicsMode, type Rapier } from '../src/rapier/index.ts';
import { restoreInPlace } from '../src/rapier/restore.ts';

const BODIES = 200;
const DEPTH = 30;
const WARM_UP = 3;
const MEASURED = 25;
const SNAPSHOT_EVERY = 3; // 60 Hz ticks, 20 Hz snapshots

type Result = { case: string; system: string } & Record<string, number | string | null>;

const protocol = defineProtocol({
  tickRate: 60,
  ghosts: {
    box: ghost({ position: field.vec3({ quantize: 1000 }), rotation: field.quat(), linvel: field.vec3({ quantize: 1000 }), angvel: field.vec3({ quantize: 1000 }) }, { modes: ['predicted'] }),
  },
  input: { move: field.vec2({ quantize: 100 }) },
});

const gc = (globalThis as { gc?: () => void }).gc;
export const round = (value: number, digits: number): number => Number(value.toFixed(digits));
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** 200 boxes (0.5 m) in 8 layers of a 5 × 5 grid, every layer shifted so the pile topples. */
type Variant = PhysicsMode | 'smoothed-no-world-snapshots' | 'exact-every-tick';

/**
 * awake: the 200-box pile, stirred. asleep: 180 boxes settled asleep in the pile, 20 loose ones apart,
 * stirred. still: the same 200 settled, all asleep, nothing stirred.
 */
type Scene = 'awake' | 'asleep' | 'still';
const LOOSE = 20;

/**
 * Time spent in Rapier's physics pipeline step (the raw wasm PhysicsPipeline.step: what world.step()
 * runs, and what the adapter calls directly, see src/rapier/raw.ts), all worlds, in ms.
 */
const stepClock = { ms: 0, calls: 0 };
/**
 * The clock's own method, bound before any step: while the adapter steps with Rapier's profiler off,
 * `performance.now` answers 0 (src/rapier/raw.ts, the silenced clock), and a timer inside the step must not read it.
 */
const trueNow = performance.now.bind(performance);
const patched = new WeakSet<object>();
function patchStep(R: Rapier): void {
  const probe = new R.World({ x: 0, y: 0, z: 0 });
  const proto = Object.getPrototypeOf((probe.physicsPipeline as unknown as { raw: object }).raw) as { step: (...args: unknown[]) => void };
  probe.free();
  if (patched.has(proto)) return;
  patched.add(proto);
  const step = proto.step;
  proto.step = function timedStep(this: unknown, ...args: unknown[]): void {
    const t0 = trueNow();
    step.apply(this, args);
    stepClock.ms += trueNow() - t0;
    stepClock.calls++;
  };
}

function spawnPosition(i: number, scene: Scene): { x: number; y: number; z: number } {
  if (scene !== 'awake' && i >= BODIES - LOOSE) {
    const k = i - (BODIES - LOOSE);
    return { x: 10 + (k % 5) * 3, y: 0.26, z: 10 + Math.floor(k / 5) * 3 }; // alone on the floor: an island each
  }
  const layer = Math.floor(i / 25);
  return { x: (i % 5) * 0.55 + layer * 0.13, y: 0.26 + layer * 0.52, z: Math.floor((i % 25) / 5) * 0.55 - layer * 0.07 };
}

function world(isServer: boolean, mode: Variant, scene: Scene = 'awake', R: Rapier = RAPIER) {
  const physics = createPhysics(R, {
    mode: mode === 'smoothed' || mode === 'smoothed-no-world-snapshots' ? 'smoothed' : 'exact',
    // The snapshot ticks (exact rebuilds after them, a smoothed client records its world at them); every tick for exact-every-tick.
    isSnapshotTick: mode === 'exact-every-tick' ? () => true : (t: number) => t % SNAPSHOT_EVERY === SNAPSHOT_EVERY - 1,
    ...(mode === 'smoothed-no-world-snapshots' ? { worldSnapshots: false } : {}),
    level: (w, R) => void w.createCollider(R.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0)),
    bodies: { box: { kind: 'dynamic', collider: { cuboid: [0.25, 0.25, 0.25] } } },
  });
  const w = new EngineWorld(protocol, isServer ? { isServer } : { isServer, localNetworkId: 1 });
  for (let i = 0; i < BODIES; i++) w.add('box', i + 1, 0, 0, { position: spawnPosition(i, scene) });
  const boxes = [...w.query('box')];
  const kick = { x: 0, y: 0.2, z: 0 };
  let stirring = true;
  const inner = physics.system<typeof protocol>();
  // The physics system, timed: what the adapter costs is this minus the pipeline steps in it.
  const timed = { ms: 0 };
  const systems = defineSystems(protocol, [
    system.shared('stir', (_w, ctx) => {
      if (!stirring) return;
      for (let k = 0; k < 20; k++) {
        kick.x = ctx.rng.range(-0.5, 0.5);
        kick.z = ctx.rng.range(-0.5, 0.5);
        const at = scene === 'asleep' ? BODIES - LOOSE + ctx.rng.int(LOOSE) : ctx.rng.int(BODIES);
        physics.applyImpulse(boxes[at]!, kick);
      }
    }),
    timedSystem(inner, timed),
  ]);
  const input = protocol.input.defaults() as InputValues<typeof protocol>;
  const runner = new SystemRunner(w, systems, { seed: 7, input: () => input, allocateId: () => 0 });
  const stage: SystemStage = isServer ? 'server' : 'prediction';
  let tick = 0;
  const saved = boxes.map((b) => structuredClone(b.components));
  let savedTick = 0;
  const d = {
    physics,
    w,
    timed,
    set stirring(on: boolean) {
      stirring = on;
    },
    get tick(): number {
      return tick;
    },
    /** Ticks after the saved one, first time. */
    plain(n: number): void {
      for (let i = 0; i < n; i++) runner.run(stage, ++tick);
    },
    save(): void {
      boxes.forEach((b, i) => protocol.ghostByName.get('box')!.codec.copy(b.components, saved[i]!));
      savedTick = tick;
    },
    /** Restore every box to the saved tick and resimulate up to the current tick. */
    rollback(): void {
      boxes.forEach((b, i) => protocol.ghostByName.get('box')!.codec.copy(saved[i]!, b.components));
      for (let t = savedTick + 1; t <= tick; t++) runner.run(stage, t, { isResimulating: true });
    },
  };
  if (scene !== 'awake') {
    stirring = false;
    d.plain(900); // 15 s: the pile settles and falls asleep
    stirring = scene === 'asleep';
  }
  d.plain(60); // let the pile start falling
  return d;
}

function ms(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** The physics system `inner`, its time added to `timed.ms` at each run. */
export function timedSystem<P extends Protocol>(inner: SystemDef<P>, timed: { ms: number }): SystemDef<P> {
  return system.shared<P>('physics', (pw, ctx) => {
    const t0 = performance.now();
    inner.run(pw, ctx);
    timed.ms += performance.now() - t0;
  });
}

/** Heap growth per tick over n ticks, after a forced gc (null without --expose-gc). */
export function heapPerTick(fn: () => void, n: number): number | null {
  if (typeof gc !== 'function') return null;
  const xs: number[] = [];
  for (let rep = 0; rep < 5; rep++) {
    gc();
    const a = process.memoryUsage().heapUsed;
    fn();
    xs.push((process.memoryUsage().heapUsed - a) / n);
  }
  return round(median(xs), 0);
}

/** Client: 30 plain ticks (saving the state at their start) then a rollback over them. */
function rollbackCase(mode: Variant): { plain: number; rollback: number; raw: number; heapPlain: number | null; heapRollback: number | null } {
  const d = world(false, mode);
  const plain: number[] = [];
  const rollback: number[] = [];
  const raw: number[] = [];
  for (let rep = 0; rep < WARM_UP + MEASURED; rep++) {
    // Start on a snapshot tick, as ClientPrediction does (the rollback target is one).
    while (d.tick % SNAPSHOT_EVERY !== SNAPSHOT_EVERY - 1) d.plain(1);
    d.save();
    const p = ms(() => d.plain(DEPTH));
    const r = ms(() => d.rollback());
    const rw = d.physics.world(d.w)!;
    const s = ms(() => {
      for (let i = 0; i < DEPTH; i++) rw.step();
    });
    if (rep >= WARM_UP) {
      plain.push(p);
      rollback.push(r);
      raw.push(s);
    }
  }
  const heapPlain = heapPerTick(() => d.plain(DEPTH), DEPTH);
  d.save();
  d.plain(DEPTH);
  const heapRollback = heapPerTick(() => d.rollback(), DEPTH); // the same 30 ticks again each time
  d.physics.dispose(d.w);
  return { plain: median(plain), rollback: median(rollback), raw: median(raw), heapPlain, heapRollback };
}

function serverCase(mode: Variant): number {
  const d = world(true, mode);
  const xs: number[] = [];
  for (let rep = 0; rep < WARM_UP + MEASURED; rep++) {
    const t = ms(() => d.plain(DEPTH));
    if (rep >= WARM_UP) xs.push(t / DEPTH);
  }
  d.physics.dispose(d.w);
  return median(xs);
}

interface TickCost { totalMs: number[]; stepMs: number[]; sleeping: number; heap: number | null }

/** 30 plain ticks of the physics system, split into Rapier's pipeline step and the adapter's own work; heap per tick. */
function tickCost(d: ReturnType<typeof world>, into: TickCost, measure: boolean): void {
  const t0 = d.timed.ms;
  const s0 = stepClock.ms;
  d.plain(DEPTH);
  if (!measure) return;
  into.totalMs.push(d.timed.ms - t0);
  into.stepMs.push(stepClock.ms - s0);
}

const TICK_SYSTEMS: readonly { name: string; server: boolean; mode: Variant }[] = [
  { name: 'server (smoothed)', server: true, mode: 'smoothed' },
  { name: 'client smoothed (world snapshots)', server: false, mode: 'smoothed' },
  { name: 'client smoothed (worldSnapshots: false)', server: false, mode: 'smoothed-no-world-snapshots' },
  { name: 'client exact', server: false, mode: 'exact' },
];

/** Every system of TICK_SYSTEMS in one scene, interleaved (one 30-tick run of each in turn), so that all see the same load. */
export function tickCase(scene: Scene, R: Rapier = RAPIER): Result[] {
  patchStep(R);
  const worlds = TICK_SYSTEMS.map((s) => world(s.server, s.mode, scene, R));
  const costs: TickCost[] = worlds.map(() => ({ totalMs: [], stepMs: [], sleeping: 0, heap: null }));
  for (let rep = 0; rep < WARM_UP + MEASURED; rep++) worlds.forEach((d, i) => tickCost(d, costs[i]!, rep >= WARM_UP));
  const results: Result[] = [];
  worlds.forEach((d, i) => {
    const c = costs[i]!;
    const rw = d.physics.world(d.w)!;
    let sleeping = 0;
    rw.bodies.forEach((b) => void (b.isDynamic() && b.isSleeping() && sleeping++));
    c.heap = heapPerTick(() => d.plain(DEPTH), DEPTH);
    const total = median(c.totalMs);
    const step = median(c.stepMs);
    // adapter = (total − step) per body per tick, from the same runs (medians of the per-run differences).
    const adapter = median(c.totalMs.map((t, k) => t - c.stepMs[k]!));
    results.push({
      case: `tick cost, ${BODIES} dynamic bodies, ${scene}`,
      system: TICK_SYSTEMS[i]!.name,
      totalMs: round(total, 3),
      stepMs: round(step, 3),
      adapterMs: round(adapter, 3),
      adapterUsPerBodyTick: round((adapter * 1000) / BODIES / DEPTH, 3),
      sleepingBodies: sleeping,
      heapBytesPerTick: c.heap,
    });
    d.physics.dispose(d.w);
  });
  return results;
}

const RESTORES = 20;

/**
 * One restore of the stirred pile's recorded world (200 bodies, their contacts), as a smoothed
 * client does at each recorded tick (0.19's round trip) and rollback: World.restoreSnapshot plus
 * freeing the world it replaces, against restoring the same world in place (src/rapier/restore.ts).
 * The two alternate, 20 restores each per repetition, so both see the same load. takeSnapshot for scale.
 */
export function restoreCase(R: Rapier = RAPIER): Result[] {
  const d = world(false, 'smoothed', 'awake', R);
  const bytes = d.physics.world(d.w)!.takeSnapshot();
  let fresh = R.World.restoreSnapshot(bytes);
  const live = R.World.restoreSnapshot(bytes);
  const times = { copy: [] as number[], inPlace: [] as number[], take: [] as number[] };
  const copy = (): void => {
    const next = R.World.restoreSnapshot(bytes);
    fresh.free();
    fresh = next;
  };
  const inPlace = (): void => restoreInPlace(R, live, bytes);
  for (let rep = 0; rep < WARM_UP + MEASURED; rep++) {
    const c = ms(() => {
      for (let i = 0; i < RESTORES; i++) copy();
    });
    const p = ms(() => {
      for (let i = 0; i < RESTORES; i++) inPlace();
    });
    const t = ms(() => {
      for (let i = 0; i < RESTORES; i++) live.takeSnapshot();
    });
    if (rep >= WARM_UP) {
      times.copy.push(c / RESTORES);
      times.inPlace.push(p / RESTORES);
      times.take.push(t / RESTORES);
    }
  }
  const heap = (fn: () => void): number | null => {
    const perTick = heapPerTick(() => {
      for (let i = 0; i < RESTORES; i++) fn();
    }, RESTORES);
    return perTick;
  };
  const name = `world restore, ${BODIES} dynamic bodies (${bytes.length} bytes)`;
  const copyMs = median(times.copy);
  const results: Result[] = [
    { case: name, system: 'World.restoreSnapshot + free the old world', ms: round(copyMs, 3), ratio: 1, heapBytesPerRestore: heap(copy) },
    { case: name, system: 'in place', ms: round(median(times.inPlace), 3), ratio: round(median(times.inPlace) / copyMs, 2), heapBytesPerRestore: heap(inPlace) },
    { case: name, system: 'takeSnapshot (for scale)', ms: round(median(times.take), 3), ratio: round(median(times.take) / copyMs, 2), heapBytesPerRestore: null },
  ];
  fresh.free();
  live.free();
  d.physics.dispose(d.w);
  return results;
}

export async function run(): Promise<void> {
  await RAPIER.init();
  const started = performance.now();
  const results: Result[] = [];
  const smoothed = rollbackCase('smoothed');
  const bare = rollbackCase('smoothed-no-world-snapshots');
  const exact = rollbackCase('exact');
  const base = smoothed.plain;
  const name = `rollback ${DEPTH} ticks, ${BODIES} dynamic bodies`;
  results.push({ case: name, system: 'plain ticks (smoothed, no rollback)', ms: round(base, 3), ratio: 1, heapBytesPerTick: smoothed.heapPlain });
  results.push({ case: name, system: `raw world.step() × ${DEPTH}`, ms: round(smoothed.raw, 3), ratio: round(smoothed.raw / base, 2), heapBytesPerTick: null });
  results.push({ case: name, system: 'smoothed rollback', ms: round(smoothed.rollback, 3), ratio: round(smoothed.rollback / base, 2), heapBytesPerTick: smoothed.heapRollback });
  results.push({ case: name, system: 'plain ticks (smoothed, worldSnapshots: false)', ms: round(bare.plain, 3), ratio: round(bare.plain / base, 2), heapBytesPerTick: bare.heapPlain });
  results.push({ case: name, system: 'smoothed rollback (worldSnapshots: false)', ms: round(bare.rollback, 3), ratio: round(bare.rollback / base, 2), heapBytesPerTick: bare.heapRollback, ratioToBarePlain: round(bare.rollback / bare.plain, 2) });
  results.push({ case: name, system: 'exact plain ticks (rebuild every 3rd)', ms: round(exact.plain, 3), ratio: round(exact.plain / base, 2), heapBytesPerTick: exact.heapPlain });
  results.push({
    case: name,
    system: 'exact rollback',
    ms: round(exact.rollback, 3),
    ratio: round(exact.rollback / base, 2),
    heapBytesPerTick: exact.heapRollback,
    ratioToExactPlain: round(exact.rollback / exact.plain, 2),
    ratioToBarePlain: round(exact.rollback / bare.plain, 2),
  });
  const serverSmoothed = serverCase('smoothed');
  const serverExact = serverCase('exact');
  const serverEvery = serverCase('exact-every-tick');
  const sname = `server tick, ${BODIES} dynamic bodies`;
  results.push({ case: sname, system: 'smoothed (no rebuild)', ms: round(serverSmoothed, 3), ratio: 1, heapBytesPerTick: null });
  results.push({ case: sname, system: 'exact, rebuild every 3rd tick', ms: round(serverExact, 3), ratio: round(serverExact / serverSmoothed, 2), heapBytesPerTick: null });
  results.push({ case: sname, system: 'exact, rebuild every tick', ms: round(serverEvery, 3), ratio: round(serverEvery / serverSmoothed, 2), heapBytesPerTick: null });
  results.push(...restoreCase());
  console.table(results.map(({ case: c, system: s, ...m }) => ({ case: c, system: s, ...m })));
  const ticks = [...tickCase('awake'), ...tickCase('asleep'), ...tickCase('still')];
  console.table(ticks.map(({ case: c, system: s, ...m }) => ({ case: c, system: s, ...m })));
  results.push(...ticks);
  console.log(`ms: median of ${MEASURED} (after ${WARM_UP} warm-up); ratio: against the first row of its case. A stir system kicks 20 boxes a tick.`);
  console.log('rollback = restore 200 ghosts to the saved tick + 30 resimulated ticks of the physics system; exact rebuilds after every 3rd tick and at the rollback.');
  console.log('smoothed: the client records its world every 3rd tick and a rollback restores it (worldSnapshots, the default); ratioToBarePlain: against plain smoothed ticks without them.');
  console.log(`tick cost: ${DEPTH} plain ticks of physics.system() (totalMs), Rapier's PhysicsPipeline.step() calls inside them (stepMs), the rest (adapterMs);`);
  console.log(`adapterUsPerBodyTick = adapterMs / ${BODIES} bodies / ${DEPTH} ticks in µs; asleep: 180 boxes settled for 15 s, 20 loose ones stirred; still: all 200 settled, none stirred; the four systems interleaved.`);
  console.log(`world restore: ms per restore, median of ${MEASURED} runs of ${RESTORES}, the two ways alternating; heapBytesPerRestore: JS heap growth per restore.`);
  if (typeof gc !== 'function') console.log('heap figures: null, global.gc is unavailable (run through bench/run.ts or with --expose-gc).');
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'physics', results })}`);
}
