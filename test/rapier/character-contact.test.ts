// A character in exact contact with the ground — its capsule's centre at halfHeight + radius over a floor at
// y = 0, spawned there or teleported there later by a server system — walks like one above its offset.
// Rapier's controller keeps a skin (`offset`, 1 cm) and pushes a character out of it by less than a
// millimetre per move, which the per-tick quantization of a character's position (1 mm here) undid; in exact
// contact the controller met the floor as a wall at some places (it stopped within a few ticks: 0.46 m of a
// 4 m walk at z = 2) and deflected sideways at others. At each move the adapter lifts a character whose
// ground, straight below its centre, is nearer than the offset, to the offset: decided by the state at that
// move alone, so the server, a client's first prediction and its resimulations all lift alike. A character moved
// down every tick (gravity) is lifted and its move down clamped at the offset and one quantum (below).
import RAPIER from '@dimforge/rapier3d-compat';
import { describe, expect, it, vi } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, system, type Vec3 } from '../../src/index.ts';
import { createPhysics, type PhysicsMode, type PhysicsOptions } from '../../src/rapier/index.ts';
import { wrapClassOf } from '../../src/rapier/scratch.ts';
import { createStepper } from '../../src/testing/index.ts';

await RAPIER.init();

const HALF_HEIGHT = 0.5;
const RADIUS = 0.3;
const CONTACT = HALF_HEIGHT + RADIUS; // 0.8: the capsule touches the floor
const OFFSET = 0.01; // the controller's default skin
const LIFTED = 0.811; // the offset and one quantum (1 mm) above the contact

const protocol = defineProtocol({ tickRate: 60, ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }) }) } });
const floor: NonNullable<PhysicsOptions['level']> = (world, R) => void world.createCollider(R.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0));

/** A server walking one character by `step` each tick from `spawn`; `at(tick)` may teleport it. */
function walker(spawn: Vec3, level: NonNullable<PhysicsOptions['level']> = floor, step: Vec3 = { x: 4 / 60, y: 0, z: 0 }) {
  const physics = createPhysics(RAPIER, { level, bodies: { player: { kind: 'character', collider: { capsule: [HALF_HEIGHT, RADIUS] } } } });
  const systems = defineSystems(protocol, [
    system.shared('walk', (world) => {
      for (const p of world.query('player')) physics.moveCharacter(p, step);
    }),
    physics.system(),
  ]);
  const s = createStepper({ protocol, systems, seed: 1, clients: [] });
  const player = s.server.spawn('player', { position: spawn });
  const ys: number[] = [];
  return {
    player,
    ys,
    tick(n: number) {
      for (let i = 0; i < n; i++) {
        s.tick(1);
        ys.push(player.components.position.y);
      }
      return { ...player.components.position };
    },
  };
}

describe('a character in exact contact with the ground', () => {
  it.each([0, 1, 2, 3, 4])('spawned at halfHeight + radius, walks 4 m in 1 s from z = %d without drifting sideways', (z) => {
    const end = walker({ x: 0, y: CONTACT, z }).tick(60);
    expect(end.x).toBeGreaterThan(3.9);
    expect(Math.abs(end.z - z)).toBeLessThan(0.003);
    expect(end.y).toBeCloseTo(LIFTED, 6); // lifted to its offset and one quantum, and no higher
  });

  it.each([2, 3])('teleported onto the ground after walking (z = %d), walks on', (z) => {
    const w = walker({ x: 0, y: CONTACT + 0.1, z });
    w.tick(10);
    w.player.components.position = { x: 0, y: CONTACT, z }; // a respawn point on the ground
    const end = w.tick(60);
    expect(end.x).toBeGreaterThan(3.9);
    expect(Math.abs(end.z - z)).toBeLessThan(0.003);
    expect(end.y).toBeCloseTo(LIFTED, 6);
  });

  it.each([0, 0.004, 0.009, -0.005])('%d m from the ground: lifted at its first move to the offset and one quantum, and kept there', (gap) => {
    const w = walker({ x: 0, y: CONTACT + gap, z: 2 });
    w.tick(30);
    const moved = w.ys.findIndex((y) => y !== CONTACT + gap);
    expect(w.ys.slice(moved)).toEqual(w.ys.slice(moved).map(() => LIFTED));
  });
});

