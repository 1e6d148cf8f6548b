// A character spawned 2 cm up — its capsule's offset (1 cm) and a margin above the ground, halfHeight + radius +
// 0.02, as the demo does — walks on flat ground wherever it stands, and keeps that height when moved with y = 0.
// (A character in exact contact, at halfHeight + radius, is lifted out of the offset: character-contact.test.ts.)
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

function walk(spawn: { x: number; y: number; z: number }, ticks: number) {
  const physics = createPhysics(RAPIER, {
    level: (world, R) => void world.createCollider(R.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0)),
    bodies: { player: { kind: 'character', collider: { capsule: [HALF_HEIGHT, RADIUS] } } },
  });
  const systems = defineSystems(protocol, [
    system.shared('walk', (world, ctx) => {
      for (const p of world.query('player')) physics.moveCharacter(p, { x: SPEED * ctx.dt, y: 0, z: 0 });
    }),
    physics.system(),
  ]);
  const s = createStepper({ protocol, systems, seed: 1, clients: [] });
  const player = s.server.spawn('player', { position: spawn });
  s.tick(ticks);
  return { ...player.components.position };
}

describe('a character spawned at halfHeight + radius + 0.02', () => {
  it.each([0, 1, 2, 3, -2])('walks 4 m/s along x from z = %d without stopping or drifting sideways', (z) => {
    const end = walk({ x: 0, y: HALF_HEIGHT + RADIUS + 0.02, z }, 60);
    expect(end.x).toBeGreaterThan(3.8); // 1 s at 4 m/s
    expect(Math.abs(end.z - z)).toBeLessThan(0.002);
    expect(end.y).toBeGreaterThan(0.805); // off the ground by more than half its offset
    expect(end.y).toBeLessThanOrEqual(0.82); // and not climbing
  });
});
