// The demo's protocol, shared by its server and clients: players join with a name,
// walk (WASD), jump (Space) and throw grenades (right mouse / F). Players are
// predicted for their owner and interpolated for everyone else; grenades are
// predicted spawns matched by spawnId; balls are server-only and pushed by
// grenade blasts. The lobby RPCs (say/said/welcome) stay.

import { defineProtocol, field, ghost, rpc, spawnIdClassifier } from '../../src/index.ts';

export const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost(
      {
        position: field.vec3({ quantize: 1000 }),
        /** Vertical speed (m/s) while jumping; 0 on the ground. */
        vy: field.f32({ quantize: 1000 }),
        /** Facing angle (radians, 0 = +z), the throw direction. */
        facing: field.f32({ quantize: 1000 }),
        colour: field.u8(),
        name: field.string(16),
      },
      { modes: ['predicted', 'interpolated'] },
    ),
    grenade: ghost(
      {
        position: field.vec3({ quantize: 1000 }),
        velocity: field.vec3({ quantize: 1000 }),
        spawnId: field.u32(),
        fuse: field.f32({ replicated: false }),
      },
      { modes: ['predicted', 'interpolated'], classify: spawnIdClassifier() },
    ),
    /** Server-spawned balls rolling on the ground; grenade blasts push them. */
    ball: ghost(
      {
        position: field.vec3({ quantize: 1000 }),
        velocity: field.vec3({ quantize: 1000 }),
      },
      { modes: ['interpolated'] },
    ),
  },
  input: {
    move: field.vec2({ quantize: 100, maxLength: 1 }),
    fire: field.event(),
    jump: field.event(),
  },
  join: { name: field.string(24) },
  rpcs: {
    say: rpc.toServer({ text: field.string(200) }),
    said: rpc.toClient({ from: field.u16(), name: field.string(24), text: field.string(200) }),
    welcome: rpc.toClient({ players: field.u16() }),
  },
});

export type DemoProtocol = typeof protocol;
