// The adapter's contract, one tick at a time on bare Worlds (no network): bodies
// follow spawns and despawns in ghost-id order, impulses and kinematic moves act in
// the tick's step, interpolated ghosts on a client are obstacles that are never
// written back, exact mode quantizes at snapshot ticks, and usage errors are explicit.
import RAPIER from '@dimforge/rapier3d-compat';
import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, system, type InputValues, type SystemDef } from '../../src/index.ts';
import { EngineWorld, SystemRunner, type World } from '../../src/internals.ts';
import { quantizeQuat } from '../../src/core/bits.ts';
import { canonicalRotation } from '../../src/rapier/body.ts';
import { createPhysics, type PhysicsAdapter, type PhysicsOptions } from '../../src/rapier/index.ts';

await RAPIER.init();

const protocol = defineProtocol({
  tickRate: 60,
  ghosts: {
    crate: ghost({ position: field.vec3({ quantize: 1000 }), rotation: field.quat(), linvel: field.vec3({ quantize: 1000 }), angvel: field.vec3({ quantize: 1000 }) }),
    door: ghost({ position: field.vec3({ quantize: 1000 }) }),
    flat: ghost({ position: field.vec3({ quantize: 1000 }) }),
  },
  input: { move: field.vec2({ quantize: 100 }) },
});
type P = typeof protocol;

const bodies = {
  crate: { kind: 'dynamic', collider: { cuboid: [0.25, 0.25, 0.25] }, density: 1 },
  door: { kind: 'kinematic', collider: { cuboid: [1, 1, 0.1] } },
} as const;

function setup(options: Partial<PhysicsOptions> = {}, world = new EngineWorld(protocol, { isServer: true }), before: SystemDef<P>[] = []) {
  const physics = createPhysics(RAPIER, { gravity: { x: 0, y: 0, z: 0 }, bodies, ...options });
  const input = protocol.input.defaults() as InputValues<P>;
  const runner = new SystemRunner(world, defineSystems(protocol, [...before, physics.system()]), { seed: 1, input: () => input, allocateId: () => 0 });
  let tick = 0;
  const step = (n = 1) => {
    for (let i = 0; i < n; i++) runner.run(world.isServer ? 'server' : 'prediction', ++tick);
  };
  return { physics, world, step };
}

const count = (physics: PhysicsAdapter, world: World<P>): number => {
  let n = 0;
  physics.world(world)!.forEachRigidBody(() => n++);
  return n;
};

