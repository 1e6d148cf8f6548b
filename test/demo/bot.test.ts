// The demo bots' brain on the Stepper: two bots, one per team, play until one scores.
import RAPIER from '@dimforge/rapier3d-compat';
import { describe, expect, it } from 'vitest';
import { createStepper, type Stepper } from '../../src/testing/index.ts';
import { decide } from '../../demo/bot/brain.ts';
import { setupGame } from '../../demo/server/game.ts';
import { BALL_SPOTS, kickoffSpot, KICKOFF_SECONDS, TEAM_BLUE, TEAM_RED } from '../../demo/shared/match.ts';
import { protocol, type DemoProtocol } from '../../demo/shared/protocol.ts';
import { placePlayer, systems } from '../../demo/shared/systems.ts';

await RAPIER.init();

/** Two bots (seed 5) joined to a game with these balls; `place` may put them elsewhere. Plays to the first goal or 60 s of play. */
function play(balls: readonly { x: number; z: number }[], place: (s: Stepper<DemoProtocol>) => void = () => {}) {
  const s = createStepper({ protocol, systems, seed: 5, log: () => {}, clients: 2 });
  setupGame(s.server, { balls });
  s.joinAll({ name: 'bot' });
  place(s);
  const match = [...s.server.world.query('match')][0]!.components;
  const decisions = s.clients.map(() => ({ move: { x: 0, y: 0 }, kick: false }));
  let goalAt: number | undefined;
  for (let f = 0; f < 60 * (60 + KICKOFF_SECONDS) && goalAt === undefined; f++) {
    s.clients.forEach((c, i) => {
      const d = decide(c.client.world, c.client.networkId!, decisions[i]);
      c.client.input.current.move = d.move;
      if (d.kick && f % 10 === 0) c.client.input.press('kick');
    });
    s.tick(1);
    if (match.goals > 0) goalAt = f / 60;
  }
  return { s, match, goalAt };
}

describe('demo bots', () => {
  it('two bots play a match to a goal within 60 s', () => {
    // One ball on the centre spot and the bots 4 m from it, facing it, not level with each other
    // (from the kickoff spots, level at x = ∓8, they reach the lone ball together and push it to and
    // fro: no goal in 60 s; the next test starts them there with the five starting balls).
    const { match, goalAt } = play([{ x: 0, z: 0 }], (s) => {
      const [red, blue] = [...s.server.world.query('player')];
      placePlayer(red!, { x: 2.703, z: -2.948, facing: Math.atan2(-2.703, 2.948) });
      placePlayer(blue!, { x: -3.985, z: 0.35, facing: Math.atan2(3.985, -0.35) });
    });
    console.log(`bots: first goal after ${goalAt?.toFixed(1)} s (${match.red}–${match.blue})`);
    expect(goalAt).toBeDefined();
  });

  it('from their kickoff spots with the five starting balls, two bots score within 60 s', () => {
    const { s, match, goalAt } = play(BALL_SPOTS, (s) => {
      const [red, blue] = [...s.server.world.query('player')];
      expect(red!.components).toMatchObject({ team: TEAM_RED, position: { x: kickoffSpot(TEAM_RED, 0).x, z: 0 } });
      expect(blue!.components).toMatchObject({ team: TEAM_BLUE, position: { x: kickoffSpot(TEAM_BLUE, 0).x, z: 0 } });
    });
    console.log(`bots from the kickoff spots: first goal after ${goalAt?.toFixed(1)} s (${match.red}–${match.blue}), ${[...s.server.world.query('ball')].length} balls`);
    expect(goalAt).toBeDefined();
  });
});