// Positions recorded on the code before the lift (the same runs, without it): the lift changes none of them but two
// that end on flat ground with a move down, held at the offset and one quantum (marked).
// A character at exactly its offset (0.81) is pushed up 1–3 mm and, at z = 4, deflected 26 mm by the controller
// itself (exact contact is lifted one quantum higher, to 0.811, which walks straight at all five places).
type Case = [name: string, spawn: Vec3, level: 'floor' | 'wall' | 'ramp', step: Vec3, ticks: number, end: Vec3, yMin: number, yMax: number];
const X = { x: 4 / 60, y: 0, z: 0 };
const CASES: Case[] = [
  ['at its offset, z = 0', { x: 0, y: 0.81, z: 0 }, 'floor', X, 60, { x: 3.953, y: 0.812, z: 0 }, 0.81, 0.812],
  ['at its offset, z = 2', { x: 0, y: 0.81, z: 2 }, 'floor', X, 60, { x: 3.952, y: 0.812, z: 2.006 }, 0.81, 0.812],
  ['at its offset, z = 4', { x: 0, y: 0.81, z: 4 }, 'floor', X, 60, { x: 3.94, y: 0.813, z: 3.974 }, 0.81, 0.813],
  ['a millimetre above its offset', { x: 0, y: 0.811, z: 2 }, 'floor', X, 60, { x: 3.953, y: 0.811, z: 2 }, 0.811, 0.811],
  ['1 cm above its offset', { x: 0, y: 0.82, z: 3 }, 'floor', X, 60, { x: 3.953, y: 0.82, z: 3 }, 0.82, 0.82],
  ['beside a wall, at its offset', { x: 0, y: 0.81, z: 0 }, 'wall', { x: 0, y: 0, z: 4 / 60 }, 30, { x: -0.004, y: 0.813, z: 2.009 }, 0.81, 0.813],
  ['beside a wall, 3 cm up', { x: 0, y: 0.83, z: 0 }, 'wall', { x: 0, y: 0, z: 4 / 60 }, 30, { x: -0.015, y: 0.83, z: 1.947 }, 0.83, 0.83],
  ['beside a wall, in the air', { x: 0, y: 3, z: 0 }, 'wall', { x: 0, y: 0, z: 4 / 60 }, 30, { x: -0.008, y: 3, z: 2.009 }, 3, 3],
  ['walking up a 20° ramp', { x: 0, y: 0.811, z: 0 }, 'ramp', X, 90, { x: 5.541, y: 2.119, z: 0 }, 0.811, 2.119],
  ['landing and standing on the ramp', { x: 4, y: 2.5, z: 0 }, 'ramp', { x: 0, y: -0.05, z: 0 }, 60, { x: 4, y: 1.558, z: 0 }, 1.558, 2.5],
  ['walking across the ramp', { x: 4, y: 2.5, z: -2 }, 'ramp', { x: 0, y: -0.02, z: 4 / 60 }, 60, { x: 3.965, y: 1.545, z: 1.953 }, 1.545, 2.5],
  // On the floor at the ramp's foot, moved down: held at the offset and one quantum (before, 2 mm into the skin: 0.808).
  ['walking down the ramp onto the floor', { x: 6, y: 2.6, z: 0 }, 'ramp', { x: -4 / 60, y: -0.05, z: 0 }, 90, { x: -0.38, y: 0.811, z: 0 }, 0.81, 2.6],
  ['on the edge of a 20 cm step', { x: 0.1, y: 1.2, z: 10 }, 'ramp', { x: 0, y: -0.05, z: 0 }, 30, { x: 0.1, y: 0.994, z: 10 }, 0.994, 1.2],
  // Held on the step's top at 1.011 (before, 1.01), it comes off its edge 2 mm higher (before, 0.996).
  ['walking along the step', { x: -0.1, y: 1.02, z: 10 }, 'ramp', { x: -4 / 60, y: -0.05, z: 0 }, 30, { x: -2.115, y: 0.998, z: 10 }, 0.998, 1.02],
];
const LEVELS: Record<Case[2], NonNullable<PhysicsOptions['level']>> = {
  floor,
  // A wall whose face is at x = 0.3: the capsule (radius 0.3) at x = 0 touches it, walking along it (+z).
  wall: (world, R) => {
    floor(world, R);
    world.createCollider(R.ColliderDesc.cuboid(0.5, 5, 50).setTranslation(0.8, 5, 0));
  },
  // A 20° ramp rising along +x from (2, 0), and a 20 cm step, x from −2 to 0, at z = 10.
  ramp: (world, R) => {
    floor(world, R);
    const a = (20 * Math.PI) / 180;
    world.createCollider(R.ColliderDesc.cuboid(5, 0.5, 3).setTranslation(2 + 5 * Math.cos(a) + 0.5 * Math.sin(a), 5 * Math.sin(a) - 0.5 * Math.cos(a), 0).setRotation({ x: 0, y: 0, z: Math.sin(a / 2), w: Math.cos(a / 2) }));
    world.createCollider(R.ColliderDesc.cuboid(1, 0.1, 1).setTranslation(-1, 0.1, 10));
  },
};

