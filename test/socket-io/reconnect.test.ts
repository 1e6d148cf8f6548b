// Resume over real sockets: the server drops a client's socket (as a network blip
// would); the client reconnects on a new socket and resumes its connection.

import { afterEach, describe, expect, it } from 'vitest';
import { createClient, createServer, realTimeScheduler, type Logger } from '../../src/index.ts';
import { createSocketIoClientTransport, createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';
import { waitFor } from '../helpers/wait.ts';

const quiet: Logger = () => {};
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});


describe('reconnection over socket.io', () => {
  it('resumes with the same networkId and keeps the ghosts', async () => {
    const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
    const server = createServer({ protocol: arena, systems: arenaSystems, transport, scheduler: realTimeScheduler, log: quiet });
    server.events.on('join', (c) => server.spawn('player', { hp: 100 }, { owner: c.networkId }));
    server.start();
    cleanups.push(() => server.close());
    const { port } = await transport.ready();
    const client = createClient({ protocol: arena, systems: arenaSystems, transport: createSocketIoClientTransport(`http://127.0.0.1:${port}`), log: quiet, reconnectDelaysMs: [20] });
    const pump = setInterval(() => client.update(performance.now()), 2);
    cleanups.push(() => clearInterval(pump), () => client.leave());
    client.connect();
    await waitFor(() => client.status === 'connected', 'handshake');
    client.join({ name: 'p' });
    await waitFor(() => client.status === 'in-game' && client.world.size === 1, 'join and the player ghost');
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
});
