// Resume over real sockets: the server drops a client's socket (as a network blip
// would); the client reconnects on a new socket and resumes its connection.

import { afterEach, describe, expect, it } from 'vitest';
import { createClient, createServer, realTimeScheduler, type Logger } from '../../src/index.ts';
import { createSocketIoClientTransport, createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';
import { blackholeProxy } from '../helpers/blackhole.ts';
import { waitFor } from '../helpers/wait.ts';

const quiet: Logger = () => {};
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});


/** A client of the arena at 127.0.0.1:`port`, pumped every 2 ms, connected and in game with its player ghost. */
async function inGame(port: number, options: { silenceTimeoutMs?: number; now?: () => number } = {}) {
  const client = createClient({ protocol: arena, systems: arenaSystems, transport: createSocketIoClientTransport(`http://127.0.0.1:${port}`), log: quiet, reconnectDelaysMs: [20], ...options });
  const pump = setInterval(() => client.update(performance.now()), 2);
  cleanups.push(() => clearInterval(pump), () => client.leave());
  client.connect();
  await waitFor(() => client.status === 'connected', 'handshake');
  client.join({ name: 'p' });
  await waitFor(() => client.status === 'in-game' && client.world.size === 1, 'join and the player ghost');
  return client;
}

describe('reconnection over socket.io', () => {
  it('resumes with the same networkId and keeps the ghosts', async () => {
    const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
    const server = createServer({ protocol: arena, systems: arenaSystems, transport, scheduler: realTimeScheduler, log: quiet });
    server.events.on('join', (c) => server.spawn('player', { hp: 100 }, { owner: c.networkId }));
    server.start();
    cleanups.push(() => server.close());
    const { port } = await transport.ready();
    const client = await inGame(port);
    const id = client.networkId!;
    const handle = [...client.world.all()][0]!.handle;
    const statuses: string[] = [];
    client.events.on('status', (s) => statuses.push(s.status));

    transport.disconnect(server.connections.get(id)!.peer, 'network blip');
    await waitFor(() => statuses.includes('reconnecting'), 'the drop');
    await waitFor(() => client.status === 'in-game', 'the resume');
    expect(client.networkId).toBe(id);
    expect(server.connections.get(id)!.state).toBe('in-game');
    await waitFor(() => client.ghosts.ackTick > 0, 'snapshots again');
    expect([...client.world.all()].map((g) => g.handle)).toEqual([handle]);
    expect(server.world.size).toBe(1);
  });

  it('a link that went dead in between (both sockets open, nothing passes): the client resumes over a new one, which takes the session', async () => {
    const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
    // The server's own silence check is long, so it still holds the old link when the resume comes.
    const server = createServer({ protocol: arena, systems: arenaSystems, transport, scheduler: realTimeScheduler, log: quiet, silenceTimeoutMs: 30_000 });
    server.events.on('join', (c) => server.spawn('player', { hp: 100 }, { owner: c.networkId }));
    const events: string[] = [];
    server.events.on('suspend', (c) => events.push(`suspend ${c.networkId}`));
    server.events.on('resume', (c) => events.push(`resume ${c.networkId}`));
    server.events.on('connect', (c) => events.push(`connect ${c.networkId}`));
    server.start();
    cleanups.push(() => server.close());
    const { port } = await transport.ready();
    const proxy = await blackholeProxy(port);
    cleanups.push(() => void proxy.close());
    // The client takes 1 s without a word from the server for a dropped link.
    const client = await inGame(proxy.port, { silenceTimeoutMs: 1000, now: () => performance.now() });
    const id = client.networkId!;
    const statuses: string[] = [];
    client.events.on('status', (s) => statuses.push(`${s.status}${s.resumeFailed ? ' resumeFailed' : ''}`));
    const oldPeer = server.connections.get(id)!.peer;
    proxy.freeze();
    await waitFor(() => statuses.includes('reconnecting'), 'the client to see the silence', 10_000);
    expect(server.connections.get(id)!.state).toBe('in-game'); // the server still holds the dead link
    await waitFor(() => client.status === 'in-game', 'the resume', 10_000);
    expect(client.networkId).toBe(id);
    expect(statuses).toEqual(['reconnecting', 'in-game']); // no fresh session (resumeFailed)
    expect(server.connections.size).toBe(1);
    expect(server.connections.get(id)!.peer).not.toBe(oldPeer);
    expect(events).toEqual([`connect ${id}`, `suspend ${id}`, `resume ${id}`]);
    await waitFor(() => client.ghosts.ackTick > 0, 'snapshots again');
    expect(proxy.links).toBe(2);
  });
});
