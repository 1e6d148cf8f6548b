// Prediction benchmark: what a rollback costs beyond the ticks it resimulates. For 1 and 200
// predicted ghosts, side by side in every repetition: 30 first-time predicted ticks
// (ClientPrediction.advance, recording their history), 30 plain ticks of the same systems
// (nothing recorded), a rollback of 30 ticks and a rollback of 1 tick (policy 'always').
// Reports rollbackRatio, bareRatio, the fixed cost per rollback and heap bytes per tick.
// Run through bench/run.ts; prints a table and, last, one `BENCH {json}` line.
import { performance, PerformanceObserver } from 'node:perf_hooks';
import type { NetClient } from '../src/core/client.ts';
import type { GhostRecord } from '../src/core/client-ghosts.ts';
import type { Logger } from '../src/core/emitter.ts';
import type { FlatHistory } from '../src/core/flat-history.ts';
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

function median(values: readonly number[]): number {
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
 * Stepper no longer advances): `first()` predicts DEPTH new ticks as NetClient.update does
 * (input committed per tick, history recorded); `snapshot(depth)` makes the confirmed state of
 * tick lastTick − depth arrive (equal to what was predicted, so no misprediction);
 * `rollback()` is the advance() that follows: restore + depth resimulated ticks; `plain()` runs
 * DEPTH ticks on the same world, nothing restored or recorded; `repair()` then puts the world back
 * where prediction had it (not measured), so the rollback finds what it predicted: no correction.
 */
export function driver(count: number) {
  const { stepper, client } = setup(count);
  const prediction = client.requirePrediction();
  const ghosts = client.ghosts;
  const runner = ghosts.systems;
  const ships = [...client.world.query('ship')];
  if (ships.length !== count || ships.some((s) => s.mode !== 'predicted')) throw new Error(`react-netcode: bench expected ${count} predicted ships`);
  const records: GhostRecord[] = ships.map((s) => ghosts.record(s.id)!);
  // The predicted histories, read into the bench's own objects (get() would build one per call).
  const histories = ships.map((s) => prediction.history(s as unknown as Ghost) as FlatHistory);
  const scratch = records.map((r) => r.codec.defaults());
  // One confirmed-state object per ghost, rewritten at each snapshot: what the client does (its record's `latest`
  // is one object, the snapshot's values copied in; the confirmed history keeps its own copy of each tick).
  const confirmedStates = records.map((r) => r.latest ?? r.codec.defaults());
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
  const ahead = (n: number): void => {
    if (prediction.advance(tickAdd(last, n), beforeTick) !== n) throw new Error(`react-netcode: bench did not predict ${n} new ticks`);
    last = prediction.lastTick!;
  };
  // Predict ahead of the newest real snapshot so that every injected snapshot tick is new.
  while (tickDiff(tickAdd(last, -DEPTH), ghosts.timeline.newestSnapshotTick!) <= 0) ahead(1);
  const expectX: number[] = ships.map(() => 0);
  return {
    /** DEPTH new ticks predicted for the first time (input committed, history recorded). */
    first(): void {
      ahead(DEPTH);
    },
    /** The confirmed state of lastTick − depth arrives, equal to what was predicted for it. */
    snapshot(depth: number): void {
      snapTick = tickAdd(last, -depth);
      records.forEach((rec, i) => {
        const predicted = histories[i]!;
        const slot = confirmedStates[i]!;
        if (!predicted.read(snapTick, slot)) throw new Error('react-netcode: bench found no prediction for the snapshot tick');
        rec.history.record(slot, snapTick);
        rec.confirmedTick = snapTick;
        rec.latest = slot;
        predicted.read(last, scratch[i]!);
        expectX[i] = (scratch[i]!.position as { x: number }).x;
      });
      nowMs += protocol.stepMs;
      ghosts.timeline.onSnapshot(snapTick, nowMs);
    },
    plain(): void {
      for (let t = tickAdd(last, 1 - DEPTH); tickDiff(last, t) >= 0; t = tickAdd(t, 1)) runner.run('prediction', t, FIRST);
    },
    /** Put the world back at the state predicted for lastTick (after plain(), so the rollback shows no correction). */
    repair(): void {
      histories.forEach((h, i) => h.read(last, ships[i]!.components));
    },
    rollback(): void {
      prediction.advance(last, noInput); // target = lastTick: the rollback only, no new tick
    },
    /** The rollback resimulated exactly `depth` ticks, found no misprediction and ended where prediction had. */
    check(before: { rollbacks: number; resimulatedTicks: number }, depth: number): void {
      const s = prediction.stats;
      if (s.rollbacks !== before.rollbacks + 1 || s.resimulatedTicks !== before.resimulatedTicks + depth || s.mispredictions !== 0) {
        throw new Error(`react-netcode: bench rollback ran ${s.rollbacks - before.rollbacks} times, ${s.resimulatedTicks - before.resimulatedTicks} ticks, ${s.mispredictions} mispredictions`);
      }
      ships.forEach((ship, i) => {
        if (ship.components.position.x !== expectX[i]) throw new Error('react-netcode: bench resimulation diverged from the prediction');
      });
    },
    stats: () => ({ rollbacks: prediction.stats.rollbacks, resimulatedTicks: prediction.stats.resimulatedTicks }),
  };
}

