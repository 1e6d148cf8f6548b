// CCU bench: the game both servers run — a room like the demo's arena (demo/shared/protocol.ts):
// one `player` per client with the demo's player fields, BALLS balls with the demo's ball fields
// (position, rotation, linvel, angvel) and one `config` ghost. The simulation is plain
// arithmetic, the same functions for react-netcode's systems and the Colyseus room, so both
// servers do the same game work: players walk at SPEED m/s by their stick and jump under
// gravity; every ball rolls round its spot, so every ball changes every tick (the demo's balls
// use Rapier; physics cost is the physics bench's subject, not this one's).
import type { Core } from '../library.ts';

export const TICK_RATE = 60;
export const SNAPSHOT_RATE = 20;
export const BALLS = 5;
export const SPEED = 4;
const GRAVITY = -20;
const JUMP_SPEED = 7;
const GROUND_Y = 0.92;
const BALL_SPOTS = [
  { x: 0, z: 0 },
  { x: 6, z: -6 },
  { x: -6, z: -6 },
  { x: -5, z: 5 },
  { x: 0, z: 9 },
] as const;

export interface Vec3 {
  x: number;
  y: number;
  z: number;
}
export interface PlayerState {
  position: Vec3;
  vy: number;
  grounded: boolean;
  facing: number;
}
export interface BallState {
  position: Vec3;
  rotation: { x: number; y: number; z: number; w: number };
  linvel: Vec3;
  angvel: Vec3;
}

/** One tick of a player: walk by the stick (x, y), jump when `jumps` > 0, fall to the ground. */
export function stepPlayer(p: PlayerState, moveX: number, moveY: number, jumps: number, dt: number): void {
  p.position.x += moveX * SPEED * dt;
  p.position.z += moveY * SPEED * dt;
  if (moveX !== 0 || moveY !== 0) p.facing = Math.atan2(moveX, moveY);
  if (jumps > 0 && p.grounded) p.vy = JUMP_SPEED;
  p.vy += GRAVITY * dt;
  p.position.y += p.vy * dt;
  p.grounded = p.position.y <= GROUND_Y;
  if (p.grounded) {
    p.position.y = GROUND_Y;
    p.vy = 0;
  }
}

/** Ball `i` at tick `tick`: rolling round its spot on a 2 m circle, one turn every 4 s. */
export function stepBall(b: BallState, i: number, tick: number): void {
  const spot = BALL_SPOTS[i % BALL_SPOTS.length]!;
  const w = (2 * Math.PI) / 4;
  const a = (tick / TICK_RATE) * w + i;
  b.position.x = spot.x + 2 * Math.cos(a);
  b.position.y = 0.5;
  b.position.z = spot.z + 2 * Math.sin(a);
  b.linvel.x = -2 * w * Math.sin(a);
  b.linvel.y = 0;
  b.linvel.z = 2 * w * Math.cos(a);
  const roll = a * 4;
  b.rotation.x = Math.sin(roll / 2);
  b.rotation.y = 0;
  b.rotation.z = 0;
  b.rotation.w = Math.cos(roll / 2);
  b.angvel.x = 4 * w;
  b.angvel.y = 0;
  b.angvel.z = 0;
}

/** The arena for react-netcode, built with the library under test (so the protocol hash matches on both sides). */
export function makeArenaGame(core: Core) {
  const { defineProtocol, defineSystems, field, ghost, system } = core;
  const tunable = () => field.f32({ quantize: 100 });
  const protocol = defineProtocol({
    tickRate: TICK_RATE,
    snapshotRate: SNAPSHOT_RATE,
    ghosts: {
      player: ghost(
        {
          position: field.vec3({ quantize: 1000 }),
          vy: field.f32({ quantize: 1000 }),
          grounded: field.bool(),
          facing: field.f32({ quantize: 1000 }),
          colour: field.u8(),
          name: field.string(16),
        },
        { modes: ['predicted', 'interpolated'] },
      ),
      ball: ghost(
        { position: field.vec3({ quantize: 1000 }), rotation: field.quat(), linvel: field.vec3({ quantize: 1000 }), angvel: field.vec3({ quantize: 1000 }) },
        { modes: ['predicted', 'interpolated'] },
      ),
      config: ghost({ grenadeSpeed: tunable(), fuse: tunable(), blastRadiusSq: tunable(), blastPower: tunable(), verticalClamp: tunable(), chainFuse: tunable() }, { modes: ['predicted'] }),
    },
    input: { move: field.vec2({ quantize: 100, maxLength: 1 }), fire: field.event(), jump: field.event(), kick: field.event(), spawnBall: field.event() },
    join: { name: field.string(24) },
  });
  const systems = defineSystems(protocol, [
    system.shared('move', (world, ctx) => {
      for (const player of world.query('player')) {
        const input = ctx.input(player);
        stepPlayer(player.components, input.move.x, input.move.y, input.jump, ctx.dt);
      }
    }),
    system.server('balls', (world, ctx) => {
      let i = 0;
      for (const ball of world.query('ball')) stepBall(ball.components, i++, ctx.tick);
    }),
  ]);
  return { protocol, systems };
}

export type ArenaGame = ReturnType<typeof makeArenaGame>;
export type ArenaProtocol = ArenaGame['protocol'];

/** The config ghost's values (the demo's defaults). */
export const CONFIG = { grenadeSpeed: 15, fuse: 3, blastRadiusSq: 40, blastPower: 10, verticalClamp: 1.5, chainFuse: 0.4 };

/** Spawn point of a player: a ring of 4 m (as the demo's). */
export function spawnPoint(n: number): { x: number; z: number; facing: number } {
  const angle = (n * 2.399963) % (2 * Math.PI);
  return { x: Math.sin(angle) * 4, z: Math.cos(angle) * 4, facing: angle + Math.PI };
}
