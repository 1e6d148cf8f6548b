// A paused client (setPaused(true): the React provider does while the page is hidden) tells the
// server (the Pause message): its connection is `paused`, the ticks the server runs without its
// input are not counted missing — so its own net stats do not show a hidden tab as a bad link —
// and the server does not warn every 5 s that its player stutters. A client whose frames merely
// stall says nothing and is still warned about.
import { describe, expect, it } from 'vitest';
import { defineSystems, system } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { arena } from '../helpers/arena.ts';

/** Players walk by their input: the server reads every player's input each tick. */
const arenaSystems = defineSystems(arena, [
  system.shared('walk', (world, ctx) => {
    for (const p of world.query('player')) p.components.position.x += ctx.input(p).move.x * ctx.dt;
  }),
]);

const fast = { latencyMs: 20 };
const MISSING_WARNING = /ticks in the last \d+ s ran without its input/;

function setup() {
  const warnings: string[] = [];
  const s = createStepper({ protocol: arena, systems: arenaSystems, seed: 4, clients: [{ link: { up: fast, down: fast } }], log: (level, m) => level === 'warn' && warnings.push(m) });
  s.server.events.on('join', (c) => void s.server.spawn('player', { hp: 100 }, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  const client = s.clients[0]!.client;
  client.input.current.move.x = 1;
  s.advance(2000);
  const connection = s.server.connections.get(client.networkId!)!;
  return { s, client, connection, warnings };
}

describe('a paused client', () => {
  it('is paused on the server: no missing inputs counted or warned about in 12 s; running again, it is not', () => {
    const { s, client, connection, warnings } = setup();
    const missingBefore = s.server.inputStats(connection)!.missing;
    client.setPaused(true);
    s.advance(100);
    expect(connection.paused).toBe(true);
    s.advance(12_000);
    expect(s.server.inputStats(connection)!.missing - missingBefore).toBeLessThanOrEqual(2); // the ticks before the Pause arrived
    expect(client.inputReports.missing).toBeLessThanOrEqual(2);
    expect(warnings.filter((w) => MISSING_WARNING.test(w))).toEqual([]);
    client.setPaused(false);
    s.advance(100);
    expect(connection.paused).toBe(false);
    s.advance(6000);
    expect(client.status).toBe('in-game');
    expect(warnings.filter((w) => MISSING_WARNING.test(w))).toEqual([]);
  });

  it('contrast: a client whose frames stall for 7 s without pausing is counted missing and warned about', () => {
    const { s, client, connection, warnings } = setup();
    const missingBefore = s.server.inputStats(connection)!.missing;
    s.stall(s.clients[0]!, 7000); // under the server's silence timeout (8 s), which would suspend it
    s.advance(7000);
    expect(connection.paused).toBe(false);
    expect(s.server.inputStats(connection)!.missing - missingBefore).toBeGreaterThan(300);
    expect(warnings.filter((w) => MISSING_WARNING.test(w)).length).toBeGreaterThanOrEqual(1);
    expect(client.isPaused).toBe(false);
  });

  it('paused before its handshake: the client says so after the Welcome, the new connection is paused', () => {
    const s = createStepper({ protocol: arena, systems: arenaSystems, seed: 4, clients: [{ link: { up: fast, down: fast }, connect: false }], log: () => {} });
    const client = s.clients[0]!.client;
    client.setPaused(true);
    client.connect();
    s.until(() => client.status === 'connected', 2000, 'the handshake');
    s.advance(100);
    expect([...s.server.connections.values()].map((c) => c.paused)).toEqual([true]);
  });
});
