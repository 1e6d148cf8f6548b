// A bot's decisions, as a pure function of what its client sees: walk to the spot
// behind the nearest ball (on the line from the ball to the goal it attacks), and kick
// when the ball is in reach and roughly between it and that goal. Used by the headless
// bots (demo/bot/main.ts), the frame-budget and match tests.
import type { Vec2, World } from '../../src/index.ts';
import { ARENA_HALF_SIZE } from '../shared/level.ts';
import { TEAM_RED } from '../shared/match.ts';
import type { DemoProtocol } from '../shared/protocol.ts';
import { KICK_RANGE } from '../shared/systems.ts';

/** How far behind the ball the bot lines up (m) and how close to that spot counts as there. */
const BEHIND = 1.1;
const THERE = 0.5;

export interface BotDecision {
  /** The move axis to send (x = +x world, y = −z world), length ≤ 1. */
  move: Vec2;
  /** Kick this frame. */
  kick: boolean;
}

export function decide(world: World<DemoProtocol>, networkId: number, out: BotDecision = { move: { x: 0, y: 0 }, kick: false }): BotDecision {
  out.move.x = out.move.y = 0;
  out.kick = false;
  let me: { x: number; z: number; team: number } | undefined;
  for (const p of world.query('player')) if (p.owner === networkId) me = { x: p.components.position.x, z: p.components.position.z, team: p.components.team };
  if (me === undefined) return out;
  const goalX = me.team === TEAM_RED ? ARENA_HALF_SIZE + 1 : -ARENA_HALF_SIZE - 1;
  let ball: { x: number; z: number } | undefined;
  let best = Infinity;
  for (const b of world.query('ball')) {
    const p = b.components.position;
    const d = (p.x - me.x) ** 2 + (p.z - me.z) ** 2;
    if (d < best) {
      best = d;
      ball = { x: p.x, z: p.z };
    }
  }
  if (ball === undefined) return out;
  // The direction from the ball to the goal's centre; the bot lines up behind the ball on it.
  let gx = goalX - ball.x;
  let gz = -ball.z;
  const gl = Math.hypot(gx, gz) || 1;
  gx /= gl;
  gz /= gl;
  // Behind the ball, but inside the walls (a ball against a wall is played from the side).
  const inside = ARENA_HALF_SIZE - 0.6;
  const spotX = Math.max(-inside, Math.min(inside, ball.x - gx * BEHIND));
  const spotZ = Math.max(-inside, Math.min(inside, ball.z - gz * BEHIND));
  const toBallX = ball.x - me.x;
  const toBallZ = ball.z - me.z;
  const dBall = Math.hypot(toBallX, toBallZ);
  const cos = dBall > 1e-6 ? (toBallX * gx + toBallZ * gz) / dBall : 0;
  const aligned = cos > 0.8;
  let mx = spotX - me.x;
  let mz = spotZ - me.z;
  // Not behind the ball yet and close to it: step away from it and round it, on the side the bot is on.
  if (!aligned && dBall < BEHIND * 2) {
    const side = -(toBallX * -gz + toBallZ * gx) >= 0 ? 1 : -1;
    mx += -gz * side * 1.5 - (toBallX / Math.max(dBall, 1e-6)) * 1.5;
    mz += gx * side * 1.5 - (toBallZ / Math.max(dBall, 1e-6)) * 1.5;
  }
  const d = Math.hypot(mx, mz);
  // Kick when well lined up (the kick goes from the player through the ball's centre), or when at the spot.
  if (dBall <= KICK_RANGE && (cos > 0.95 || (d <= THERE && aligned))) {
    out.kick = true;
    return out;
  }
  if (d <= THERE && aligned) return out;
  const s = 1 / Math.max(d, 1e-6);
  out.move.x = mx * s;
  out.move.y = -mz * s; // input y is up = −z
  return out;
}
