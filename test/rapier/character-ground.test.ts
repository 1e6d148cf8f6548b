// A character spawned standing on the level — its capsule at halfHeight + radius, in exact contact with the
// ground — walks on it wherever it stands. Rapier's controller keeps a skin (`offset`, 1 cm) and pushes a
// character out of it by less than a millimetre per move, which the per-tick quantization of a character's
// position (1 mm here) undoes; in exact contact the capsule met the ground as a wall at some places (it
// stopped within a few ticks at z = 2 and 3, and drifted sideways elsewhere). The adapter lifts a character
// that starts inside its offset to the offset at its first move.
import RAPIER from '@dimforge/rapier3d-compat';
import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, system } from '../../src/index.ts';
import { createPhysics } from '../../src/rapier/index.ts';
import { createStepper } from '../../src/testing/index.ts';

await RAPIER.init();

const protocol = defineProtocol({ tickRate: 60, ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }) }) } });
const HALF_HEIGHT = 0.5;
const RADIUS = 0.3;
const SPEED = 4; // m/s along +x

function walk(spawn: { x: number; y: number; z: number }, ticks: number, speed = SPEED) {
  const physics = createPhysics(RAPIER, {
    level: (world, R) => void world.createCollider(R.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0)),
    bodies: { player: { kind: 'character', collider: { capsule: [HALF_HEIGHT, RADIUS] } } },
  });
  const systems = defineSystems(protocol, [
    system.shared('walk', (world, ctx) => {
      for (const p of world.query('player')) physics.moveCharacter(p, { x: speed * ctx.dt, y: 0, z: 0 });
    }),
    physics.system(),
  ]);
  const s = createStepper({ protocol, systems, seed: 1, clients: [] });
  const player = s.server.spawn('player', { position: spawn });
  s.tick(ticks);
  return { ...player.components.position };
}

describe('a character spawned standing on the ground (halfHeight + radius)', () => {
  it.each([0, 1, 2, 3, -2])('walks 4 m/s along x from z = %d without stopping or drifting sideways', (z) => {
    const end = walk({ x: 0, y: HALF_HEIGHT + RADIUS, z }, 60);
    expect(end.x).toBeGreaterThan(3.8); // 1 s at 4 m/s (the old code: 0.459 m at z = 2, 0.782 m at z = 3)
    expect(Math.abs(end.z - z)).toBeLessThan(0.002);
    // Lifted to the controller's 1 cm offset (plus a quantum), where it stays.
    expect(end.y).toBeGreaterThanOrEqual(0.81);
    expect(end.y).toBeLessThan(0.816);
  });

  it('a character spawned above its offset is not moved up', () => {
    expect(walk({ x: 0, y: 0.9, z: 2 }, 10, 0)).toEqual({ x: 0, y: 0.9, z: 2 });
    const moved = walk({ x: 0, y: 0.9, z: 2 }, 30);
    expect(moved.y).toBe(0.9);
    expect(moved.x).toBeGreaterThan(1.8);
  });
});
