// The demo's shared systems: the same code runs on the server (authority) and in
// client prediction. Rapier does the physics (react-netcode/rapier, 'smoothed' mode):
// players are kinematic character controllers that slide along the static level,
// grenades and balls are dynamic bodies. The server alone explodes grenades (their
// fuse is not predicted) and spawns balls; kicks and throws are predicted. The
// grenade numbers come from the live-tuned `config` ghost (shared/config.ts).

import RAPIER from '@dimforge/rapier3d-compat';
import { defineSystems, system, type Ghost, type Vec3, type World } from '../../src/index.ts';
import { createPhysics } from '../../src/rapier/index.ts';
import { configOf, type GrenadeConfig } from './config.ts';
import { buildLevel } from './level.ts';
import { BALL_SPOTS, goalFor, kickoffSpot, KICKOFF_SECONDS, MATCH_SECONDS, PHASE_KICKOFF, PHASE_PLAYING, PHASE_RESULTS, RESULTS_SECONDS, type Team } from './match.ts';
import { protocol, type DemoProtocol } from './protocol.ts';

export { ARENA_HALF_SIZE } from './level.ts';

export const GRAVITY = 20; // m/s² (snappier than 9.8 for a small arena)
export const PLAYER_SPEED = 6; // m/s
export const JUMP_SPEED = 7; // m/s
/** The character's capsule: half height of the cylinder part and radius; its centre stands 0.9 m above the ground. */
export const PLAYER_HALF_HEIGHT = 0.5;
export const PLAYER_RADIUS = 0.4;
export const PLAYER_CENTRE_Y = PLAYER_HALF_HEIGHT + PLAYER_RADIUS;
export const GRENADE_RADIUS = 0.15;
/** Throw direction: the facing, raised so that it is (sin f, THROW_RISE, cos f) before normalising. */
export const THROW_RISE = 0.5;
export const BALL_RADIUS = 0.5;
/** Density 1: mass = 4/3 π r³ (Rapier's ball mass). Impulses are mass × the wanted velocity change. */
export const BALL_MASS = (4 / 3) * Math.PI * BALL_RADIUS ** 3;
export const GRENADE_MASS = (4 / 3) * Math.PI * GRENADE_RADIUS ** 3;
/** A kick reaches the nearest ball whose centre is within this horizontal distance of the player's. */
export const KICK_RANGE = 1.8;
export const KICK_SPEED = 10; // m/s away from the player …
export const KICK_LIFT = 3; // … and up
/** Where a spawned ball appears: this far in front of the player. */
export const BALL_SPAWN_DISTANCE = 1.4;
export const MAX_BALLS = 32;
/** Bodies below this height fell out of the arena: balls are despawned. */
export const KILL_Y = -10;
/** Blast knock-back on players decays by this factor per second (e^−4: a quarter-second push). */
export const KNOCK_DECAY_PER_S = 4;
/** Two characters' centres stay at least this far apart horizontally: they block each other. */
export const PLAYER_MIN_DISTANCE = 2 * PLAYER_RADIUS;

/** Player colours, indexed by `colour` (networkId mod length). */
export const PLAYER_COLOURS = ['#e53935', '#1e88e5', '#43a047', '#fdd835', '#8e24aa', '#fb8c00', '#00acc1', '#d81b60'] as const;

/** CSS colour of a player's `colour` index. */
export function playerColour(index: number): string {
  return PLAYER_COLOURS[index % PLAYER_COLOURS.length] ?? PLAYER_COLOURS[0];
}

export function colourForNetworkId(networkId: number): number {
  return networkId % PLAYER_COLOURS.length;
}

/** One adapter for the process: each netcode World (server, each client, each peer of a test) gets its own Rapier world. */
export const physics = createPhysics(RAPIER, {
  mode: 'smoothed',
  gravity: { x: 0, y: -GRAVITY, z: 0 },
  level: buildLevel,
  bodies: {
    player: { kind: 'character', collider: { capsule: [PLAYER_HALF_HEIGHT, PLAYER_RADIUS] }, character: { snapToGround: 0.2 } },
    grenade: { kind: 'dynamic', collider: { ball: GRENADE_RADIUS }, density: 1, friction: 0.8, restitution: 0.4, linearDamping: 0.3 },
    ball: { kind: 'dynamic', collider: { ball: BALL_RADIUS }, density: 1, friction: 0.8, restitution: 0.5, linearDamping: 0.2, angularDamping: 0.6 },
  },
});

