// Prediction benchmark: one rollback + resimulation of 30 ticks (ClientPrediction, policy
// 'always') for 1 and 200 predicted ghosts, against 30 plain ticks of the same world and
// systems; median wall time and heap bytes per tick. Run through bench/run.ts.
import { performance, PerformanceObserver } from 'node:perf_hooks';
import type { NetClient } from '../src/core/client.ts';
import type { GhostRecord } from '../src/core/client-ghosts.ts';
import type { Logger } from '../src/core/emitter.ts';
import { field } from '../src/core/field.ts';
import { defineProtocol, ghost } from '../src/core/protocol.ts';
import { createRng } from '../src/core/rng.ts';
import { defineSystems, system, type RunFlags } from '../src/core/system.ts';
import { tickAdd, tickDiff, type Tick } from '../src/core/clock/tick.ts';
import type { Ghost } from '../src/core/world.ts';
import { createStepper } from '../src/testing/stepper.ts';

const DEPTH = 30;
const GHOST_COUNTS = [1, 200] as const;
const WARM_UP = 100;
const MEASURED = 200;
const HEAP_WARM_UP = 100;
const HEAP_REPS = 100;
const SEED = 0x9ed1c7;

type Result = { case: string; system: string } & Record<string, number | string | null>;

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    ship: ghost({ position: field.vec3({ quantize: 1000 }), velocity: field.vec3({ quantize: 1000 }) }, { modes: ['predicted', 'interpolated'] }),
  },
  input: { move: field.vec2({ quantize: 100, maxLength: 1 }) },
});

const ACCEL = 8; // m/s² at full input
const DRAG = 0.9; // velocity kept per second

/** The shared movement: velocity from the owner's input, drag, position += velocity·dt. */
const systems = defineSystems(protocol, [
  system.shared('move', (world, ctx) => {
    const keep = DRAG ** ctx.dt;
    for (const s of world.query('ship')) {
      const { move } = ctx.input(s);
      const { position: p, velocity: v } = s.components;
      v.x = (v.x + move.x * ACCEL * ctx.dt) * keep;
      v.z = (v.z + move.y * ACCEL * ctx.dt) * keep;
      p.x += v.x * ctx.dt;
      p.y += v.y * ctx.dt;
      p.z += v.z * ctx.dt;
    }
  }),
]);

const quiet: Logger = () => {};
const FIRST: RunFlags = { isFirstTimeFullyPredictingTick: true };
const gc = (globalThis as { gc?: () => void }).gc;
const round = (value: number, digits: number): number => Number(value.toFixed(digits));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A client in game that owns (and so predicts) `count` ships, driven by hand once set up. */
function setup(count: number) {
  const stepper = createStepper({ protocol, systems, seed: SEED, log: quiet, clients: [{ engine: { prediction: { rollback: 'always' } } }] });
  const spawnRng = createRng(SEED, count);
  stepper.server.events.on('join', (c) => {
    for (let i = 0; i < count; i++) {
      const position = { x: spawnRng.range(-50, 50), y: spawnRng.range(0, 2), z: spawnRng.range(-50, 50) };
      const velocity = { x: spawnRng.range(-3, 3), y: 0, z: spawnRng.range(-3, 3) };
      stepper.server.spawn('ship', { position, velocity }, { owner: c.networkId });
    }
  });
  stepper.joinAll({});
  const client: NetClient<typeof protocol> = stepper.clients[0]!.client;
  stepper.until(() => client.world.size === count && client.prediction?.lastTick !== undefined, 10_000, 'every ship to reach the client');
  stepper.advance(1000); // clock sync settles; prediction runs on its own for a while
  return { stepper, client };
}

/**
 * The client's own ClientPrediction, SystemRunner and ClientGhosts, driven directly (the
 * Stepper no longer advances): `prepare()` predicts one new tick as NetClient.update does,
 * then makes the confirmed state of tick lastTick − DEPTH arrive (equal to what was
 * predicted, so no misprediction); `rollback()` is the advance() that follows: restore +
 * DEPTH resimulated ticks; `plain()` runs the same DEPTH ticks on the same world, nothing
 * restored or recorded.
 */
