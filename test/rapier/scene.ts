// A physics scene for the rapier tests and the bench: a character (the local
// player) walking through 50 dynamic boxes on a floor, at 60 Hz with 20 Hz
// snapshots (the server sends ticks 2, 5, 8 …: tick ≡ 2 mod 3 from startTick 0).
import RAPIER from '@dimforge/rapier3d-compat';
import { defineProtocol, defineSystems, field, ghost, system, type Logger } from '../../src/index.ts';
import { createPhysics, type PhysicsAdapter, type PhysicsMode } from '../../src/rapier/index.ts';
import { createStepper } from '../../src/testing/index.ts';

await RAPIER.init();

export const sceneProtocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted', 'interpolated'] }),
    box: ghost(
      { position: field.vec3({ quantize: 1000 }), rotation: field.quat(), linvel: field.vec3({ quantize: 1000 }), angvel: field.vec3({ quantize: 1000 }) },
      { modes: ['predicted'] }, // predicted on every client: the player pushes them
    ),
  },
  input: { move: field.vec2({ quantize: 100, maxLength: 1 }) },
  join: { name: field.string(16) },
});

export const SPEED = 4; // m/s
export const HALF = 0.25; // box half extent (m)
export const snapshotTick = (t: number): boolean => t % 3 === 2;

export function scenePhysics(mode: PhysicsMode, extra: { isSnapshotTick?: (t: number) => boolean; quantizeEveryTick?: boolean; worldSnapshots?: boolean } = {}): PhysicsAdapter {
  return createPhysics(RAPIER, {
    mode,
    ...extra,
    level: (world, R) => {
      world.createCollider(R.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0));
    },
    bodies: {
      player: { kind: 'character', collider: { capsule: [0.5, 0.3] } },
      box: { kind: 'dynamic', collider: { cuboid: [HALF, HALF, HALF] }, density: 1, friction: 0.5 },
    },
  });
}

export function sceneSystems(physics: PhysicsAdapter) {
  return defineSystems(sceneProtocol, [
    system.shared('move', (world, ctx) => {
      for (const p of world.query('player')) {
        const { move } = ctx.input(p);
        // Walk on the flat floor. (A small downward push each tick, below the controller's 1 cm skin
        // offset, was measured to sink the capsule through that skin now and then: see docs/physics.md.)
        physics.moveCharacter(p, { x: move.x * SPEED * ctx.dt, y: 0, z: move.y * SPEED * ctx.dt });
      }
    }),
    physics.system(),
  ]);
}

/** 50 boxes in a 10 × 5 grid from x = 1.5 m, resting on the floor. */
export function boxStart(i: number): { x: number; y: number; z: number } {
  return { x: 1.5 + (i % 10) * 0.6, y: HALF, z: -1.2 + Math.floor(i / 10) * 0.6 };
}

export interface SceneRun {
  mode: PhysicsMode;
  boxes?: number;
  latencyMs?: number;
  seed?: number;
  isSnapshotTick?: (t: number) => boolean;
  quantizeEveryTick?: boolean;
  worldSnapshots?: boolean;
}

const quiet: Logger = () => {};

/** Server + one client (rollback 'always'), joined, predicting, the boxes spawned. */
export function sceneSetup(run: SceneRun) {
  const physics = scenePhysics(run.mode, {
    ...(run.isSnapshotTick ? { isSnapshotTick: run.isSnapshotTick } : {}),
    ...(run.quantizeEveryTick ? { quantizeEveryTick: true } : {}),
    ...(run.worldSnapshots === false ? { worldSnapshots: false } : {}),
  });
  const link = { latencyMs: run.latencyMs ?? 50, jitterMs: 0, loss: 0 };
  const s = createStepper({
    protocol: sceneProtocol,
    systems: sceneSystems(physics),
    seed: run.seed ?? 3,
    log: quiet,
    server: { snapshotBudgetBytes: 16_000 }, // every box in every snapshot: a box left out is restored from the client's own guess
    clients: [{ link: { up: link, down: link }, engine: { prediction: { rollback: 'always' } } }],
  });
  for (let i = 0; i < (run.boxes ?? 50); i++) s.server.spawn('box', { position: boxStart(i) });
  s.server.events.on('join', (c) => s.server.spawn('player', { position: { x: 0, y: 0.81, z: 0 } }, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  const client = s.clients[0]!.client;
  s.until(() => client.world.size === (run.boxes ?? 50) + 1 && client.prediction!.lastTick !== undefined, 5000, 'prediction to start');
  s.advance(1000); // clock sync settles
  const me = [...client.world.query('player')][0]!;
  const boxes = [...client.world.query('box')];
  return { s, client, me, boxes, physics };
}