/** Simulated here: always on the server, predicted ghosts on a client (interpolated ones only follow snapshots). */
const simulated = (g: Ghost<DemoProtocol>): boolean => g.mode !== 'interpolated';

/**
 * The velocity change (m/s) a blast at `at` gives a body centred at `p`, or undefined out of
 * range. With diff = p − at and d² = |diff|² < blastRadiusSq, diff.y is first biased away
 * from the horizontal to at least `verticalClamp` (upwards unless the body is below the
 * blast, diff.y ≤ −0.05: then at least that much downwards), so a body level with the blast
 * is lifted as well as pushed away; the change is `blastPower × (1 − d²/blastRadiusSq)` along
 * that biased direction, normalised. So no blast gives more than `blastPower`: the NFE
 * sample's `diff / d` with the biased diff.y grows as 1/d near the blast (two grenades
 * touching, d ≈ 0.3 m: 56 m/s up), and such a chain-blasted grenade flew 30 m between two
 * frames of its thrower's prediction (docs/demo.md, Grenade blast). A body on the blast itself
 * goes straight up (unless the clamp is 0).
 */
export function blastVelocity(at: Vec3, p: Vec3, config: Readonly<GrenadeConfig>, out: Vec3 = { x: 0, y: 0, z: 0 }): Vec3 | undefined {
  const dx = p.x - at.x;
  const dy = p.y - at.y;
  const dz = p.z - at.z;
  const d2 = dx * dx + dy * dy + dz * dz;
  if (d2 >= config.blastRadiusSq) return undefined;
  const by = dy > -0.05 ? Math.max(config.verticalClamp, dy) : Math.min(-config.verticalClamp, dy);
  const length = Math.sqrt(dx * dx + by * by + dz * dz);
  if (length === 0) return undefined;
  const scale = (config.blastPower * (1 - d2 / config.blastRadiusSq)) / length;
  out.x = dx * scale;
  out.y = by * scale;
  out.z = dz * scale;
  return out;
}

/** The nearest ball whose centre is within KICK_RANGE (horizontally) of `from`, if any. */
export function nearestBall(world: World<DemoProtocol>, from: Vec3): Ghost<DemoProtocol, 'ball'> | undefined {
  let best: Ghost<DemoProtocol, 'ball'> | undefined;
  let bestD2 = KICK_RANGE * KICK_RANGE;
  for (const b of world.query('ball')) {
    const p = b.components.position;
    const d2 = (p.x - from.x) ** 2 + (p.z - from.z) ** 2;
    if (d2 <= bestD2) {
      best = b;
      bestD2 = d2;
    }
  }
  return best;
}

/** Put a player (a server ghost) on a spot of the ground, facing `facing`, at rest: the kickoff's line-up, a join, a team switch. */
export function placePlayer(p: Ghost<DemoProtocol, 'player'>, spot: { x: number; z: number; facing: number }): void {
  const c = p.components;
  c.position.x = spot.x;
  c.position.y = PLAYER_CENTRE_Y + 0.02;
  c.position.z = spot.z;
  c.facing = spot.facing;
  c.vy = c.kx = c.kz = 0;
}

const scratch: Vec3 = { x: 0, y: 0, z: 0 };
const move: Vec3 = { x: 0, y: 0, z: 0 };

/**
 * Characters block each other (the controller only slides along the static level): the
 * part of `d` (this tick's horizontal move) that would bring `p` closer than
 * PLAYER_MIN_DISTANCE to another player at about its height is removed, and a pair that
 * already overlaps is pushed apart, each by half the overlap. On a client the other
 * players are where it shows them (interpolated, a round trip behind): a contact with
 * them mispredicts by nature and is corrected like any other misprediction.
 */
