// A small game for the R3F tests: an owned, predicted ship flown by its input (moves on
// z, yaw follows z, so position and rotation both change every tick) and a rock the
// server moves on x at a constant speed, shown interpolated with a spinning quat.
import { defineProtocol, defineSystems, field, ghost, system } from '../../src/index.ts';

export const spaceProtocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    ship: ghost({ position: field.vec3({ quantize: 1000 }), rotation: field.quat({ bits: 16 }), hp: field.u8() }),
    rock: ghost({ position: field.vec3({ quantize: 1000 }), velocity: field.vec3({ quantize: 1000 }), spin: field.quat({ bits: 16 }) }, { modes: ['interpolated'] }),
  },
  input: { thrust: field.f32({ quantize: 100, min: -1, max: 1 }) },
  join: { name: field.string(16) },
});
export type SpaceProtocol = typeof spaceProtocol;

/** Ship speed along z at full thrust, m/s. */
export const SHIP_SPEED = 6;
/** Rock speed along x, m/s. */
export const ROCK_SPEED = 3;
/** Yaw of a ship per metre travelled, radians. */
export const YAW_PER_METRE = 0.2;

/** Write a yaw of `angle` radians about +y into quat `q`. */
export function setYaw(q: { x: number; y: number; z: number; w: number }, angle: number): void {
  q.x = 0;
  q.y = Math.sin(angle / 2);
  q.z = 0;
  q.w = Math.cos(angle / 2);
}

export const spaceSystems = defineSystems(spaceProtocol, [
  system.shared('fly', (world, ctx) => {
    for (const s of world.query('ship')) {
      const p = s.components.position;
      p.z += ctx.input(s).thrust * SHIP_SPEED * ctx.dt;
      setYaw(s.components.rotation, p.z * YAW_PER_METRE);
    }
  }),
  system.server('drift-rocks', (world, ctx) => {
    for (const r of world.query('rock')) {
      const p = r.components.position;
      p.x += r.components.velocity.x * ctx.dt;
      setYaw(r.components.spin, p.x);
    }
  }),
]);