describe('what the lift leaves alone: characters at or above their offset, beside a wall, on a slope or a step', () => {
  it.each(CASES)('%s: as before', (_name, spawn, level, step, ticks, end, yMin, yMax) => {
    const w = walker(spawn, LEVELS[level], step);
    expect(w.tick(ticks)).toEqual(end);
    expect(Math.min(...w.ys)).toBe(yMin);
    expect(Math.max(...w.ys)).toBe(yMax);
  });

});

// A character moved down every tick (gravity). Rapier's controller, with the character at its offset (0.810 here, where
// the per-tick quantization puts a landed character), lets a move down through into the ground by the whole move: it
// rested at 0.70 with 10 cm a tick, 0.78 with 2 cm, 0.795 with 2.7 mm (from exact contact; 0.71, 0.79, 0.807 landing
// from 2 cm up), with or without snapToGround. A move down is lifted out of the offset too, and a move down from no
// more than two quanta over it is clamped to the offset and one quantum: a landed character rests at 0.811.
type Fall = number | 'fall' | 'jump';
/** `dy`: the move down each tick, or 'fall' (a velocity accelerated by gravity from 0) or 'jump' (4 m/s up from
 * the spawn, accelerated by gravity, and stopped when the controller says grounded). */
function faller(spawn: Vec3, dy: Fall, snapToGround?: number, level: NonNullable<PhysicsOptions['level']> = floor, vx = 4) {
  const g = defineProtocol({ tickRate: 60, ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }), grounded: field.bool() }) } });
  const physics = createPhysics(RAPIER, {
    level,
    bodies: { player: { kind: 'character', collider: { capsule: [HALF_HEIGHT, RADIUS] }, ...(snapToGround === undefined ? {} : { character: { snapToGround } }) } },
  });
  let vy = dy === 'jump' ? 4 : 0;
  const systems = defineSystems(g, [
    system.shared('walk', (world, ctx) => {
      for (const p of world.query('player')) {
        if (dy === 'jump' && p.components.grounded && vy < 0) vy = 0;
        vy -= 9.81 * ctx.dt;
        physics.moveCharacter(p, { x: vx * ctx.dt, y: typeof dy === 'number' ? dy : vy * ctx.dt, z: 0 });
      }
    }),
    physics.system(),
  ]);
  const s = createStepper({ protocol: g, systems, seed: 1, clients: [] });
  const player = s.server.spawn('player', { position: spawn });
  const path: Vec3[] = [];
  const grounded: boolean[] = [];
  return {
    path,
    grounded,
    tick(n: number) {
      for (let i = 0; i < n; i++) {
        s.tick(1);
        path.push({ ...player.components.position });
        grounded.push(player.components.grounded);
      }
      return { ...player.components.position };
    },
  };
}

