// Shared by the server and the browser: the protocol (what travels) and the systems
// (the game's rules), run by the server as the authority and by each client to
// predict its own player and balls. WASD moves your cube; Space shoots a ball.
import { defineProtocol, defineSystems, field, ghost, spawnId, spawnIdClassifier, system } from 'react-netcode';

export const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }), colour: field.u8() }, { modes: ['predicted', 'interpolated'] }),
    ball: ghost(
      {
        position: field.vec3({ quantize: 1000 }),
        velocity: field.vec3({ quantize: 1000 }),
        spawnId: field.u32(), // pairs the server's ball with the one this client predicted
        ttl: field.f32({ replicated: false }), // seconds left; the server alone despawns balls
      },
      { modes: ['predicted', 'interpolated'], classify: spawnIdClassifier() },
    ),
  },
  input: { move: field.vec2({ quantize: 100, maxLength: 1 }), shoot: field.event() },
  join: { name: field.string(16) },
});

export const COLOURS = ['#e53935', '#1e88e5', '#43a047', '#fdd835', '#8e24aa', '#fb8c00'];
export const colourOf = (index: number): string => COLOURS[index % COLOURS.length] ?? 'white';
export const ARENA = 8; // the floor spans -ARENA..ARENA on x and z
const SPEED = 5; // m/s
const BALL_SPEED = 10; // m/s

const clamp = (v: number): number => Math.max(-ARENA, Math.min(ARENA, v));

export const systems = defineSystems(protocol, [
  system.shared('move', (world, ctx) => {
    for (const p of world.query('player')) {
      if (p.mode === 'interpolated') continue; // other players' cubes only follow snapshots
      const { move } = ctx.input(p);
      p.components.position.x = clamp(p.components.position.x + move.x * SPEED * ctx.dt);
      p.components.position.z = clamp(p.components.position.z - move.y * SPEED * ctx.dt); // W = forward = -z
    }
  }),
  system.shared('shoot', (world, ctx) => {
    for (const p of world.query('player')) {
      if (p.mode === 'interpolated') continue;
      const presses = ctx.input(p).shoot; // presses in this tick
      const count = ctx.inputCount(p, 'shoot'); // the running count: the same number on both sides
      const { x, z } = p.components.position;
      for (let i = 0; i < presses; i++) {
        const position = { x, y: 0.5, z: z - 0.8 };
        const velocity = { x: 0, y: 0, z: -BALL_SPEED };
        const id = spawnId(p.owner, count - (presses - 1 - i));
        ctx.spawn('ball', { position, velocity, spawnId: id, ttl: ctx.isServer ? 2 : Infinity }, { owner: p.owner });
      }
    }
  }),
  system.shared('fly', (world, ctx) => {
    for (const b of world.query('ball')) {
      if (b.mode === 'interpolated') continue;
      const { position, velocity } = b.components;
      position.x += velocity.x * ctx.dt;
      position.z += velocity.z * ctx.dt;
    }
  }),
  system.server('expire', (world, ctx) => {
    for (const b of world.query('ball')) if ((b.components.ttl -= ctx.dt) <= 0) ctx.despawn(b);
  }),
]);