function driver(count: number) {
  const { stepper, client } = setup(count);
  const prediction = client.prediction!;
  const ghosts = client.ghosts;
  const runner = ghosts.systems;
  const ships = [...client.world.query('ship')];
  if (ships.length !== count || ships.some((s) => s.mode !== 'predicted')) throw new Error(`react-netcode: bench expected ${count} predicted ships`);
  const records: GhostRecord[] = ships.map((s) => ghosts.record(s.id)!);
  const histories = ships.map((s) => prediction.history(s as unknown as Ghost)!);
  const capacity = records[0]!.history.capacity;
  // Confirmed-state slots the bench owns, reused round-robin (no allocation while measuring).
  const confirmedSlots = records.map((r) => Array.from({ length: capacity }, () => r.codec.defaults()));
  const inputRng = createRng(SEED, 0x1f, count);
  const beforeTick = (tick: Tick): void => {
    const move = client.input.current.move;
    move.x = Math.round(inputRng.range(-1, 1) * 70) / 100;
    move.y = Math.round(inputRng.range(-1, 1) * 70) / 100;
    client.input.commit(tick);
  };
  const noInput = (): void => {};
  let nowMs = stepper.now;
  let snapTick: Tick = 0;
  let last: Tick = prediction.lastTick!;
  const forward = (): void => {
    if (prediction.advance(tickAdd(last, 1), beforeTick) !== 1) throw new Error('react-netcode: bench forward tick did not run');
    last = prediction.lastTick!;
  };
  // Predict ahead of the newest real snapshot so that every injected snapshot tick is new.
  while (tickDiff(tickAdd(last, -DEPTH), ghosts.timeline.newestSnapshotTick!) <= 0) forward();
  const expectX: number[] = ships.map(() => 0);
  return {
    /** One new predicted tick, then the confirmed state of lastTick − DEPTH arrives. */
    prepare(): void {
      forward();
      snapTick = tickAdd(last, -DEPTH);
      records.forEach((rec, i) => {
        const predicted = histories[i]!;
        const slot = confirmedSlots[i]![snapTick % capacity]!;
        rec.codec.copy(predicted.get(snapTick)!, slot);
        rec.history.set(snapTick, slot);
        rec.confirmedTick = snapTick;
        expectX[i] = (predicted.get(last)!.position as { x: number }).x;
      });
      nowMs += protocol.stepMs;
      ghosts.timeline.onSnapshot(snapTick, nowMs);
    },
    plain(): void {
      for (let t = tickAdd(snapTick, 1); tickDiff(last, t) >= 0; t = tickAdd(t, 1)) runner.run('prediction', t, FIRST);
    },
    rollback(): void {
      prediction.advance(last, noInput); // target = lastTick: the rollback only, no new tick
    },
    /** The rollback resimulated exactly DEPTH ticks, found no misprediction and ended where prediction had. */
    check(stats: { rollbacks: number; resimulatedTicks: number }): void {
      const s = prediction.stats;
      if (s.rollbacks !== stats.rollbacks + 1 || s.resimulatedTicks !== stats.resimulatedTicks + DEPTH || s.mispredictions !== 0) {
        throw new Error(`react-netcode: bench rollback ran ${s.rollbacks - stats.rollbacks} times, ${s.resimulatedTicks - stats.resimulatedTicks} ticks, ${s.mispredictions} mispredictions`);
      }
      ships.forEach((ship, i) => {
        if (ship.components.position.x !== expectX[i]) throw new Error('react-netcode: bench resimulation diverged from the prediction');
      });
    },
    stats: () => ({ rollbacks: prediction.stats.rollbacks, resimulatedTicks: prediction.stats.resimulatedTicks }),
  };
}

/** Heap bytes that one process.memoryUsage() call itself adds between two readings. */
function readingCost(): number {
  const deltas: number[] = [];
  for (let i = 0; i < 50; i++) {
    const a = process.memoryUsage().heapUsed;
    deltas.push(process.memoryUsage().heapUsed - a);
  }
  return median(deltas);
}

type Driver = ReturnType<typeof driver>;

/**
 * Heap bytes per tick in steady state: one forced gc, HEAP_WARM_UP rollbacks (the first
 * calls after a forced gc run slower and allocate several times more), then heapUsed
 * read around each of HEAP_REPS plain runs and rollbacks. Calls during which a gc ran
 * (PerformanceObserver 'gc' entries) are discarded; the median of the rest, per tick.
 */