describe('a character moved down every tick (gravity) lands on the ground and stays out of it', () => {
  it.each([
    [-0.0027, CONTACT, undefined],
    [-0.0027, 0.82, undefined],
    [-0.02, CONTACT, undefined],
    [-0.02, 0.82, 0.1],
    [-0.1, CONTACT, 0.1],
    [-0.1, 0.82, undefined],
    [-0.1, 1.3, undefined],
    ['fall', 1.8, undefined],
    ['fall', 1.8, 0.1],
    ['jump', CONTACT, undefined],
    ['jump', 0.82, 0.1],
  ] as const)('%s a tick from y = %d (snapToGround %s): rests at the offset and one quantum, and walks 4 m/s, at z = 0…4', (dy, y, snap) => {
    for (const z of [0, 1, 2, 3, 4]) {
      const w = faller({ x: 0, y, z }, dy, snap);
      w.tick(60); // landed (a jump comes down after 0.8 s)
      const x0 = w.path.at(-1)!.x;
      const end = w.tick(60);
      const ys = w.path.slice(60).map((p) => p.y);
      expect(Math.min(...ys), `z = ${z}`).toBe(LIFTED); // not in the floor, nor in the skin
      expect(Math.max(...ys), `z = ${z}`).toBe(LIFTED);
      expect(w.grounded.slice(60).every((g) => g), `z = ${z}`).toBe(true); // the controller says grounded at every move
      expect(end.x - x0, `z = ${z}`).toBeGreaterThan(3.9);
      expect(Math.abs(end.z - z), `z = ${z}`).toBeLessThan(0.005);
    }
  });

  // The ground's distance below the capsule's lowest sphere: the floor, or the ramp's face where the sphere is over it.
  const A = (20 * Math.PI) / 180;
  const clearance = (p: Vec3) => {
    const by = p.y - HALF_HEIGHT;
    const along = (p.x - 2) * Math.cos(A) + by * Math.sin(A);
    const floorGap = by - RADIUS;
    return along > 0 && along < 10 && Math.abs(p.z) < 3 ? Math.min(floorGap, -(p.x - 2) * Math.sin(A) + by * Math.cos(A) - RADIUS) : floorGap;
  };
  it.each([
    ['up', -0.05, undefined],
    ['up', -0.1, 0.1],
    ['down', -0.05, 0.1],
    ['down', -0.1, undefined],
    ['down', -0.1, 0.1],
  ] as const)('walking %s the 20° ramp moved %d a tick (snapToGround %s): never into the ramp or the floor', (way, dy, snap) => {
    // Before, these sank 4 cm into the floor at the ramp's foot (up, 5 cm a tick) and 0.6–14 cm (down).
    const start = way === 'up' ? { x: 0, y: CONTACT + 0.02, z: 0 } : { x: 2 + 9 * Math.cos(A), y: 9 * Math.sin(A) + 0.9, z: 0 };
    const w = faller(start, dy, snap, LEVELS.ramp, way === 'up' ? 4 : -4);
    const end = w.tick(way === 'up' ? 110 : 150);
    const gaps = w.path.slice(6).map(clearance);
    expect(Math.min(...gaps)).toBeGreaterThan(0.009); // at the offset (1 cm) but for float and a millimetre's rounding
    if (way === 'up') expect(end.x).toBeGreaterThan(4); // up the ramp (its foot is at x = 2)
    else expect(end.y).toBe(LIFTED); // down on the floor
  });
});

// A client predicting its character with a rollback at every snapshot ('always'), 50 ms each way: its first
// predictions and its resimulations start from the same quantized states, so they lift alike (a lift decided
// by what a peer had run before — its first move on that peer — was missing from the resimulations).
const predicted = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted', 'interpolated'] }) },
  input: { move: field.vec2({ quantize: 100, maxLength: 1 }) },
  join: { name: field.string(16) },
});