describe('rapier adapter', () => {
  it('creates bodies for new ghosts and removes them on despawn', () => {
    const { physics, world, step } = setup();
    world.add('crate', 5, 0, 0, { position: { x: 0, y: 0, z: 0 } });
    world.add('crate', 2, 0, 0, { position: { x: 3, y: 0, z: 0 } });
    world.add('flat', 9, 0, 0); // not a body type: ignored
    step();
    expect(count(physics, world)).toBe(2);
    world.remove(5);
    step();
    expect(count(physics, world)).toBe(1);
    expect(physics.stats(world)).toMatchObject({ steps: 2, rebuilds: 0, bodies: 1 });
  });

  it('applies an impulse in the tick it is queued: v = J / m', () => {
    const crate = new EngineWorld(protocol, { isServer: true });
    const g = crate.add('crate', 1, 0, 0);
    const kick: SystemDef<P> = system.shared('kick', (_w, ctx) => void (ctx.tick === 1 && physics.applyImpulse(g, { x: 0.125, y: 0, z: 0 })));
    const { physics, step } = setup({}, crate, [kick]);
    step();
    // m = density × volume = 1 × 0.5³ = 0.125 kg → v = 0.125 / 0.125 = 1 m/s; x after one 1/60 s step = 0.01667 m.
    expect(g.components.linvel.x).toBeCloseTo(1, 5);
    expect(g.components.position.x).toBeCloseTo(1 / 60, 5);
    step(59);
    expect(g.components.position.x).toBeCloseTo(1, 4); // no gravity, no friction: 1 m/s for 1 s
  });

  it('moves a kinematic body by its queued translation during the step', () => {
    const w = new EngineWorld(protocol, { isServer: true });
    const door = w.add('door', 1, 0, 0);
    const open: SystemDef<P> = system.shared('open', () => physics.moveKinematic(door, { x: 0.05, y: 0, z: 0 }));
    const { physics, step } = setup({}, w, [open]);
    step(10);
    expect(door.components.position.x).toBeCloseTo(0.5, 5); // 10 × 0.05 m
  });

  it('on a client, an interpolated ghost is a kinematic obstacle at its shown pose and is never written back', () => {
    const w = new EngineWorld(protocol, { isServer: false, localNetworkId: 1 });
    const shown = w.add('crate', 1, 0, 0, { position: { x: 0, y: 5, z: 0 } });
    expect(shown.mode).toBe('interpolated'); // not owned: interpolated by default
    const { physics, step } = setup({ gravity: { x: 0, y: -9.81, z: 0 } }, w);
    step(30);
    expect(shown.components.position.y).toBe(5); // gravity would have moved a simulated body 0.5 × 9.81 × 0.5² ≈ 1.2 m
    expect(physics.body(shown)!.isKinematic()).toBe(true);
    shown.components.position.y = 2; // interpolation moves it: the body follows during the next step
    step();
    expect(physics.body(shown)!.translation().y).toBeCloseTo(2, 6);
  });

  it('exact mode quantizes the state as the wire does at snapshot ticks only, and rebuilds after them', () => {
    const w = new EngineWorld(protocol, { isServer: true });
    const g = w.add('crate', 1, 0, 0, { linvel: { x: 0.3333, y: 0, z: 0.1 }, angvel: { x: 0, y: 1, z: 0 } });
    const { physics, step } = setup({ mode: 'exact', isSnapshotTick: (t) => t % 3 === 0 }, w);
    const onWire = (v: { x: number; y: number; z: number }) => [v.x, v.y, v.z].every((c) => Math.round(c * 1000) / 1000 === c);
    step(2); // ticks 1, 2: not snapshot ticks → raw float32 state
    expect(onWire(g.components.position)).toBe(false);
    step(); // tick 3: snapshot tick → quantized
    expect(onWire(g.components.position) && onWire(g.components.linvel) && onWire(g.components.angvel)).toBe(true);
    const r = g.components.rotation;
    expect(quantizeQuat(r, 12)).toEqual(r); // a fixed point of the quat codec here
    // Rebuilt before tick 1 (first run) and before tick 4 (after snapshot tick 3).
    step();
    expect(physics.stats(w)!.rebuilds).toBe(2);
  });

  it('the rebuild rotation is the same for q and for Q(q) when the codec cycles between them', () => {
    let s = 12345;
    const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
    let cycles = 0;
    for (let i = 0; i < 100_000 && cycles < 5; i++) {
      const a = quantizeQuat({ x: rnd(), y: rnd(), z: rnd(), w: rnd() }, 12);
      const b = quantizeQuat(a, 12);
      if (a.x === b.x && a.y === b.y && a.z === b.z && a.w === b.w) continue;
      cycles++;
      expect(canonicalRotation(a, 12, { x: 0, y: 0, z: 0, w: 1 })).toEqual(canonicalRotation(b, 12, { x: 0, y: 0, z: 0, w: 1 }));
    }
    expect(cycles).toBe(5); // ≈ 0.04 % of random rotations: 5 are found well within 100 000
  });

  it('reports usage errors', () => {
    expect(() => createPhysics(RAPIER, {} as PhysicsOptions)).toThrow(/^react-netcode: createPhysics needs \{ bodies/);
    expect(() => createPhysics(RAPIER, { bodies: { crate: { kind: 'rocket', collider: { ball: 1 } } } } as unknown as PhysicsOptions)).toThrow(/kind rocket/);
    const unknown = setup({ bodies: { ...bodies, tank: { kind: 'dynamic', collider: { ball: 1 } } } });
    expect(() => unknown.step()).toThrow(/physics body "tank" is not a ghost type/);
    const noVelocity = setup({ mode: 'exact', bodies: { flat: { kind: 'dynamic', collider: { ball: 1 } } } });
    expect(() => noVelocity.step()).toThrow(/needs a vec3 field "linvel"/);
    const { physics, world } = setup();
    const door = world.add('door', 1, 0, 0);
    expect(() => physics.applyImpulse(door, { x: 1, y: 0, z: 0 })).toThrow(/^react-netcode: physics.applyImpulse needs a dynamic body/);
    expect(() => physics.moveCharacter(door, { x: 1, y: 0, z: 0 })).toThrow(/needs a character body/);
    expect(() => physics.moveKinematic(door, { x: NaN, y: 0, z: 0 })).toThrow(/finite vector/);
    expect(() => physics.moveKinematic(world.add('flat', 2, 0, 0), { x: 0, y: 0, z: 0 })).toThrow(/type "flat", which has no body/);
  });
});