export function blockByPlayers(world: World<DemoProtocol>, p: Ghost<DemoProtocol, 'player'>, d: Vec3): void {
  const a = p.components.position;
  for (const q of world.query('player')) {
    if (q === p) continue;
    const b = q.components.position;
    if (Math.abs(b.y - a.y) >= 2 * PLAYER_CENTRE_Y) continue;
    let nx = b.x - a.x;
    let nz = b.z - a.z;
    const dist = Math.hypot(nx, nz);
    if (dist < 1e-6) continue;
    nx /= dist;
    nz /= dist;
    if (dist < PLAYER_MIN_DISTANCE) {
      const push = (PLAYER_MIN_DISTANCE - dist) / 2;
      d.x -= nx * push;
      d.z -= nz * push;
    }
    const ax = a.x + d.x - b.x;
    const az = a.z + d.z - b.z;
    const toward = d.x * nx + d.z * nz;
    if (toward > 0 && ax * ax + az * az < PLAYER_MIN_DISTANCE * PLAYER_MIN_DISTANCE) {
      d.x -= nx * toward;
      d.z -= nz * toward;
    }
  }
}

export const systems = defineSystems(protocol, [
  system.shared('move', (world, ctx) => {
    const decay = Math.exp(-KNOCK_DECAY_PER_S * ctx.dt);
    for (const p of world.query('player')) {
      if (!simulated(p)) continue;
      const input = ctx.input(p);
      const c = p.components;
      // x = right − left, y = up − down (forward = −z, the camera looks towards −z).
      const mx = input.move.x;
      const mz = -input.move.y;
      if (mx !== 0 || mz !== 0) c.facing = Math.atan2(mx, mz);
      if (c.grounded && c.vy <= 0) c.vy = input.jump > 0 ? JUMP_SPEED : 0;
      c.vy -= GRAVITY * ctx.dt;
      move.x = (mx * PLAYER_SPEED + c.kx) * ctx.dt;
      move.z = (mz * PLAYER_SPEED + c.kz) * ctx.dt;
      move.y = c.vy * ctx.dt;
      c.kx *= decay;
      c.kz *= decay;
      if (Math.abs(c.kx) < 0.01) c.kx = 0;
      if (Math.abs(c.kz) < 0.01) c.kz = 0;
      blockByPlayers(world, p, move);
      physics.moveCharacter(p, move);
    }
  }),
  system.shared('throw', (world, ctx) => {
    const config = configOf(world);
    for (const p of world.query('player')) {
      if (!simulated(p)) continue;
      const ids = ctx.spawnIds(p, 'fire'); // one spawnId per press this tick, oldest first
      if (ids.length === 0) continue;
      const { position, facing } = p.components;
      const dx = Math.sin(facing);
      const dz = Math.cos(facing);
      const speed = config.grenadeSpeed / Math.hypot(1, THROW_RISE);
      for (const spawnId of ids) {
        ctx.spawn(
          'grenade',
          {
            position: { x: position.x + dx * 0.7, y: position.y + 0.4, z: position.z + dz * 0.7 },
            linvel: { x: dx * speed, y: THROW_RISE * speed, z: dz * speed },
            spawnId,
            fuse: ctx.isServer ? config.fuse : Infinity, // not predicted: only the server explodes grenades
          },
          { owner: p.owner },
        );
      }
    }
  }),
  system.shared('kick', (world, ctx) => {
    for (const p of world.query('player')) {
      if (!simulated(p)) continue;
      const presses = ctx.input(p).kick;
      if (presses <= 0) continue;
      // The nearest ball among all of them, so prediction picks the ball the server picks; a
      // ball this client only interpolates is kicked by the server alone.
      const ball = nearestBall(world, p.components.position);
      if (ball === undefined || !simulated(ball)) continue;
      const from = p.components.position;
      const to = ball.components.position;
      let dx = to.x - from.x;
      let dz = to.z - from.z;
      const d = Math.hypot(dx, dz);
      if (d > 1e-6) {
        dx /= d;
        dz /= d;
      } else {
        dx = Math.sin(p.components.facing);
        dz = Math.cos(p.components.facing);
      }
      const m = BALL_MASS * presses;
      physics.applyImpulse(ball, { x: dx * KICK_SPEED * m, y: KICK_LIFT * m, z: dz * KICK_SPEED * m });
    }
  }),
  system.shared('fuse', (world, ctx) => {
    for (const g of world.query('grenade')) if (simulated(g)) g.components.fuse -= ctx.dt;
  }),
  system.server('explode', (world, ctx) => {
    const config = configOf(world);
    for (const g of world.query('grenade')) {
      if (g.components.fuse > 0) continue;
      const at = g.components.position;
      for (const b of world.query('ball')) {
        const dv = blastVelocity(at, b.components.position, config, scratch);
        if (dv) physics.applyImpulse(b, { x: dv.x * BALL_MASS, y: dv.y * BALL_MASS, z: dv.z * BALL_MASS });
      }
      for (const p of world.query('player')) {
        const dv = blastVelocity(at, p.components.position, config, scratch);
        if (!dv) continue;
        p.components.kx += dv.x;
        p.components.kz += dv.z;
        if (dv.y > 0) p.components.vy = Math.max(p.components.vy, 0) + dv.y;
      }
      for (const other of world.query('grenade')) {
        if (other === g) continue;
        const dv = blastVelocity(at, other.components.position, config, scratch);
        if (!dv) continue;
        // Chain reaction: caught in the blast, its fuse is cut short.
        other.components.fuse = Math.min(other.components.fuse, config.chainFuse);
        physics.applyImpulse(other, { x: dv.x * GRENADE_MASS, y: dv.y * GRENADE_MASS, z: dv.z * GRENADE_MASS });
      }
      ctx.despawn(g);
    }
  }),
  system.server('spawn-ball', (world, ctx) => {
    for (const p of world.query('player')) {
      const presses = ctx.input(p).spawnBall;
      if (presses <= 0) continue;
      const { position, facing } = p.components;
      ctx.spawn('ball', { position: { x: position.x + Math.sin(facing) * BALL_SPAWN_DISTANCE, y: BALL_RADIUS + 0.05, z: position.z + Math.cos(facing) * BALL_SPAWN_DISTANCE } });
    }
  }),
  system.server('cleanup', (world, ctx) => {
    let balls = 0;
    for (const b of world.query('ball')) {
      if (b.components.position.y < KILL_Y) ctx.despawn(b);
      else balls++;
    }
    // Too many balls: the oldest go (spawn order).
    for (const b of world.query('ball')) {
      if (balls <= MAX_BALLS) break;
      ctx.despawn(b);
      balls--;
    }
  }),
  system.server('match', (world, ctx) => {
    let m: Ghost<DemoProtocol, 'match'> | undefined;
    for (const x of world.query('match')) m = x;
    if (m === undefined) return;
    const c = m.components;
    c.clock = Math.max(0, c.clock - ctx.dt);
    if (c.phase === PHASE_PLAYING) {
      for (const b of world.query('ball')) {
        const team = goalFor(b.components.position, BALL_RADIUS);
        if (team === 0) continue;
        if (team === 1) c.red++;
        else c.blue++;
        c.goals++;
        c.lastGoalTeam = team;
        ctx.despawn(b);
        ctx.spawn('ball', { position: { x: 0, y: BALL_RADIUS + 1.5, z: 0 } }); // dropped on the centre spot
      }
    }
    if (c.clock > 0) return;
    if (c.phase === PHASE_KICKOFF) {
      c.phase = PHASE_PLAYING;
      c.clock = MATCH_SECONDS;
    } else if (c.phase === PHASE_PLAYING) {
      c.phase = PHASE_RESULTS;
      c.clock = RESULTS_SECONDS;
    } else {
      // The rematch: scores to 0, the starting balls, every player on its kickoff spot.
      c.phase = PHASE_KICKOFF;
      c.clock = KICKOFF_SECONDS;
      c.round++;
      c.red = c.blue = 0;
      for (const b of world.query('ball')) ctx.despawn(b);
      for (const { x, z } of BALL_SPOTS) ctx.spawn('ball', { position: { x, y: BALL_RADIUS, z } });
      const count = [0, 0, 0];
      for (const p of world.query('player')) {
        const team = p.components.team as Team;
        placePlayer(p, kickoffSpot(team, count[team]!++));
      }
    }
  }),
  physics.system(),
]);