/** `dy`: the move down each tick while the key is held (gravity), 0 for none. */
function predictedWalk(spawnY: number, mode: PhysicsMode, dy = 0) {
  const physics = createPhysics(RAPIER, {
    mode,
    level: floor,
    bodies: { player: { kind: 'character', collider: { capsule: [HALF_HEIGHT, RADIUS] } } },
  });
  const systems = defineSystems(predicted, [
    system.shared('move', (world, ctx) => {
      for (const p of world.query('player')) {
        const { move } = ctx.input(p);
        if (move.x === 0 && move.y === 0) continue; // only while a key is held: the first move comes late
        physics.moveCharacter(p, { x: move.x * 4 * ctx.dt, y: dy, z: move.y * 4 * ctx.dt });
      }
    }),
    physics.system(),
  ]);
  const link = { latencyMs: 50, jitterMs: 0, loss: 0 };
  const s = createStepper({ protocol: predicted, systems, seed: 3, log: () => {}, clients: [{ link: { up: link, down: link }, engine: { prediction: { rollback: 'always' } } }] });
  s.server.events.on('join', (c) => s.server.spawn('player', { position: { x: 0, y: spawnY, z: 2 } }, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  const client = s.clients[0]!.client;
  s.until(() => client.world.size === 1 && client.prediction!.lastTick !== undefined, 5000, 'prediction');
  s.advance(1000);
  const me = [...client.world.query('player')][0]!;
  let mispredictions = 0;
  client.prediction!.events.on('misprediction', () => void mispredictions++);
  let correction = 0;
  for (let i = 0; i < 120; i++) {
    client.input.current.move.x = 1;
    s.advance(1000 / 60);
    correction = Math.max(correction, client.prediction!.correction(me)!.offsetMagnitude);
  }
  const server = [...s.server.world.query('player')][0]!.components.position as Vec3;
  return { mispredictions, correction, server: { ...server } };
}

describe('a predicted character in exact contact, rolled back at every snapshot', () => {
  it.each([
    [CONTACT, 'exact'],
    [CONTACT + OFFSET, 'exact'],
    [CONTACT, 'smoothed'],
    [CONTACT + OFFSET, 'smoothed'],
  ] as const)('spawned at %d (%s): walks on the server, and the client never mispredicts', (y, mode) => {
    const r = predictedWalk(y, mode);
    expect(r.mispredictions).toBe(0);
    expect(r.correction).toBe(0);
    expect(r.server.x).toBeGreaterThan(7.5); // 2 s at 4 m/s
    expect(Math.abs(r.server.z - 2)).toBeLessThan(0.01);
  });
});

describe('a predicted character moved down every tick (gravity), rolled back at every snapshot', () => {
  it.each([
    [CONTACT, 'exact', -0.02],
    [CONTACT + OFFSET, 'exact', -0.1],
    [1.3, 'exact', -0.1],
    [CONTACT, 'smoothed', -0.0027],
    [CONTACT + OFFSET, 'smoothed', -0.02],
    [1.3, 'smoothed', -0.1],
  ] as const)('spawned at %d (%s), %d a tick: lands, walks, and the client never mispredicts', (y, mode, dy) => {
    const r = predictedWalk(y, mode, dy);
    expect(r.mispredictions).toBe(0);
    expect(r.correction).toBe(0);
    expect(r.server.y).toBe(LIFTED);
    expect(r.server.x).toBeGreaterThan(7.5);
    expect(Math.abs(r.server.z - 2)).toBeLessThan(0.01);
  });
});

const turned = defineProtocol({ tickRate: 60, ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }), rotation: field.quat() }) } });

describe('other shapes and a rotation', () => {
  const yaw = { x: 0, y: Math.SQRT1_2, z: 0, w: Math.SQRT1_2 }; // 90° about y
  const lying = { x: 0, y: 0, z: Math.SQRT1_2, w: Math.SQRT1_2 }; // 90° about z: the capsule's axis along x
  it.each([
    ['a capsule turned 90° about y', { capsule: [HALF_HEIGHT, RADIUS] as const }, yaw, CONTACT, 0],
    ['a capsule lying along x', { capsule: [HALF_HEIGHT, RADIUS] as const }, lying, RADIUS, 0],
    ['a ball', { ball: RADIUS }, yaw, RADIUS, 0],
    ['a cuboid turned 90° about y', { cuboid: [0.2, 0.8, 0.4] as const }, yaw, 0.8, 0],
    ['a capsule turned 90° about y, moved 5 cm down a tick', { capsule: [HALF_HEIGHT, RADIUS] as const }, yaw, CONTACT, -0.05],
    ['a capsule lying along x, moved 5 cm down a tick', { capsule: [HALF_HEIGHT, RADIUS] as const }, lying, RADIUS, -0.05],
    ['a ball, moved 5 cm down a tick', { ball: RADIUS }, yaw, RADIUS, -0.05],
    ['a cuboid turned 90° about y, moved 5 cm down a tick', { cuboid: [0.2, 0.8, 0.4] as const }, yaw, 0.8, -0.05],
  ])('%s in exact contact is lifted too, and walks', (_name, collider, rotation, contact, dy) => {
    const physics = createPhysics(RAPIER, { level: floor, bodies: { player: { kind: 'character', collider } } });
    const systems = defineSystems(turned, [
      system.shared('walk', (world) => {
        for (const p of world.query('player')) physics.moveCharacter(p, { x: 4 / 60, y: dy, z: 0 });
      }),
      physics.system(),
    ]);
    const s = createStepper({ protocol: turned, systems, seed: 1, clients: [] });
    const player = s.server.spawn('player', { position: { x: 0, y: contact, z: 2 }, rotation });
    s.tick(60);
    const end = player.components.position;
    expect(end.x).toBeGreaterThan(3.9);
    expect(Math.abs(end.z - 2)).toBeLessThan(0.003);
    expect(end.y).toBeCloseTo(contact + OFFSET + 0.001, 6);
  });
});

