// A protocol and systems for prediction tests: a player moved by its input, a press
// counter, and a server-only "push" that the client cannot predict.
import { defineProtocol, defineSystems, field, ghost, system } from '../../src/index.ts';

export const runnerProtocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    runner: ghost(
      { position: field.vec3({ quantize: 1000 }), jumps: field.u32(), pushed: field.bool(), steps: field.u32({ replicated: false }) },
      { modes: ['predicted', 'interpolated'] },
    ),
  },
  input: { move: field.vec2({ quantize: 100, maxLength: 1 }), jump: field.event() },
  join: { name: field.string(16) },
});
export type RunnerProtocol = typeof runnerProtocol;

export const SPEED = 4; // m/s

/** Counts of presses seen, per side, for the InputEvent tests. */
export const seen = { server: 0, clientFirst: 0, clientResim: 0 };

export const runnerSystems = defineSystems(runnerProtocol, [
  system.shared('move', (world, ctx) => {
    for (const r of world.query('runner')) {
      const input = ctx.input(r);
      r.components.steps++; // predicted-only: never sent, must survive rollbacks
      r.components.position.x += input.move.x * SPEED * ctx.dt;
      r.components.position.z += input.move.y * SPEED * ctx.dt;
      if (input.jump > 0) {
        r.components.jumps += input.jump;
        if (ctx.isServer) seen.server += input.jump;
        else if (ctx.isFirstTimeFullyPredictingTick) seen.clientFirst += input.jump;
        else seen.clientResim += input.jump;
      }
    }
  }),
]);
