// A press the server runs late (its input arrived after its tick: a jitter spike on the
// uplink, a server stall): the server spawns the twin at a later tick than the client
// predicted. The client's deadline waits until the server's input reports say when the
// press can have run, so the predicted spawn is matched, not destroyed and spawned again.

import { beforeEach, describe, expect, it } from 'vitest';
import { tickDiff, type Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { effects, grenadeProtocol, grenadeSystems, withSpawnId, type GrenadeProtocol } from '../helpers/grenades.ts';

const quiet: Logger = () => {};
const fast = { latencyMs: 10 };

function setup(engine = {}, protocol: GrenadeProtocol = withSpawnId()) {
  const s = createStepper({ protocol, systems: grenadeSystems(protocol), seed: 4, log: quiet, clients: [{ link: { up: fast, down: fast }, engine }] });
  s.server.events.on('join', (c) => s.server.spawn('player', {}, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  s.advance(2500);
  const serverGrenades = () => [...s.server.world.query('grenade')];
  return { s, client: s.clients[0]!.client, link: s.clients[0]!.link!, serverGrenades };
}

beforeEach(() => {
  effects.played = 0;
  effects.reverted = 0;
});

describe('a press the server runs late', () => {
  it('an uplink spike of 600 ms for 500 ms: the twin spawns 25+ ticks after the predicted tick and still adopts the predicted grenade', () => {
    const { s, client, link, serverGrenades } = setup();
    link.setOptions({ up: { latencyMs: 600 }, down: fast }); // every packet sent now arrives 600 ms later
    client.input.press('fire');
    s.tick(1);
    const grenade = [...client.world.query('grenade')][0]!;
    expect(grenade.origin).toBe('predicted');
    s.advance(500);
    link.setOptions({ up: fast, down: fast }); // later inputs overtake the spike's: the press runs with the first of them
    s.until(() => serverGrenades().length > 0, 2000, 'the server to spawn the twin');
    expect(tickDiff(serverGrenades()[0]!.spawnTick, grenade.spawnTick)).toBeGreaterThan(25); // well past the old deadline (grace 12)
    s.until(() => grenade.origin !== 'predicted' || !grenade.alive, 2000, 'the predicted grenade to be matched or destroyed');
    expect(grenade.origin).toBe('matched');
    expect(grenade.alive).toBe(true);
    expect(client.spawns.stats).toMatchObject({ predicted: 1, matched: 1, rejected: 0 });
    expect(effects.reverted).toBe(0);
    expect([...client.world.query('grenade')]).toEqual([grenade]); // no second grenade from the snapshot
    expect(client.inputReports.missing).toBeGreaterThan(12); // the server said its ticks ran without our input
  });

  it('the default tick-window classifier too: the twin spawned 25+ ticks late adopts the predicted grenade, and no second grenade shows', () => {
    const { s, client, link, serverGrenades } = setup({}, grenadeProtocol());
    link.setOptions({ up: { latencyMs: 600 }, down: fast });
    client.input.press('fire');
    s.tick(1);
    const grenade = [...client.world.query('grenade')][0]!;
    s.advance(500);
    link.setOptions({ up: fast, down: fast });
    let most = 0;
    for (let i = 0; i < 120 && grenade.origin === 'predicted' && grenade.alive; i++) {
      s.tick(1);
      most = Math.max(most, [...client.world.query('grenade')].length);
    }
    expect(tickDiff(serverGrenades()[0]!.spawnTick, grenade.spawnTick)).toBeGreaterThan(25);
    expect(grenade.origin).toBe('matched');
    expect(grenade.alive).toBe(true);
    expect(most).toBe(1); // never the predicted grenade and its twin side by side
    expect(client.spawns.stats).toMatchObject({ predicted: 1, matched: 1, rejected: 0 });
  });

  it('reports on time, though not yet covering the press: a later server-only ghost of ours is no late twin (default classifier)', () => {
    // Pings a second apart: when the extra ghost arrives, no Pong has covered the presses' tick yet, and none is overdue.
    const { s, client } = setup({ pingIntervalMs: 1000 }, grenadeProtocol());
    client.input.press('fire', 6); // the server keeps 5
    s.tick(1);
    const predicted = [...client.world.query('grenade')];
    expect(predicted).toHaveLength(6);
    s.tick(8); // then the server spawns a grenade of ours on its own, 8 ticks after the presses
    const owner = client.networkId!;
    const extra = s.server.spawn('grenade', { position: { x: 50, y: 1, z: 0 }, spawnId: 0, fuse: 3 }, { owner });
    s.until(() => client.ghosts.record(extra.id) !== undefined || client.spawns.stats.matched > 5, 2000, 'the extra grenade to arrive');
    s.advance(1000);
    expect(client.spawns.stats).toMatchObject({ predicted: 6, matched: 5, rejected: 1 });
    expect(client.ghosts.record(extra.id)!.ghost.origin).toBe('snapshot'); // created as itself, not adopting the refused spawn
  });

  it('spawns the server refuses during the spike are destroyed once the reports tell when the presses ran, a few ticks after the twins', () => {
    const { s, client, link, serverGrenades } = setup();
    link.setOptions({ up: { latencyMs: 600 }, down: fast });
    client.input.press('fire', 7); // the server keeps 5 per tick
    s.tick(1);
    const predicted = [...client.world.query('grenade')];
    expect(predicted).toHaveLength(7);
    const pressTick = predicted[0]!.spawnTick;
    s.advance(500);
    link.setOptions({ up: fast, down: fast });
    const horizon = () => Math.min(client.ghosts.timeline.tick, client.ghosts.timeline.newestSnapshotTick!);
    s.until(() => tickDiff(horizon(), pressTick) > 12, 2000, 'the old deadline');
    expect(predicted.every((g) => g.alive)).toBe(true); // the reports do not tell yet: all 7 kept
    s.until(() => client.spawns.stats.rejected > 0, 3000, 'the refused spawns to be destroyed');
    const twinTick = serverGrenades()[0]!.spawnTick;
    expect(tickDiff(twinTick, pressTick)).toBeGreaterThan(25);
    expect(client.spawns.stats).toMatchObject({ predicted: 7, matched: 5, rejected: 2 });
    expect(effects.reverted).toBe(2);
    // Destroyed within the grace and a report period or two of the tick the server ran the presses at.
    expect(tickDiff(horizon(), twinTick)).toBeGreaterThan(12);
    expect(tickDiff(horizon(), twinTick)).toBeLessThanOrEqual(12 + 14);
  });

  it('with no report since the press (pings far apart), a refused spawn is kept at most maxRollbackTicks past the old deadline', () => {
    const { s, client } = setup({ pingIntervalMs: 60_000 });
    s.advance(200);
    client.input.press('fire', 6);
    s.tick(1);
    const predicted = [...client.world.query('grenade')];
    const pressTick = predicted[0]!.spawnTick;
    const horizon = () => Math.min(client.ghosts.timeline.tick, client.ghosts.timeline.newestSnapshotTick!);
    s.until(() => client.spawns.stats.matched === 5, 2000, 'the five twins');
    s.until(() => tickDiff(horizon(), pressTick) > 12 + 100, 4000, 'most of the hold');
    expect(client.spawns.stats.rejected).toBe(0);
    s.until(() => client.spawns.stats.rejected === 1, 1000, 'the refused spawn to be destroyed');
    expect(tickDiff(horizon(), pressTick)).toBe(12 + 120 + 1);
  });
});
