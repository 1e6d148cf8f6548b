// Character benchmark (react-netcode/rapier): the cost of moving Rapier characters
// (physics.moveCharacter through the KinematicCharacterController) on a server World.
// 64 capsule characters (halfHeight 0.5, radius 0.3, the default 1 cm offset) in an 8 × 8
// grid 1.5 m apart walk at 4 m/s on a flat floor, turning back every 2 s; each tick the
// physics system slides every move along the level and steps the world. Two spawn heights:
// 2 cm above the ground (off the controller's offset) and in exact contact (halfHeight + r),
// each also with a move down of 2 cm a tick (gravity) besides the walk.
// Figures per case: µs per character move (the physics system's time / characters / ticks),
// heap bytes per tick after a forced gc, how far the characters got (mean |x| walked) and
// their lowest height at the end (the lowest y: 0.8 is contact with the floor).
// Run through bench/run.ts; prints a table and, last, one `BENCH {json}` line.
import RAPIER from '@dimforge/rapier3d-compat';
import { performance } from 'node:perf_hooks';
import { field } from '../src/core/field.ts';
import { defineProtocol, ghost, type InputValues } from '../src/core/protocol.ts';
import { defineSystems, system, SystemRunner } from '../src/core/system.ts';
import { EngineWorld } from '../src/core/world.ts';
import { createPhysics } from '../src/rapier/index.ts';
import { heapPerTick, median, round, timedSystem } from './physics.bench.ts';

const CHARACTERS = 64;
const DEPTH = 30;
const WARM_UP = 3;
const MEASURED = 25;
const HALF_HEIGHT = 0.5;
const RADIUS = 0.3;
/** Ticks per heap measurement: enough that a stray allocation of the engine's own (feedback, code) is a small share. */
const HEAP_TICKS = 300;

type Result = { case: string; system: string } & Record<string, number | string | null>;

const protocol = defineProtocol({
  tickRate: 60,
  ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted'] }) },
  input: { move: field.vec2({ quantize: 100 }) },
});

const gc = (globalThis as { gc?: () => void }).gc;

function world(lift: number, dy: number) {
  const physics = createPhysics(RAPIER, {
    level: (w, R) => void w.createCollider(R.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0)),
    bodies: { player: { kind: 'character', collider: { capsule: [HALF_HEIGHT, RADIUS] } } },
  });
  const w = new EngineWorld(protocol, { isServer: true });
  for (let i = 0; i < CHARACTERS; i++) {
    w.add('player', i + 1, 0, 0, { position: { x: -2 + (i % 8) * 1.5, y: HALF_HEIGHT + RADIUS + lift, z: -6 + Math.floor(i / 8) * 1.5 } });
  }
  const players = [...w.query('player')];
  const move = { x: 0, y: dy, z: 0 };
  const timed = { ms: 0 };
  const inner = physics.system<typeof protocol>();
  const systems = defineSystems(protocol, [
    system.shared('walk', (_w, ctx) => {
      move.x = (Math.floor(ctx.tick / 120) % 2 === 0 ? 4 : -4) * ctx.dt;
      move.y = dy;
      for (const p of players) physics.moveCharacter(p, move);
    }),
    timedSystem(inner, timed),
  ]);
  const input = protocol.input.defaults() as InputValues<typeof protocol>;
  const runner = new SystemRunner(w, systems, { seed: 7, input: () => input, allocateId: () => 0 });
  let tick = 0;
  const plain = (n: number): void => {
    for (let i = 0; i < n; i++) runner.run('server', ++tick);
  };
  return { physics, w, players, timed, plain };
}

/** One spawn height: 30-tick runs of the walk, timed inside the physics system. */
function characterCase(name: string, lift: number, dy = 0): Result {
  const d = world(lift, dy);
  // The first 2 s: a walk along +x from the spawn; how far each character got in it.
  d.plain(120);
  let walked = 0;
  for (const p of d.players) walked += Math.abs((p.components.position as { x: number }).x - (-2 + ((p.id - 1) % 8) * 1.5));
  const xs: number[] = [];
  for (let rep = 0; rep < WARM_UP + MEASURED; rep++) {
    const t0 = d.timed.ms;
    d.plain(DEPTH);
    if (rep >= WARM_UP) xs.push(d.timed.ms - t0);
  }
  const heap = heapPerTick(() => d.plain(HEAP_TICKS), HEAP_TICKS);
  let lowest = Infinity;
  for (const p of d.players) lowest = Math.min(lowest, (p.components.position as { y: number }).y);
  d.physics.dispose(d.w);
  const total = median(xs);
  return {
    case: `${CHARACTERS} characters walking, server, ${name}`,
    system: 'physics.system()',
    msPer30Ticks: round(total, 3),
    usPerCharacterTick: round((total * 1000) / CHARACTERS / DEPTH, 3),
    heapBytesPerTick: heap,
    meanWalkedIn2sM: round(walked / CHARACTERS, 3),
    lowestYAtEnd: round(lowest, 3),
  };
}

export async function run(): Promise<void> {
  await RAPIER.init();
  const started = performance.now();
  const results: Result[] = [
    characterCase('spawned 2 cm up (halfHeight + r + 0.02)', 0.02),
    characterCase('spawned in exact contact (halfHeight + r)', 0),
    characterCase('spawned 2 cm up, again', 0.02),
    characterCase('spawned in exact contact, again', 0),
    characterCase('spawned 2 cm up, moved down 2 cm a tick', 0.02, -0.02),
    characterCase('spawned in exact contact, moved down 2 cm a tick', 0, -0.02),
  ];
  console.table(results.map(({ case: c, system: s, ...m }) => ({ case: c, system: s, ...m })));
  console.log(`usPerCharacterTick: the physics system's time over ${DEPTH} ticks (median of ${MEASURED} after ${WARM_UP} warm-up) / ${CHARACTERS} characters / ${DEPTH}; heapBytesPerTick: heap growth per tick over ${HEAP_TICKS} ticks after a forced gc (median of 5); meanWalkedIn2sM: mean distance walked in the first 2 s (8 m expected); lowestYAtEnd: the lowest character's y after the runs (0.8 is contact with the floor).`);
  if (typeof gc !== 'function') console.log('heap figures: null, global.gc is unavailable (run through bench/run.ts or with --expose-gc).');
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'physics-characters', results })}`);
}
