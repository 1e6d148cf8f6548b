// The server's side of a silent link: a client in game whose bytes stop reaching the server (a frozen
// page, a proxy holding its bytes, a dead NAT mapping) while its link still looks open. After
// `silenceTimeoutMs` (8 s) with nothing from it, the server closes that link and suspends the
// connection for its resume grace — the client, when its bytes flow again, resumes with the same
// networkId — instead of keeping its player in game on repeated then neutral input until the
// transport's own heartbeat gives up (socket.io: ≈ 45 s). All on the Stepper's virtual clock.

import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';

const fast = { latencyMs: 20 };
const held = { ...fast, loss: 1 }; // every packet lost, the link "open"

function setup(server: Record<string, unknown> = {}, engine: Record<string, unknown> = {}) {
  const lines: string[] = [];
  const log: Logger = (level, message) => void (level === 'warn' && lines.push(message));
  const s = createStepper({ protocol: arena, systems: arenaSystems, log, seed: 11, server, clients: [{ link: { up: fast, down: fast }, engine }] });
  s.server.events.on('join', (c) => s.server.spawn('player', { hp: 100 }, { owner: c.networkId }));
  const events: { at: number; event: string; reason?: string }[] = [];
  s.server.events.on('suspend', (_c, reason) => events.push({ at: s.server.timeMs, event: 'suspend', reason }));
  s.server.events.on('resume', () => events.push({ at: s.server.timeMs, event: 'resume' }));
  s.server.events.on('leave', (_c, reason) => events.push({ at: s.server.timeMs, event: 'leave', reason }));
  s.joinAll({ name: 'p' });
  s.advance(500);
  const connection = [...s.server.connectionsInGame][0]!;
  return { s, client: s.clients[0]!.client, link: s.clients[0]!.link!, connection, events, lines };
}

describe("the server's silenceTimeoutMs (a client in game that sends nothing)", () => {
  it('closes the link of a client whose bytes are held at 8 s, not before; the client resumes with the same networkId', () => {
    const { s, client, link, connection, events, lines } = setup();
    const id = client.networkId;
    link.setOptions({ up: held }); // the client's bytes stop; the server's still reach it, so the client sees nothing wrong
    const heldAt = s.server.timeMs;
    s.advance(7800);
    expect(connection.state).toBe('in-game'); // not before the timeout
    expect(events).toEqual([]);
    s.until(() => connection.state === 'suspended', 1000, 'the server to take the silence for a drop');
    const silentFor = events[0]!.at - heldAt;
    expect(silentFor).toBeGreaterThanOrEqual(7980); // 8000 after the last message heard (sent ≤ 20 ms before the hold)
    expect(silentFor).toBeLessThanOrEqual(8050);
    expect(events[0]).toMatchObject({ event: 'suspend', reason: expect.stringMatching(/^react-netcode: the client sent nothing for 8000 ms in game/) });
    expect(lines.some((m) => /^react-netcode: networkId \d+ \(peer \d+\): the client sent nothing for 8000 ms in game .*; closed its link, it may resume within resumeGraceMs\.$/.test(m))).toBe(true);
    s.advance(200);
    expect(client.status).toBe('reconnecting'); // the link the server closed is a drop for the client
    link.setOptions({ up: fast });
    s.until(() => client.status === 'in-game', 5000, 'the resume');
    expect(client.networkId).toBe(id);
    expect(connection.state).toBe('in-game');
    expect(events.map((e) => e.event)).toEqual(['suspend', 'resume']);
  });

  it('never closes a client that keeps sending: 30 s in game, and 30 s paused with no frames (it Pings as snapshots arrive)', () => {
    const { s, client, connection, events } = setup();
    s.advance(30_000);
    expect(events).toEqual([]);
    const sentBefore = client.traffic.messagesOut;
    client.setPaused(true);
    const update = client.update.bind(client);
    client.update = () => {}; // a hidden page: no animation frames, the link up
    s.advance(30_000);
    expect(connection.state).toBe('in-game');
    expect(events).toEqual([]);
    const sentPaused = client.traffic.messagesOut - sentBefore;
    expect(sentPaused).toBeGreaterThanOrEqual(30); // one Ping a second (PAUSED_PING_MS), plus the pause's input packets
    expect(sentPaused).toBeLessThanOrEqual(36);
    client.update = update;
    client.setPaused(false);
    s.advance(1000);
    expect(client.status).toBe('in-game');
  });

  it('a paused client without the `now` option cannot Ping on arrival: the server suspends it, and it resumes when back', () => {
    const s = createStepper({ protocol: arena, systems: arenaSystems, log: () => {}, seed: 12, clients: [{ link: { up: fast, down: fast }, stampOnArrival: false }] });
    s.joinAll({ name: 'p' });
    s.advance(500);
    const client = s.clients[0]!.client;
    const id = client.networkId;
    const connection = [...s.server.connectionsInGame][0]!;
    client.setPaused(true);
    const update = client.update.bind(client);
    client.update = () => {};
    s.advance(9000);
    expect(connection.state).toBe('suspended');
    client.update = update;
    client.setPaused(false);
    s.until(() => client.status === 'in-game' && connection.state === 'in-game', 5000, 'the resume');
    expect(client.networkId).toBe(id);
  });

  it('silenceTimeoutMs: 0 turns it off (the player stays in game until the transport closes the link)', () => {
    const { s, link, connection, events } = setup({ silenceTimeoutMs: 0 }, { silenceTimeoutMs: 0 });
    link.setOptions({ up: held });
    s.advance(30_000);
    expect(connection.state).toBe('in-game');
    expect(events).toEqual([]);
  });

  it('with resumeGraceMs 0 the silent connection ends at once (leave, with the silence as its reason)', () => {
    const { s, link, connection, events } = setup({ resumeGraceMs: 0 });
    link.setOptions({ up: held });
    s.advance(8500);
    expect(connection.state).toBe('closed');
    expect(events).toMatchObject([{ event: 'leave', reason: expect.stringMatching(/^react-netcode: the client sent nothing for 8000 ms/) }]);
  });

  it('is not checked before the join, and a slow onJoin is no silence: joined after 9 s, not closed at once', async () => {
    let accept: (ok: boolean) => void = () => {};
    const s = createStepper({
      protocol: arena, systems: arenaSystems, log: () => {}, seed: 13, clients: [{ link: { up: fast, down: fast } }],
      server: { onJoin: () => new Promise<boolean>((resolve) => (accept = resolve)) },
    });
    const client = s.clients[0]!.client;
    s.until(() => client.status === 'connected', 3000, 'connected');
    s.advance(20_000); // a lobby: nothing sent, nothing checked
    const connection = [...s.server.connections.values()][0]!;
    expect(connection.state).toBe('connected');
    client.join({ name: 'slow' });
    s.advance(9000); // onJoin still deciding: the client sends nothing while joining
    accept(true);
    await Promise.resolve();
    s.advance(1000);
    expect(connection.state).toBe('in-game');
    expect(client.status).toBe('in-game');
  });

  it('rejects a negative silenceTimeoutMs with a clear error', () => {
    expect(() => setup({ silenceTimeoutMs: -1 })).toThrow(/^react-netcode: the server's silenceTimeoutMs must be a number of ms >= 0/);
  });
});
