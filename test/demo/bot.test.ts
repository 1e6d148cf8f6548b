// The demo bots' brain on the Stepper: two bots, one per team, play until one scores.
import RAPIER from '@dimforge/rapier3d-compat';
import { describe, expect, it } from 'vitest';
import { createStepper } from '../../src/testing/index.ts';
import { decide } from '../../demo/bot/brain.ts';
import { setupGame } from '../../demo/server/game.ts';
import { KICKOFF_SECONDS } from '../../demo/shared/match.ts';
import { protocol } from '../../demo/shared/protocol.ts';
import { systems } from '../../demo/shared/systems.ts';

await RAPIER.init();

describe('demo bots', () => {
  it('two bots play a match to a goal within 60 s', () => {
    const s = createStepper({ protocol, systems, seed: 5, log: () => {}, clients: 2 });
    setupGame(s.server, { balls: [{ x: 0, z: 0 }] });
    s.joinAll({ name: 'bot' });
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
    console.log(`bots: first goal after ${goalAt?.toFixed(1)} s (${match.red}–${match.blue})`);
    expect(goalAt).toBeDefined();
  });
});
