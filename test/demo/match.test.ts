// The kickball match on a deterministic Stepper: teams at join, a ball in a goal scores
// for the attacking team and is put back on the centre spot, the clock runs kickoff →
// play → results, the rematch (automatic or by RPC) resets score, balls and players;
// a player who joins (at the first kickoff, mid-kickoff, after a team mate left) stands on a
// free kickoff spot of its team, and a switch during the kickoff crosses to the other half;
// characters block each other, and a blast pushes a player.
import RAPIER from '@dimforge/rapier3d-compat';
import { describe, expect, it } from 'vitest';
import { createStepper } from '../../src/testing/index.ts';
import { setupGame } from '../../demo/server/game.ts';
import { BALL_SPOTS, kickoffSpot, KICKOFF_SECONDS, matchOf, MATCH_SECONDS, PHASE_KICKOFF, PHASE_PLAYING, PHASE_RESULTS, TEAM_BLUE, TEAM_RED } from '../../demo/shared/match.ts';
import { protocol } from '../../demo/shared/protocol.ts';
import { BALL_RADIUS, PLAYER_MIN_DISTANCE, systems } from '../../demo/shared/systems.ts';

await RAPIER.init();

function game(clients = 2, balls: readonly { x: number; z: number }[] = []) {
  const s = createStepper({ protocol, systems, seed: 3, log: () => {}, clients });
  setupGame(s.server, { balls });
  s.joinAll({ name: 'p' });
  s.until(() => s.clients.every((c) => [...c.client.world.query('player')].length === clients && c.client.prediction!.lastTick !== undefined), 5000, 'prediction');
  const match = [...s.server.world.query('match')][0]!.components;
  const players = [...s.server.world.query('player')];
  return { s, match, players };
}

