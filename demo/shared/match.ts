// Kickball rules, shared by the server's `match` system and the client's HUD: two
// teams (red attacks +x, blue attacks −x), a ball wholly past a goal line inside the
// mouth is a goal for the attacking team, and a match runs kickoff (a countdown) →
// play (the clock) → results, then a rematch. Only the server changes the `match`
// ghost; clients read it to draw the scoreboard, the countdown and the results.
import type { Ghost, Vec3, World } from '../../src/index.ts';
import { ARENA_HALF_SIZE, GOAL_HALF_WIDTH, GOAL_HEIGHT } from './level.ts';
import type { DemoProtocol } from './protocol.ts';

export const TEAM_RED = 1;
export const TEAM_BLUE = 2;
export type Team = typeof TEAM_RED | typeof TEAM_BLUE;

export const PHASE_KICKOFF = 0;
export const PHASE_PLAYING = 1;
export const PHASE_RESULTS = 2;

/** Balls round the centre at the start of the server and of every match, at rest until something pushes them. */
export const BALL_SPOTS: readonly { x: number; z: number }[] = [
  { x: 0, z: 0 },
  { x: 6, z: -6 },
  { x: -6, z: -6 },
  { x: -5, z: 5 },
  { x: 0, z: 9 },
];

/** Seconds of each phase: the kickoff countdown, a match, the results screen before an automatic rematch. */
export const KICKOFF_SECONDS = 3;
export const MATCH_SECONDS = 120;
export const RESULTS_SECONDS = 15;

export const TEAM_NAMES: Record<Team, string> = { [TEAM_RED]: 'Red', [TEAM_BLUE]: 'Blue' };
export const TEAM_COLOURS: Record<Team, string> = { [TEAM_RED]: '#e53935', [TEAM_BLUE]: '#1e88e5' };
/** Player colour indices (PLAYER_COLOURS) per team: warm for red, cool for blue. */
export const TEAM_PALETTE: Record<Team, readonly number[]> = { [TEAM_RED]: [0, 5, 7, 3], [TEAM_BLUE]: [1, 6, 4, 2] };

/** The team a ball at `p` (radius r) has just scored for, or 0: wholly past an end line, inside the mouth, under the crossbar. */
export function goalFor(p: Vec3, r: number): 0 | Team {
  if (Math.abs(p.z) >= GOAL_HALF_WIDTH || p.y >= GOAL_HEIGHT) return 0;
  if (p.x > ARENA_HALF_SIZE + r) return TEAM_RED; // red attacks +x
  if (p.x < -ARENA_HALF_SIZE - r) return TEAM_BLUE;
  return 0;
}

/** The team with fewer players (red on a tie): where a player who joins goes. */
export function smallerTeam(world: World<DemoProtocol>): Team {
  let red = 0;
  let blue = 0;
  for (const p of world.query('player')) {
    if (p.components.team === TEAM_RED) red++;
    else if (p.components.team === TEAM_BLUE) blue++;
  }
  return blue < red ? TEAM_BLUE : TEAM_RED;
}

/** A colour of the team's palette that no team mate wears yet (the first one when all are taken). */
export function freeColour(world: World<DemoProtocol>, team: Team): number {
  const palette = TEAM_PALETTE[team];
  const used = new Set<number>();
  for (const p of world.query('player')) if (p.components.team === team) used.add(p.components.colour);
  return palette.find((c) => !used.has(c)) ?? palette[0]!;
}

/** Kickoff spot of the i-th player of a team: in its own half, 8 m from the centre line, spread along z, facing the other goal. */
export function kickoffSpot(team: Team, i: number): { x: number; z: number; facing: number } {
  const side = team === TEAM_RED ? -1 : 1;
  const z = (i % 2 === 0 ? 1 : -1) * Math.ceil(i / 2) * 3;
  return { x: side * 8, z, facing: side < 0 ? Math.PI / 2 : -Math.PI / 2 };
}

/** A kickoff spot counts as taken while a player stands within this horizontal distance of it (the spots are 3 m apart). */
const SPOT_TAKEN = 1.5;

/**
 * Where a player of `team` who joins, or switches to `team` during a kickoff, is put: the
 * first of the team's kickoff spots that no other player stands on (`except`: the player
 * itself), so a player who joins at the first kickoff, mid-kickoff or after a team mate left
 * stands in its own half like those the kickoff lined up.
 */
export function freeKickoffSpot(world: World<DemoProtocol>, team: Team, except?: Ghost<DemoProtocol, 'player'>): { x: number; z: number; facing: number } {
  for (let i = 0; ; i++) {
    const spot = kickoffSpot(team, i);
    let taken = false;
    for (const p of world.query('player')) {
      if (p === except) continue;
      const at = p.components.position;
      if ((at.x - spot.x) ** 2 + (at.z - spot.z) ** 2 < SPOT_TAKEN * SPOT_TAKEN) taken = true;
    }
    if (!taken) return spot;
  }
}

/** The match ghost's values, or undefined before it exists (a client before its first snapshot). */
export function matchOf(world: World<DemoProtocol>) {
  for (const m of world.query('match')) return m.components;
  return undefined;
}
