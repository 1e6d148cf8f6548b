// The demo's shared systems: the same code runs on the server (authority) and in
// client prediction. Simple kinematics, no physics engine yet: players walk on the
// plane y = 0 inside the arena and jump; grenades fly, bounce on y = 0 and walls,
// and the server alone explodes them when the fuse runs out, pushing the balls
// within the blast radius.

import { defineSystems, spawnId, system, type Vec3 } from '../../src/index.ts';
import { protocol } from './protocol.ts';

export const ARENA_HALF_SIZE = 20;
export const PLAYER_SPEED = 6; // m/s
export const JUMP_SPEED = 6; // m/s
export const GRAVITY = 20; // m/s² (snappier than 9.8 for a small arena)
export const GRENADE_FUSE_S = 3;
export const GRENADE_SPEED = 9; // m/s horizontal
export const GRENADE_UP = 6; // m/s vertical at the throw
export const GRENADE_RADIUS = 0.15;
export const BOUNCE = 0.55; // kept fraction of the vertical speed on a bounce
export const GROUND_FRICTION = 0.8; // kept fraction of the horizontal speed on a bounce
export const BALL_RADIUS = 0.5;
export const BALL_DRAG = 1.5; // 1/s: rolling balls slow down by e^(-BALL_DRAG·t)
export const BLAST_RADIUS_SQ = 40; // m²: balls within sqrt(40) ≈ 6.3 m of an explosion are pushed
export const BLAST_IMPULSE = 12; // m/s added at the centre of the blast, falling linearly to 0 at the edge

/** Player colours, indexed by `colour` (networkId mod length). */
export const PLAYER_COLOURS = ['#e53935', '#1e88e5', '#43a047', '#fdd835', '#8e24aa', '#fb8c00', '#00acc1', '#d81b60'] as const;

/** CSS colour of a player's `colour` index. */
export function playerColour(index: number): string {
  return PLAYER_COLOURS[index % PLAYER_COLOURS.length] ?? PLAYER_COLOURS[0];
}

export function colourForNetworkId(networkId: number): number {
  return networkId % PLAYER_COLOURS.length;
}

const clampArena = (v: number): number => Math.max(-ARENA_HALF_SIZE, Math.min(ARENA_HALF_SIZE, v));

/** One tick of ballistic flight over the ground plane: gravity, integration, a damped bounce. True when it touched the ground. */
function fall(pos: Vec3, v: Vec3, radius: number, dt: number): boolean {
  v.y -= GRAVITY * dt;
  pos.x += v.x * dt;
  pos.y += v.y * dt;
  pos.z += v.z * dt;
  if (pos.y >= radius) return false;
  pos.y = radius;
  v.y = Math.abs(v.y) > 1 ? -v.y * BOUNCE : 0;
  return true;
}

export const systems = defineSystems(protocol, [
  system.shared('move', (world, ctx) => {
    for (const p of world.query('player')) {
      const input = ctx.input(p);
      const c = p.components;
      const pos = c.position;
      // x = right − left, y = up − down (forward = −z, the camera looks towards −z).
      const mx = input.move.x;
      const mz = -input.move.y;
      pos.x = clampArena(pos.x + mx * PLAYER_SPEED * ctx.dt);
      pos.z = clampArena(pos.z + mz * PLAYER_SPEED * ctx.dt);
      if (mx !== 0 || mz !== 0) c.facing = Math.atan2(mx, mz);
      if (input.jump > 0 && pos.y <= 0) c.vy = JUMP_SPEED;
      if (pos.y > 0 || c.vy > 0) {
        pos.y += c.vy * ctx.dt;
        c.vy -= GRAVITY * ctx.dt;
        if (pos.y <= 0) {
          pos.y = 0;
          c.vy = 0;
        }
      }
    }
  }),
  system.shared('throw', (world, ctx) => {
    for (const p of world.query('player')) {
      const presses = ctx.input(p).fire;
      if (presses <= 0) continue;
      const count = ctx.inputCount(p, 'fire');
      const { position, facing } = p.components;
      const dx = Math.sin(facing);
      const dz = Math.cos(facing);
      for (let i = 0; i < presses; i++) {
        ctx.spawn(
          'grenade',
          {
            position: { x: position.x + dx * 0.6, y: position.y + 1.2, z: position.z + dz * 0.6 },
            velocity: { x: dx * GRENADE_SPEED, y: GRENADE_UP, z: dz * GRENADE_SPEED },
            spawnId: spawnId(p.owner, count - (presses - 1 - i)),
            fuse: ctx.isServer ? GRENADE_FUSE_S : Infinity, // not predicted: only the server explodes grenades
          },
          { owner: p.owner },
        );
      }
    }
  }),
  system.shared('fly', (world, ctx) => {
    for (const g of world.query('grenade')) {
      const { position: pos, velocity: v } = g.components;
      if (fall(pos, v, GRENADE_RADIUS, ctx.dt)) {
        v.x *= GROUND_FRICTION;
        v.z *= GROUND_FRICTION;
      }
      if (Math.abs(pos.x) > ARENA_HALF_SIZE) {
        pos.x = Math.sign(pos.x) * ARENA_HALF_SIZE;
        v.x = -v.x * BOUNCE;
      }
      if (Math.abs(pos.z) > ARENA_HALF_SIZE) {
        pos.z = Math.sign(pos.z) * ARENA_HALF_SIZE;
        v.z = -v.z * BOUNCE;
      }
      g.components.fuse -= ctx.dt;
    }
  }),
  system.server('explode', (world, ctx) => {
    for (const g of world.query('grenade')) {
      if (g.components.fuse > 0) continue;
      const at = g.components.position;
      for (const b of world.query('ball')) {
        const { position: p, velocity: v } = b.components;
        const dx = p.x - at.x;
        const dz = p.z - at.z;
        const d2 = dx * dx + dz * dz;
        if (d2 >= BLAST_RADIUS_SQ) continue;
        const d = Math.sqrt(d2);
        const push = BLAST_IMPULSE * (1 - d / Math.sqrt(BLAST_RADIUS_SQ));
        // Straight up when the grenade lands exactly on the ball; otherwise away from it and a little up.
        if (d > 1e-6) {
          v.x += (dx / d) * push;
          v.z += (dz / d) * push;
        }
        v.y += push * 0.5;
      }
      ctx.despawn(g);
    }
  }),
  system.server('roll', (world, ctx) => {
    for (const b of world.query('ball')) {
      const { position: pos, velocity: v } = b.components;
      fall(pos, v, BALL_RADIUS, ctx.dt);
      const drag = Math.exp(-BALL_DRAG * ctx.dt);
      v.x *= drag;
      v.z *= drag;
      if (Math.abs(v.x) < 0.01) v.x = 0;
      if (Math.abs(v.z) < 0.01) v.z = 0;
      for (const axis of ['x', 'z'] as const) {
        if (Math.abs(pos[axis]) > ARENA_HALF_SIZE - BALL_RADIUS) {
          pos[axis] = Math.sign(pos[axis]) * (ARENA_HALF_SIZE - BALL_RADIUS);
          v[axis] = -v[axis] * BOUNCE;
        }
      }
    }
  }),
]);