describe('demo match', () => {
  it('puts players in alternate teams, in their palettes', () => {
    const { players } = game(3);
    expect(players.map((p) => p.components.team)).toEqual([TEAM_RED, TEAM_BLUE, TEAM_RED]);
    expect(new Set(players.map((p) => p.components.colour)).size).toBe(3);
  });

  it('the first kickoff lines players up on their kickoff spots: at join, mid-kickoff, after a team mate left, after a switch', () => {
    const { s, match, players } = game(3);
    expect(match.phase).toBe(PHASE_KICKOFF); // the server's first match
    const on = (p: (typeof players)[0]) => ({ x: p.components.position.x, z: p.components.position.z, facing: p.components.facing });
    const spot = (team: typeof TEAM_RED | typeof TEAM_BLUE, i: number) => kickoffSpot(team, i);
    // Red, blue, red: red on the −x side at z = 0 and −3, blue on the +x side, each facing the goal it attacks.
    expect(players.map(on)).toEqual([spot(TEAM_RED, 0), spot(TEAM_BLUE, 0), spot(TEAM_RED, 1)]);
    expect(spot(TEAM_RED, 0)).toEqual({ x: -8, z: 0, facing: Math.PI / 2 });
    expect(spot(TEAM_BLUE, 0)).toEqual({ x: 8, z: 0, facing: -Math.PI / 2 });
    // On every client's page too, once the snapshots are in.
    s.tick(10);
    for (const c of s.clients) {
      for (const p of c.client.world.query('player')) {
        const server = s.server.world.get(p.id)!.components as (typeof players)[0]['components'];
        expect(Math.hypot(p.components.position.x - server.position.x, p.components.position.z - server.position.z)).toBeLessThan(0.01);
      }
    }
    // A fourth player joins mid-kickoff: blue's second spot.
    const fourth = s.addClient();
    s.joinAll({ name: 'late' });
    expect(match.phase).toBe(PHASE_KICKOFF);
    const late = [...s.server.world.query('player')].find((p) => p.owner === fourth.client.networkId)!;
    expect(on(late)).toEqual(spot(TEAM_BLUE, 1));
    // It switches to red during the kickoff: it crosses to red's first free spot (z = +3).
    fourth.client.send('switchTeam', {});
    s.tick(10);
    expect(match.phase).toBe(PHASE_KICKOFF);
    expect(late.components.team).toBe(TEAM_RED);
    expect(on(late)).toEqual(spot(TEAM_RED, 2));
    // The first red player leaves; a fifth joins (during play now): red is the smaller team, and
    // the spot that left is free again (not the one its team mate stands on).
    s.until(() => match.phase === PHASE_PLAYING, (KICKOFF_SECONDS + 1) * 1000, 'play');
    s.clients[0]!.client.leave();
    s.until(() => !players[0]!.alive, 5000, 'the first player to go');
    s.advance(200);
    const blue = [...s.server.world.query('player')].filter((p) => p.components.team === TEAM_BLUE).length;
    expect(blue).toBe(1);
    const fifth = s.addClient();
    s.until(() => fifth.client.status === 'connected', 5000, 'the fifth to connect');
    fifth.client.join({ name: 'later' });
    s.until(() => fifth.client.status === 'in-game', 5000, 'the fifth to join');
    const later = [...s.server.world.query('player')].find((p) => p.owner === fifth.client.networkId)!;
    expect(later.components.team).toBe(TEAM_BLUE);
    expect(on(later)).toEqual(spot(TEAM_BLUE, 1));
  });

  it('a ball in the blue goal (+x) scores for red and goes back to the centre spot; one in the red goal for blue', () => {
    const { s, match } = game(1);
    s.until(() => match.phase === PHASE_PLAYING, (KICKOFF_SECONDS + 1) * 1000, 'kickoff to end');
    // Rolled into the +x goal at 8 m/s along z = 0: past the line (x = 20 + r) within a second.
    s.server.spawn('ball', { position: { x: 15, y: BALL_RADIUS, z: 0 }, linvel: { x: 8, y: 0, z: 0 } });
    s.until(() => match.red === 1, 3000, 'the red goal');
    expect(match.goals).toBe(1);
    expect(match.lastGoalTeam).toBe(TEAM_RED);
    const balls = [...s.server.world.query('ball')];
    expect(balls.length).toBe(1); // the scoring ball replaced by one on the centre spot
    expect(Math.hypot(balls[0]!.components.position.x, balls[0]!.components.position.z)).toBeLessThan(0.5);
    s.server.spawn('ball', { position: { x: -15, y: BALL_RADIUS, z: 1 }, linvel: { x: -8, y: 0, z: 0 } });
    s.until(() => match.blue === 1, 3000, 'the blue goal');
    // A ball against the end wall beside the mouth (|z| > 3) is no goal.
    s.server.spawn('ball', { position: { x: 15, y: BALL_RADIUS, z: 8 }, linvel: { x: 8, y: 0, z: 0 } });
    s.advance(2000);
    expect(match.red).toBe(1);
    // The client sees the score.
    const seen = matchOf(s.clients[0]!.client.world)!;
    expect([seen.red, seen.blue, seen.goals]).toEqual([1, 1, 2]);
  });

  it('runs kickoff → play → results → rematch (score, balls and players reset); the rematch RPC cuts the results short', () => {
    const { s, match, players } = game(2, BALL_SPOTS);
    expect(match.phase).toBe(PHASE_KICKOFF);
    s.until(() => match.phase === PHASE_PLAYING, (KICKOFF_SECONDS + 1) * 1000, 'play');
    match.red = 3;
    s.advance(MATCH_SECONDS * 1000 + 100); // 7200 ticks of 1/60 s, and a few for the rounding
    expect(match.phase).toBe(PHASE_RESULTS);
    expect(match.red).toBe(3); // the results show the final score
    s.clients[1]!.client.send('rematch', {});
    s.tick(20); // the RPC's trip and one tick
    expect(match.phase).toBe(PHASE_KICKOFF);
    expect([match.red, match.blue, match.round]).toEqual([0, 0, 2]);
    expect([...s.server.world.query('ball')].length).toBe(BALL_SPOTS.length);
    // Red in the −x half, blue in the +x half, 8 m from the centre line.
    for (const p of players) expect(Math.sign(p.components.position.x)).toBe(p.components.team === TEAM_RED ? -1 : 1);
  });

  it('the running clock rolls no client back: the match ghost is interpolated, and a client standing alone resimulates nothing', () => {
    const { s, match } = game(1);
    const client = s.clients[0]!.client;
    s.advance(500);
    const before = { ...client.prediction!.stats };
    s.advance(2000); // 40 snapshots, each with a new clock
    const after = client.prediction!.stats;
    expect(after.rollbacks - before.rollbacks).toBe(0);
    expect(after.resimulatedTicks - before.resimulatedTicks).toBe(0);
    expect(after.skipped - before.skipped).toBeGreaterThanOrEqual(35); // every snapshot checked, nothing to correct
    expect([...client.world.query('match')][0]!.mode).toBe('interpolated');
    // The page's clock follows the server's, an interpolation delay behind (the scoreboard shows whole seconds).
    const seen = matchOf(client.world)!;
    expect(seen.phase).toBe(match.phase);
    expect(seen.clock - match.clock).toBeGreaterThanOrEqual(0);
    expect(seen.clock - match.clock).toBeLessThan(0.3);
  });

  it('characters block each other; a blast pushes a player', () => {
    const { s, players } = game(2);
    const [a, b] = players as [(typeof players)[0], (typeof players)[0]];
    // Face to face 3 m apart on x, then a walks at b for 2 s (12 m): stopped at the minimum distance.
    Object.assign(a.components.position, { x: -2, z: 10 });
    Object.assign(b.components.position, { x: 1, z: 10 });
    s.clients.find((c) => c.client.networkId === a.owner)!.client.input.current.move = { x: 1, y: 0 };
    s.advance(2000);
    const gap = Math.hypot(b.components.position.x - a.components.position.x, b.components.position.z - a.components.position.z);
    expect(a.components.position.x).toBeGreaterThan(-1.5); // it walked …
    expect(gap).toBeGreaterThan(PLAYER_MIN_DISTANCE - 0.05); // … and stopped at b
    expect(gap).toBeLessThan(PLAYER_MIN_DISTANCE + 0.1);
    s.clients.find((c) => c.client.networkId === a.owner)!.client.input.current.move = { x: 0, y: 0 };
    // A grenade 2 m from b (level): pushed 10 × (1 − 4/40) × 0.8 = 7.2 m/s away and lifted.
    const before = { ...b.components.position };
    s.server.spawn('grenade', { position: { x: before.x + 2, y: before.y, z: before.z }, fuse: 0.02 });
    s.advance(500);
    expect(b.components.position.x).toBeLessThan(before.x - 0.5);
  });
});