describe('the ground query', () => {
  it("wraps no new object per hit (0.19): after the first, the ray's hits reuse one wrapper", () => {
    // The class of a raw ray hit: what the ray under a character at its offset returns at every move.
    const world = new RAPIER.World({ x: 0, y: 0, z: 0 });
    floor(world, RAPIER);
    world.step();
    const w = world as unknown as { broadPhase: { raw: { castRay(...a: unknown[]): { free(): void } | undefined } }; narrowPhase: { raw: unknown }; bodies: { raw: unknown }; colliders: { raw: unknown } };
    const origin = RAPIER.VectorOps.intoRaw({ x: 0, y: 1, z: 0 });
    const down = RAPIER.VectorOps.intoRaw({ x: 0, y: -1, z: 0 });
    const hit = w.broadPhase.raw.castRay(w.narrowPhase.raw, w.bodies.raw, w.colliders.raw, origin, down, 2, true, 0, undefined, undefined, undefined, null)!;
    const C = wrapClassOf(hit)!;
    hit.free();
    origin.free();
    down.free();
    world.free();
    expect(C).toBeDefined();
    const spy = vi.spyOn(C, '__wrap');
    try {
      const w2 = walker({ x: 0, y: CONTACT + OFFSET, z: 0 }); // at its offset: the ray hits the floor at every move
      w2.tick(2);
      const first = spy.mock.calls.length;
      w2.tick(30);
      expect(first).toBeLessThanOrEqual(1);
      expect(spy.mock.calls.length).toBe(first);
    } finally {
      spy.mockRestore();
    }
  });
});

// docs/physics.md, "Gravity: keep a grounded character moving down": the snippet's system, dropped from 2 m and
// jumping, rests at the offset and one quantum every time; with its speed zeroed while grounded (the contrast) it
// rests wherever the controller's last move down stopped it, above that.
describe("physics.md's gravity snippet", () => {
  const jumper = defineProtocol({
    tickRate: 60,
    ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }), grounded: field.bool(), vy: field.f32({ quantize: 1000 }) }) },
  });
  function land(groundedVy: number): number[] {
    const physics = createPhysics(RAPIER, { level: floor, bodies: { player: { kind: 'character', collider: { capsule: [HALF_HEIGHT, RADIUS] } } } });
    let ticks = 0;
    const systems = defineSystems(jumper, [
      system.shared('walk', (world, ctx) => {
        const jump = ++ticks === 200; // once, after the drop has landed
        for (const p of world.query('player')) {
          const c = p.components;
          c.vy = c.grounded ? (jump ? 5 : groundedVy) : c.vy - 9.81 * ctx.dt;
          physics.moveCharacter(p, { x: 4 * ctx.dt, y: c.vy * ctx.dt, z: 0 });
        }
      }),
      physics.system(),
    ]);
    const s = createStepper({ protocol: jumper, systems, seed: 1, clients: [] });
    const player = s.server.spawn('player', { position: { x: 0, y: 2, z: 2 } });
    const rests: number[] = [];
    s.tick(190);
    rests.push(player.components.position.y); // after the drop
    s.tick(200);
    rests.push(player.components.position.y); // after the jump
    return rests;
  }

  it('kept moving down while grounded (-0.5 m/s): rests at 0.811 after a 2 m drop and after a jump', () => {
    expect(land(-0.5)).toEqual([LIFTED, LIFTED]);
  });

  it('contrast, zeroed while grounded: it rests above that', () => {
    const rests = land(0);
    expect(Math.max(...rests)).toBeGreaterThan(LIFTED);
  });
});
