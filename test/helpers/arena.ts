// A small game used by the ghost tests: players (owned), moving balls, a spawner.
import { defineProtocol, defineSystems, field, ghost, system } from '../../src/index.ts';

export const arena = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }), hp: field.u8(), secret: field.u16({ sendTo: 'owner' }) }),
    ball: ghost(
      { position: field.vec3({ quantize: 1000, maxSmoothingDistance: 2 }), velocity: field.vec3({ quantize: 1000 }), spin: field.quat(), kind: field.enum(['red', 'blue']) },
      { modes: ['interpolated'] },
    ),
  },
  input: { move: field.vec2({ quantize: 100 }) },
  join: { name: field.string(16) },
});
export type Arena = typeof arena;

/** Balls move linearly and bounce inside ±20 m; players drift on x. */
export const arenaSystems = defineSystems(arena, [
  system.shared('move-balls', (world, ctx) => {
    for (const b of world.query('ball')) {
      const p = b.components.position;
      const v = b.components.velocity;
      p.x += v.x * ctx.dt;
      p.y += v.y * ctx.dt;
      p.z += v.z * ctx.dt;
      if (Math.abs(p.x) > 20) v.x = -v.x;
      if (Math.abs(p.z) > 20) v.z = -v.z;
    }
  }),
  system.server('drift-players', (world, ctx) => {
    for (const pl of world.query('player')) pl.components.position.x += 0.5 * ctx.dt;
  }),
]);