async function heapPerTick(d: Driver): Promise<{ plain: number; rollback: number; discarded: number } | null> {
  if (typeof gc !== 'function') return null;
  const cost = readingCost();
  gc();
  for (let rep = 0; rep < HEAP_WARM_UP; rep++) {
    d.prepare();
    d.plain();
    d.rollback();
  }
  const gcs: { start: number; end: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const samples: { t0: number; t1: number; t2: number; plain: number; rollback: number }[] = [];
  for (let rep = 0; rep < HEAP_REPS; rep++) {
    d.prepare();
    const t0 = performance.now();
    const m0 = process.memoryUsage().heapUsed;
    d.plain();
    const m1 = process.memoryUsage().heapUsed;
    const t1 = performance.now();
    d.rollback();
    const m2 = process.memoryUsage().heapUsed;
    const t2 = performance.now();
    samples.push({ t0, t1, t2, plain: m1 - m0 - cost, rollback: m2 - m1 - cost });
  }
  await new Promise((resolve) => setTimeout(resolve, 20)); // let the gc entries arrive
  observer.disconnect();
  const clean = (from: number, to: number): boolean => !gcs.some((g) => g.end >= from && g.start <= to);
  const plain = samples.filter((s) => clean(s.t0, s.t1)).map((s) => s.plain);
  const rollback = samples.filter((s) => clean(s.t1, s.t2)).map((s) => s.rollback);
  if (plain.length === 0 || rollback.length === 0) return null;
  return { plain: median(plain) / DEPTH, rollback: median(rollback) / DEPTH, discarded: 2 * HEAP_REPS - plain.length - rollback.length };
}

async function measure(count: number): Promise<{ results: Result[]; discarded: number }> {
  const d = driver(count);
  const rollbackMs: number[] = [];
  const plainMs: number[] = [];
  for (let rep = 0; rep < WARM_UP + MEASURED; rep++) {
    d.prepare();
    // Plain ticks first: the rollback then restores tick S and brings the world back to lastTick.
    const t0 = performance.now();
    d.plain();
    const t1 = performance.now();
    const before = d.stats();
    d.rollback();
    const t2 = performance.now();
    d.check(before);
    if (rep >= WARM_UP) {
      plainMs.push(t1 - t0);
      rollbackMs.push(t2 - t1);
    }
  }
  const heap = await heapPerTick(d);
  const plain = median(plainMs);
  const rollback = median(rollbackMs);
  const name = `${DEPTH} ticks, ${count} predicted ghost${count === 1 ? '' : 's'}`;
  return {
    results: [
      { case: name, system: 'react-netcode', ms: round(rollback, 4), ratio: round(rollback / plain, 2), heapBytesPerTick: heap === null ? null : round(heap.rollback, 1) },
      { case: name, system: 'plain ticks', ms: round(plain, 4), ratio: 1, heapBytesPerTick: heap === null ? null : round(heap.plain, 1) },
    ],
    discarded: heap?.discarded ?? 0,
  };
}

export async function run(): Promise<void> {
  const started = performance.now();
  const results: Result[] = [];
  let discarded = 0;
  for (const count of GHOST_COUNTS) {
    const m = await measure(count);
    results.push(...m.results);
    discarded += m.discarded;
  }
  console.table(results.map(({ case: name, system: sys, ...metrics }) => ({ case: name, system: sys, ...metrics })));
  console.log(`react-netcode: one rollback of ClientPrediction (policy 'always') to the confirmed tick ${DEPTH} ticks back: restore, ${DEPTH} resimulated ticks (record + frame history), correction check.`);
  console.log(`plain ticks: ${DEPTH} × SystemRunner.run('prediction', t) on the same world and systems, nothing restored or recorded.`);
  console.log(`ms: median of ${MEASURED} (after ${WARM_UP} warm-up), the two interleaved; ratio: react-netcode ms / plain ms.`);
  if (typeof gc !== 'function') console.log('heap figures: null, global.gc is unavailable (run through bench/run.ts or with --expose-gc).');
  else console.log(`heapBytesPerTick: median heapUsed growth around one call / ${DEPTH}, over ${HEAP_REPS} calls per row after a forced gc and ${HEAP_WARM_UP} re-warm-up calls; ${discarded} calls with a gc inside discarded.`);
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'prediction', results })}`);
}
