// The last input of each player is replicated to the other clients, so a client can
// predict a remote player (here by switching its ghost to predicted mode).

import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { runnerProtocol, runnerSystems, SPEED } from '../helpers/runner.ts';

const quiet: Logger = () => {};

describe('replicated inputs', () => {
  it('let another client predict a remote player with that player’s last input', () => {
    const link = { latencyMs: 75 };
    const s = createStepper({ protocol: runnerProtocol, systems: runnerSystems, log: quiet, clients: [{ link: { up: link, down: link } }, { link: { up: link, down: link } }] });
    s.server.events.on('join', (c) => s.server.spawn('runner', {}, { owner: c.networkId }));
    s.joinAll({ name: 'p' });
    s.advance(2000);
    const [a, b] = s.clients.map((c) => c.client);
    a!.input.current.move.x = 1; // A runs
    s.advance(1000);
    const aOnB = [...b!.world.query('runner')].find((g) => g.owner === a!.networkId)!;
    expect(aOnB.mode).toBe('interpolated');
    const shownInterpolated = aOnB.components.position.x;
    expect(b!.setGhostMode(aOnB, 'predicted')).toBe(true);
    s.advance(1000);
    const rec = b!.ghosts.record(aOnB.id)!;
    const confirmedX = (rec.history.get(rec.confirmedTick)!.position as { x: number }).x;
    // B predicts A at B's predicted tick with A's replicated input (move.x = 1): ahead of the
    // confirmed state by about B's lead (one-way 75 ms + slack ≈ 6–7 ticks × 4/60 m ≈ 0.4 m).
    expect(aOnB.components.position.x - confirmedX).toBeGreaterThan(4 * (SPEED / 60));
    expect(aOnB.components.position.x).toBeGreaterThan(shownInterpolated + 3); // and it kept moving
    // Without replicated inputs B would predict A standing still at its confirmed position.
  });
});
