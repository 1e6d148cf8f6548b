// The rooms example's game, shared by server and client: players that move on a plane.
import { defineProtocol, defineSystems, field, ghost, system } from 'react-netcode';

export const protocol = defineProtocol({
  tickRate: 30,
  ghosts: { player: ghost({ position: field.vec3({ quantize: 100 }) }) },
  input: { move: field.vec2({ quantize: 100 }) },
  join: { name: field.string(16) },
});

export const systems = defineSystems(protocol, [
  system.shared('move', (world, ctx) => {
    for (const p of world.query('player')) {
      const input = ctx.input(p);
      if (!input) continue;
      p.components.position.x += input.move.x * 4 * ctx.dt;
      p.components.position.z -= input.move.y * 4 * ctx.dt;
    }
  }),
]);
