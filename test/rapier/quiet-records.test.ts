// A smoothed client that records its world at every snapshot tick reuses the previous
// recording when nothing in the world moved since (every predicted body asleep, no move,
// impulse, write or spawn). The state must be the same as with a snapshot at every recorded
// tick: here a tower of boxes settles and sleeps, stays asleep over many recorded ticks, is
// kicked awake, and the client rolls back to recorded ticks before, during and after the
// sleep. Run once with the reuse and once without; every box's components must agree bit
// for bit at every tick, first predictions and resimulations alike.
import { describe, expect, it } from 'vitest';
import RAPIER from '@dimforge/rapier3d-compat';
import { defineSystems, system, type InputValues } from '../../src/index.ts';
import { EngineWorld, SystemRunner } from '../../src/internals.ts';
import { recording } from '../../src/rapier/records.ts';
import { HALF, sceneProtocol, scenePhysics } from './scene.ts';

type P = typeof sceneProtocol;
const KICK = 300; // ticks 1…299: the tower settles (asleep from about tick 100); kicked at 300
const LAST = 420;
/** Rollbacks (to, then resimulate to `until`): during the sleep, across the kick, after it. */
const ROLLBACKS: [number, number][] = [[200, 260], [281, 330], [296, 360], [350, 400]];

function start(i: number): { x: number; y: number; z: number } {
  if (i < 12) return { x: (i % 2) * 0.6, y: HALF + Math.floor(i / 4) * 2 * HALF, z: (Math.floor(i / 2) % 2) * 0.6 };
  return { x: 3 + (i - 12) * 0.7, y: HALF, z: 0 };
}

function simulate(skipQuiet: boolean) {
  recording.skipQuiet = skipQuiet;
  const physics = scenePhysics('smoothed');
  const world = new EngineWorld(sceneProtocol, { isServer: false, localNetworkId: 1 });
  for (let i = 0; i < 16; i++) world.add('box', 2 + i, 0, 0, { position: start(i) });
  let current = 0;
  const systems = defineSystems(sceneProtocol, [
    system.shared('kick', () => {
      if (current !== KICK) return;
      for (const g of world.query('box')) if (g.id % 3 === 0) physics.applyImpulse(g, { x: 0.3, y: 0.5, z: -0.2 });
    }),
    physics.system(),
  ]);
  const input = sceneProtocol.input.defaults() as InputValues<P>;
  const runner = new SystemRunner(world, systems, { seed: 1, input: () => input, allocateId: () => 0 });
  const ghosts = [...world.all()];
  const state = () => ghosts.map((g) => structuredClone(g.components));
  const run = (t: number, isResimulating = false) => {
    current = t;
    runner.run('prediction', t, isResimulating ? { isResimulating } : undefined);
  };
  const trace: unknown[] = [];
  const first: unknown[][] = [];
  let asleepAt = -1;
  const rollbacks = [...ROLLBACKS];
  for (let t = 1; t <= LAST; t++) {
    run(t);
    first[t] = state();
    trace.push(first[t]);
    if (asleepAt < 0 && ghosts.every((g) => physics.body(g)!.isSleeping())) asleepAt = t;
    if (rollbacks.length > 0 && rollbacks[0]![1] === t) {
      const [to] = rollbacks.shift()!;
      ghosts.forEach((g, i) => Object.assign(g.components, structuredClone(first[to]![i])));
      for (let r = to + 1; r <= t; r++) {
        run(r, true);
        trace.push(state());
      }
    }
  }
  const stats = { ...physics.stats(world)! };
  physics.dispose(world);
  recording.skipQuiet = true;
  return { trace: JSON.stringify(trace), stats, asleepAt };
}

describe('smoothed client: a recording when nothing moved reuses the previous one', () => {
  it('through sleep, kick and rollbacks to skipped ticks, boxes match a snapshot at every recorded tick bit for bit', () => {
    expect(RAPIER.version()).toBe('0.19.2');
    const reused = simulate(true);
    const always = simulate(false);
    expect(reused.asleepAt).toBeGreaterThan(0);
    expect(reused.asleepAt).toBeLessThan(200);
    expect(always.stats.quietRecords).toBe(0);
    // Recorded ticks (every 3rd) from falling asleep to the kick, less the first after sleep and the resimulated ones.
    expect(reused.stats.quietRecords).toBeGreaterThan(30);
    expect(reused.stats.worldRestores).toBe(ROLLBACKS.length);
    expect(always.stats.worldRestores).toBe(ROLLBACKS.length);
    expect(reused.trace.length).toBe(always.trace.length);
    expect(reused.trace === always.trace).toBe(true);
  });
});
