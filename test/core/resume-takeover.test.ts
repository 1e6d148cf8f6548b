// A resume over a new link while the server still holds the old one (half-open: the client saw its
// link die, the server did not): the token proves it is the same client, so the new link takes the
// session (same networkId, ghosts kept; the server drops the old link). And a session the server
// kicked while its client's link was down: the resume is refused with the kick's reason instead of
// being answered with a fresh session (which a provider with a `join` prop would join again).
import { describe, expect, it } from 'vitest';
import { createClient, type NetClient } from '../../src/core/client.ts';
import { MessageEncoder } from '../../src/core/messages.ts';
import { NetServer } from '../../src/core/server.ts';
import { TAKEOVER_SILENCE_MS } from '../../src/core/server-sessions.ts';
import { MessageKind, WIRE_VERSION } from '../../src/core/wire.ts';
import { createStepper } from '../../src/testing/index.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';
import { halfOpenable } from '../helpers/half-open.ts';
import { joinedRawPeer, rawPeer } from '../helpers/raw-peer.ts';

function setup(join = true) {
  const network = new LoopbackNetwork();
  let now = 0;
  const logs: string[] = [];
  const server = new NetServer({ protocol: arena, systems: arenaSystems, transport: network.server, seed: 5, log: (l, m) => logs.push(`${l}: ${m}`) }).listen();
  server.events.on('join', (c) => void server.spawn('player', { hp: 100 }, { owner: c.networkId }));
  const events: string[] = [];
  server.events.on('connect', (c) => events.push(`connect ${c.networkId}`));
  server.events.on('suspend', (c, reason) => events.push(`suspend ${c.networkId}: ${reason}`));
  server.events.on('resume', (c) => events.push(`resume ${c.networkId}`));
  server.events.on('leave', (c, reason) => events.push(`leave ${c.networkId}: ${reason}`));
  const link = halfOpenable(network);
  const client: NetClient<typeof arena> = createClient({ protocol: arena, systems: arenaSystems, transport: link.transport, now: () => now, log: (l, m) => logs.push(`client ${l}: ${m}`) });
  const step = (ms: number): void => {
    for (const end = now + ms; now < end; now += 1000 / 60) {
      network.deliver();
      server.update(now);
      client.update(now);
    }
    network.deliver();
  };
  /** Step until `predicate()` holds; returns the ms it took. */
  const until = (predicate: () => boolean, what: string, maxMs = 5000): number => {
    const start = now;
    for (const end = now + maxMs; !predicate(); step(1000 / 60)) if (now >= end) throw new Error(`timed out waiting for ${what}`);
    return now - start;
  };
  client.connect();
  until(() => client.status === 'connected', 'connect');
  if (join) {
    client.join({ name: 'p' });
    until(() => client.status === 'in-game' && client.world.size === 1, 'in game with its player');
  }
  /** The server alone runs a frame (the client's next frame has not come yet). */
  const serverFrame = (): void => {
    network.deliver();
    server.update(now);
    network.deliver();
  };
  /** `ms` pass in which only the server runs (the client's frames stopped). */
  const serverOnly = (ms: number): void => {
    for (const end = now + ms; now < end; now += 1000 / 60) serverFrame();
  };
  /** One frame of each, nothing delivered after the server's: what it sent is still on its way. */
  const frames = (): void => {
    client.update(now);
    network.deliver();
    server.update(now);
  };
  return { network, server, client, link, events, logs, step, until, serverFrame, serverOnly, frames };
}

