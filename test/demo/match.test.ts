// The kickball match on a deterministic Stepper: teams at join, a ball in a goal scores
// for the attacking team and is put back on the centre spot, the clock runs kickoff →
// play → results, the rematch (automatic or by RPC) resets score, balls and players;
// characters block each other, and a blast pushes a player.
import RAPIER from '@dimforge/rapier3d-compat';
import { describe, expect, it } from 'vitest';
import { createStepper } from '../../src/testing/index.ts';
import { setupGame } from '../../demo/server/game.ts';
import { BALL_SPOTS, KICKOFF_SECONDS, matchOf, MATCH_SECONDS, PHASE_KICKOFF, PHASE_PLAYING, PHASE_RESULTS, TEAM_BLUE, TEAM_RED } from '../../demo/shared/match.ts';
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
