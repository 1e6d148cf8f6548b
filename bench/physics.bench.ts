// Physics benchmark (react-netcode/rapier): a rollback of 30 ticks with 200 dynamic
// boxes (restore every ghost's components, resimulate 30 ticks of the physics system)
// against 30 plain ticks of the same world, in 'smoothed' mode (with and without the
// client's world snapshots) and 'exact' mode; the server's tick cost with and without
// the exact-mode rebuild; heap bytes per tick.
// A 'stir' system kicks 20 seeded boxes each tick so the pile never falls asleep.
// Run through bench/run.ts; prints a table and, last, one `BENCH {json}` line.
import RAPIER from '@dimforge/rapier3d-compat';
import { performance } from 'node:perf_hooks';
import { field } from '../src/core/field.ts';
import { defineProtocol, ghost, type InputValues } from '../src/core/protocol.ts';
import { defineSystems, system, SystemRunner, type SystemStage } from '../src/core/system.ts';
import { EngineWorld } from '../src/core/world.ts';
import { createPhysics, type PhysicsMode } from '../src/rapier/index.ts';

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
const round = (value: number, digits: number): number => Number(value.toFixed(digits));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** 200 boxes (0.5 m) in 8 layers of a 5 × 5 grid, every layer shifted so the pile topples. */
type Variant = PhysicsMode | 'smoothed-no-world-snapshots' | 'exact-every-tick';

function world(isServer: boolean, mode: Variant) {
  const physics = createPhysics(RAPIER, {
    mode: mode === 'smoothed' || mode === 'smoothed-no-world-snapshots' ? 'smoothed' : 'exact',
    // The snapshot ticks (exact rebuilds after them, a smoothed client records its world at them); every tick for exact-every-tick.
    isSnapshotTick: mode === 'exact-every-tick' ? () => true : (t: number) => t % SNAPSHOT_EVERY === SNAPSHOT_EVERY - 1,
    ...(mode === 'smoothed-no-world-snapshots' ? { worldSnapshots: false } : {}),
    level: (w, R) => void w.createCollider(R.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0)),
    bodies: { box: { kind: 'dynamic', collider: { cuboid: [0.25, 0.25, 0.25] } } },
  });
  const w = new EngineWorld(protocol, isServer ? { isServer } : { isServer, localNetworkId: 1 });
  for (let i = 0; i < BODIES; i++) {
    const layer = Math.floor(i / 25);
    w.add('box', i + 1, 0, 0, { position: { x: (i % 5) * 0.55 + layer * 0.13, y: 0.26 + layer * 0.52, z: Math.floor((i % 25) / 5) * 0.55 - layer * 0.07 } });
  }
  const boxes = [...w.query('box')];
  const kick = { x: 0, y: 0.2, z: 0 };
  const systems = defineSystems(protocol, [
    system.shared('stir', (_w, ctx) => {
      for (let k = 0; k < 20; k++) {
        kick.x = ctx.rng.range(-0.5, 0.5);
        kick.z = ctx.rng.range(-0.5, 0.5);
        physics.applyImpulse(boxes[ctx.rng.int(BODIES)]!, kick);
      }
    }),
    physics.system(),
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
  d.plain(60); // let the pile start falling
  return d;
}

function ms(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** Heap growth per tick over n ticks, after a forced gc (null without --expose-gc). */
function heapPerTick(fn: () => void, n: number): number | null {
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
  console.table(results.map(({ case: c, system: s, ...m }) => ({ case: c, system: s, ...m })));
  console.log(`ms: median of ${MEASURED} (after ${WARM_UP} warm-up); ratio: against the first row of its case. A stir system kicks 20 boxes a tick.`);
  console.log('rollback = restore 200 ghosts to the saved tick + 30 resimulated ticks of the physics system; exact rebuilds after every 3rd tick and at the rollback.');
  console.log('smoothed: the client records its world every 3rd tick and a rollback restores it (worldSnapshots, the default); ratioToBarePlain: against plain smoothed ticks without them.');
  if (typeof gc !== 'function') console.log('heap figures: null, global.gc is unavailable (run through bench/run.ts or with --expose-gc).');
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'physics', results })}`);
}