describe('a resume over a new link while the server still holds the old one', () => {
  it('takes the session over: same networkId and ghost, no resumeFailed, the old link dropped by the server', () => {
    const { server, client, link, events, step, until } = setup();
    const id = client.networkId!;
    const statuses: string[] = [];
    client.events.on('status', (s) => statuses.push(`${s.status}${s.resumeFailed ? ' resumeFailed' : ''}`));
    link.halfOpen();
    until(() => client.status === 'reconnecting', 'the client sees its link close');
    // The old link sent its last message when it died: the takeover waits for 1 s of its silence.
    const waited = until(() => client.status === 'in-game', 'the resume');
    expect(waited).toBeGreaterThan(TAKEOVER_SILENCE_MS - 100);
    expect(waited).toBeLessThan(TAKEOVER_SILENCE_MS + 600);
    step(500);
    expect(client.networkId).toBe(id);
    expect(client.state.resumeFailed).toBe(false);
    expect(statuses).toEqual(['reconnecting', 'in-game']);
    expect(server.connections.size).toBe(1);
    expect(server.connections.get(id)?.state).toBe('in-game');
    expect(server.world.size).toBe(1); // its player was kept, not destroyed and spawned again
    expect(client.world.size).toBe(1);
    expect(events).toEqual([`connect ${id}`, `suspend ${id}: react-netcode: its client resumed over a newer link (the server still held the old one)`, `resume ${id}`]);
    expect(link.serverClosed).toEqual(['react-netcode: the session resumed over a newer link.']);
  });

  it('a Hello naming the live session with a wrong token does not take it: a fresh session, the owner keeps its own', () => {
    const { network, server, client, step } = setup();
    const id = client.networkId!;
    const intruder = rawPeer(network);
    step(50);
    const wrong = (server.connections.get(id)!.resumeToken ^ 1) >>> 0;
    intruder.send(new MessageEncoder().hello({ protocolHash: arena.hash, wireVersion: WIRE_VERSION, resumeToken: wrong, resumeId: id, systemsHash: server.identity.systemsHash, buildId: server.identity.buildId }));
    step(200);
    expect(intruder.welcomes.map((w) => [w.networkId, w.resumed])).toEqual([[2, false]]);
    expect(client.status).toBe('in-game');
    expect(server.connections.get(id)?.state).toBe('in-game');
    expect(server.connections.get(id)?.peer).not.toBe(server.connections.get(2)?.peer);
  });
  it('the right token on a new link while the old link still talks: the Hello waits; taken over after 1 s of silence', () => {
    const { network, server, client, step, serverOnly } = setup();
    const id = client.networkId!;
    const connection = server.connections.get(id)!;
    const peer = connection.peer;
    const other = rawPeer(network);
    step(50);
    other.send(new MessageEncoder().hello({ protocolHash: arena.hash, wireVersion: WIRE_VERSION, resumeToken: connection.resumeToken, resumeId: id, systemsHash: server.identity.systemsHash, buildId: server.identity.buildId }));
    step(3000); // the client plays on over its link, sending every frame
    expect(other.welcomes).toEqual([]);
    expect(connection.peer).toBe(peer);
    expect(client.status).toBe('in-game');
    // The client falls silent (its frames stop): once its link has said nothing for 1 s, the waiting Hello gets the session.
    let silent = 0;
    while (other.welcomes.length === 0 && silent < 3000) {
      serverOnly(1000 / 60);
      silent += 1000 / 60;
    }
    expect(other.welcomes.map((w) => [w.networkId, w.resumed])).toEqual([[id, true]]);
    expect(silent).toBeGreaterThanOrEqual(TAKEOVER_SILENCE_MS - 50); // the client's last message left up to a frame before
    expect(silent).toBeLessThan(TAKEOVER_SILENCE_MS + 100);
    expect(connection.peer).not.toBe(peer);
    expect(server.connections.size).toBe(1);
  });
});

describe('a Joined lost with the link', () => {
  it('the client resumes to connected while the server has it in game: the Joined is said again after the Welcome', () => {
    const { server, client, link, step, frames } = setup(false);
    client.join({ name: 'p' });
    frames(); // the Join goes out, the server joins it: the Joined is on its way down the old link …
    expect([...server.connections.values()][0]!.state).toBe('in-game');
    link.halfOpen(); // and dies on the client's side with it
    step(4000);
    expect(client.status).toBe('in-game');
    expect(client.world.size).toBe(1);
  });
});

describe('a Join from a connection in game', () => {
  it('is answered with Joined again (its client may not have heard the first), not ignored; nothing else changes', () => {
    const s = createStepper({ protocol: arena, systems: arenaSystems, log: () => {} });
    const joins: number[] = [];
    s.server.events.on('join', (c) => joins.push(c.networkId));
    const { peer, connection } = joinedRawPeer(s, arena, { name: 'p' });
    const joinedBefore = peer.kinds.filter((k) => k === MessageKind.Joined).length;
    peer.join(arena, { name: 'again' });
    s.tick(2);
    expect(peer.kinds.filter((k) => k === MessageKind.Joined).length).toBe(joinedBefore + 1);
    expect(joins).toEqual([connection.networkId]); // onJoin ran once
    expect(connection.joinPayload).toEqual({ name: 'p' });
  });
});

describe('a session the server kicked while its link was down', () => {
  it('half-open: the Close went nowhere; the resume is refused with the kick reason, the client closed', () => {
    const { server, client, link, logs, until, step } = setup();
    link.halfOpen();
    server.kick(server.connections.get(client.networkId!)!, 'react-netcode: kicked by the test (no cheating).');
    until(() => client.status === 'closed', 'the refused resume');
    expect(client.state.closeCode).toBe('refused');
    expect(client.state.closeReason).toBe('react-netcode: this session cannot resume: the server ended it while its link was down: kicked by the test (no cheating).');
    expect(logs.filter((l) => l.startsWith('client error:'))).toEqual([`client error: ${client.state.closeReason}`]);
    step(600); // the kicked connection's linger (500 ms) ends: its old link is closed
    expect(server.connections.size).toBe(0);
    expect(link.serverClosed).toEqual(['react-netcode: kicked by the test (no cheating).']);
  });

  it("suspended: kicked during its grace, before its client's resume attempt: the resume is refused with the reason", () => {
    const { network, server, client, until, serverFrame } = setup();
    const c = server.connections.get(client.networkId!)!;
    network.server.disconnect(c.peer, 'test: dropped');
    serverFrame(); // the server has suspended it; the client has not run a frame since
    expect(c.state).toBe('suspended');
    server.kick(c, 'react-netcode: kicked by the test while away.');
    until(() => client.status === 'reconnecting', 'the client sees the drop');
    until(() => client.status !== 'reconnecting', 'the resume attempt');
    expect(client.status).toBe('closed');
    expect(client.state.closeReason).toBe('react-netcode: this session cannot resume: the server ended it while its link was down: kicked by the test while away.');
  });
});