type Driver = ReturnType<typeof driver>;
type Phase = 'first' | 'plain' | 'rollback' | 'rollback1';
const PHASES: readonly Phase[] = ['first', 'plain', 'rollback', 'rollback1'];

/** One repetition: the four measured calls in turn, each wrapped by `probe`. */
function repetition(d: Driver, probe: (phase: Phase, call: () => void) => void): void {
  probe('first', d.first);
  d.snapshot(DEPTH);
  probe('plain', d.plain);
  d.repair();
  let before = d.stats();
  probe('rollback', d.rollback);
  d.check(before, DEPTH);
  d.snapshot(1);
  before = d.stats();
  probe('rollback1', d.rollback);
  d.check(before, 1);
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

/**
 * Heap bytes per call in steady state: one forced gc, HEAP_WARM_UP repetitions (the first calls
 * after a forced gc run slower and allocate several times more), then heapUsed read around each
 * call of HEAP_REPS repetitions. Calls during which a gc ran (PerformanceObserver 'gc' entries)
 * are discarded; the median of the rest per phase.
 */
async function heapPerCall(d: Driver): Promise<{ perCall: Record<Phase, number>; discarded: number } | null> {
  if (typeof gc !== 'function') return null;
  const cost = readingCost();
  gc();
  for (let rep = 0; rep < HEAP_WARM_UP; rep++) repetition(d, (_phase, call) => call());
  const gcs: { start: number; end: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const samples: { phase: Phase; t0: number; t1: number; bytes: number }[] = [];
  for (let rep = 0; rep < HEAP_REPS; rep++) {
    repetition(d, (phase, call) => {
      const t0 = performance.now();
      const m0 = process.memoryUsage().heapUsed;
      call();
      const m1 = process.memoryUsage().heapUsed;
      samples.push({ phase, t0, t1: performance.now(), bytes: m1 - m0 - cost });
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 20)); // let the gc entries arrive
  observer.disconnect();
  const clean = samples.filter((s) => !gcs.some((g) => g.end >= s.t0 && g.start <= s.t1));
  const perCall = {} as Record<Phase, number>;
  for (const phase of PHASES) {
    const bytes = clean.filter((s) => s.phase === phase).map((s) => s.bytes);
    if (bytes.length === 0) return null;
    perCall[phase] = median(bytes);
  }
  return { perCall, discarded: samples.length - clean.length };
}

async function measure(count: number): Promise<{ results: Result[]; discarded: number }> {
  const d = driver(count);
  const ms: Record<Phase, number[]> = { first: [], plain: [], rollback: [], rollback1: [] };
  for (let rep = 0; rep < WARM_UP + MEASURED; rep++) {
    repetition(d, (phase, call) => {
      const t0 = performance.now();
      call();
      if (rep >= WARM_UP) ms[phase].push(performance.now() - t0);
    });
  }
  // Ratios and the fixed cost per repetition (the calls of one repetition ran under the same load), then their medians.
  const perRep = (f: (i: number) => number): number => median(ms.first.map((_, i) => f(i)));
  const rollbackRatio = perRep((i) => ms.rollback[i]! / ms.first[i]!);
  const bareRatio = perRep((i) => ms.rollback[i]! / ms.plain[i]!);
  // rollback(depth) = fixed + depth · perTick, from depths DEPTH and 1.
  const fixedMs = perRep((i) => (DEPTH * ms.rollback1[i]! - ms.rollback[i]!) / (DEPTH - 1));
  const heap = await heapPerCall(d);
  const h = (phase: Phase, per: number): number | null => (heap === null ? null : round(heap.perCall[phase] / per, 1));
  const name = `${DEPTH} ticks, ${count} predicted ghost${count === 1 ? '' : 's'}`;
  const perResimTick = heap === null ? null : round((heap.perCall.rollback - heap.perCall.rollback1) / (DEPTH - 1), 1);
  const perRollback = heap === null ? null : round((DEPTH * heap.perCall.rollback1 - heap.perCall.rollback) / (DEPTH - 1), 1);
  return {
    results: [
      {
        case: name, system: 'react-netcode rollback', ms: round(median(ms.rollback), 4), rollbackRatio: round(rollbackRatio, 3), bareRatio: round(bareRatio, 3),
        fixedUsPerRollback: round(fixedMs * 1000, 2), heapBytesPerTick: h('rollback', DEPTH), heapBytesPerResimulatedTick: perResimTick, heapBytesPerRollback: perRollback,
      },
      { case: name, system: 'first-time predicted ticks', ms: round(median(ms.first), 4), heapBytesPerTick: h('first', DEPTH) },
      { case: name, system: 'plain ticks', ms: round(median(ms.plain), 4), heapBytesPerTick: h('plain', DEPTH) },
      { case: name, system: 'rollback of 1 tick', ms: round(median(ms.rollback1), 4), heapBytesPerTick: h('rollback1', 1) },
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
  console.log(`react-netcode rollback: ClientPrediction.advance to the newest tick after a snapshot ${DEPTH} ticks back (policy 'always', nothing mispredicted): compare, restore, ${DEPTH} resimulated ticks, correction check.`);
  console.log(`first-time predicted ticks: advance() by ${DEPTH} new ticks (input committed, history recorded); plain ticks: ${DEPTH} × SystemRunner.run('prediction', t), nothing recorded.`);
  console.log(`ms: median of ${MEASURED} repetitions (after ${WARM_UP} warm-up), the four calls interleaved in each; rollbackRatio / bareRatio: median per repetition of rollback / first-time and rollback / plain.`);
  console.log(`fixedUsPerRollback: median per repetition of (${DEPTH} × rollback of 1 tick − rollback of ${DEPTH}) / ${DEPTH - 1}, the intercept of cost = fixed + depth × tick.`);
  if (typeof gc !== 'function') console.log('heap figures: null, global.gc is unavailable (run through bench/run.ts or with --expose-gc).');
  else console.log(`heapBytesPerTick: median heapUsed growth around one call / its ticks, over ${HEAP_REPS} repetitions after a forced gc and ${HEAP_WARM_UP} re-warm-up ones; ${discarded} calls with a gc inside discarded. heapBytesPerResimulatedTick / PerRollback: slope and intercept from the two rollback depths.`);
  const big = results.find((r) => r.system === 'react-netcode rollback' && String(r.case).includes('200'));
  if (big) console.log(`goals (200 ghosts): rollbackRatio ${String(big['rollbackRatio'])} <= 1.2; fixedUsPerRollback ${String(big['fixedUsPerRollback'])} <= 10; heapBytesPerResimulatedTick ${String(big['heapBytesPerResimulatedTick'])} = 0.`);
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'prediction', results })}`);
}
