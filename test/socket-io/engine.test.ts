// The engines over the real socket.io transport on 127.0.0.1: handshake, join,
// RPCs both ways, a protocol error closing only the offending connection. Real
// sockets need real time: we wait on conditions (polled), never on fixed sleeps.

import { afterEach, describe, expect, it } from 'vitest';
import { io as ioClient } from 'socket.io-client';
import { conditionClient, conditionServer, createClient, createServer, realTimeScheduler, type ClientTransport, type Logger, type NetClient, type ServerTransport } from '../../src/index.ts';
import { createSocketIoClientTransport, createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { chatProtocol, type ChatProtocol } from '../helpers/protocols.ts';
import { refuseConnections } from '../helpers/refuser.ts';
import { waitFor } from '../helpers/wait.ts';

const quiet: Logger = () => {};
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});


async function setup(wrapServer: (t: ServerTransport) => ServerTransport = (t) => t) {
  const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
  const server = createServer({ protocol: chatProtocol, transport: wrapServer(transport), scheduler: realTimeScheduler, log: quiet });
  server.start();
  const { port } = await transport.ready();
  cleanups.push(() => server.close());
  const clients: NetClient<ChatProtocol>[] = [];
  const pump = setInterval(() => clients.forEach((c) => c.update(performance.now())), 2);
  cleanups.push(() => clearInterval(pump));
  const addClient = (wrap: (t: ClientTransport) => ClientTransport = (t) => t) => {
    const client = createClient({ protocol: chatProtocol, transport: wrap(createSocketIoClientTransport(`http://127.0.0.1:${port}`)), log: quiet });
    clients.push(client);
    cleanups.push(() => client.leave());
    client.connect();
    return client;
  };
  return { server, port, addClient };
}

describe('engines over socket.io', () => {
  it('handshakes, joins and exchanges RPCs', async () => {
    const { server, addClient } = await setup();
    const a = addClient();
    const b = addClient();
    await waitFor(() => a.status === 'connected' && b.status === 'connected', 'handshake');
    expect(new Set([a.networkId, b.networkId])).toEqual(new Set([1, 2]));
    a.join({ name: 'a', token: '' });
    b.join({ name: 'b', token: '' });
    await waitFor(() => a.status === 'in-game' && b.status === 'in-game', 'join');
    server.onRpc('say', (conn, { text }) => server.broadcast('said', { from: conn.networkId, text }));
    const heard: string[] = [];
    b.onRpc('said', (p) => heard.push(`${p.from}:${p.text}`));
    a.send('say', { text: 'héllo ✓' });
    await waitFor(() => heard.length === 1, 'broadcast');
    expect(heard).toEqual([`${a.networkId}:héllo ✓`]);
  });

  it('a malformed message closes only that connection', async () => {
    const { server, port, addClient } = await setup();
    const good = addClient();
    await waitFor(() => good.status === 'connected', 'handshake');
    good.join({ name: 'g', token: '' });
    await waitFor(() => good.status === 'in-game', 'join');
    const raw = ioClient(`http://127.0.0.1:${port}`, { path: '/netcode', transports: ['websocket'], reconnection: false, forceNew: true });
    cleanups.push(() => raw.close());
    await new Promise<void>((r) => raw.on('connect', () => r()));
    let disconnected = false;
    raw.on('disconnect', () => (disconnected = true));
    raw.emit('r', new Uint8Array([0xee, 1, 2, 3])); // unknown message kind
    await waitFor(() => disconnected, 'the bad socket to be dropped');
    const heard: string[] = [];
    server.onRpc('say', (_c, p) => heard.push(p.text));
    good.send('say', { text: 'fine' });
    await waitFor(() => heard.length === 1, 'the good client to carry on');
    expect(good.status).toBe('in-game');
    expect(server.connections.size).toBe(1);
  });

  it("a server that emits text on a netcode channel ends the client's session with 'protocol-error' (no resume)", async () => {
    const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
    const server = createServer({ protocol: chatProtocol, transport, scheduler: realTimeScheduler, log: quiet });
    server.start();
    const { port } = await transport.ready();
    cleanups.push(() => server.close());
    const logged: string[] = [];
    const client = createClient({
      protocol: chatProtocol, transport: createSocketIoClientTransport(`http://127.0.0.1:${port}`), resumeGraceMs: 10_000,
      log: (level, message) => level === 'error' && logged.push(message),
    });
    cleanups.push(() => client.leave());
    const pump = setInterval(() => client.update(performance.now()), 2);
    cleanups.push(() => clearInterval(pump));
    client.connect();
    await waitFor(() => client.status === 'connected', 'handshake');
    client.join({ name: 'p', token: '' });
    await waitFor(() => client.status === 'in-game', 'join');
    // Someone else's code on the same io server emits a string on the reliable channel ('r').
    for (const socket of transport.io.sockets.sockets.values()) socket.emit('r', 'hello from another app');
    await waitFor(() => client.status === 'closed', 'the session to close');
    expect(client.state.closeCode).toBe('protocol-error');
    expect(client.state.closeReason).toMatch(/^react-netcode: protocol error from server: the server sent a non-binary payload on 'r'/);
    expect(logged).toEqual([client.state.closeReason]);
    // Closed for good: it never tried to resume (the link did not drop, the server speaks something else).
    await new Promise((r) => setTimeout(r, 300));
    expect(client.status).toBe('closed');
  });
});

/** Join as `name`, then five RPC echoes through the server; with 40 ms each way, each must take 80 ms at least. */
async function expectEchoesDelayed(server: Awaited<ReturnType<typeof setup>>['server'], client: NetClient<ChatProtocol>, name: string): Promise<void> {
  await waitFor(() => client.status === 'connected', 'handshake');
  client.join({ name, token: '' });
  await waitFor(() => client.status === 'in-game', 'join');
  server.onRpc('say', (conn, { text }) => server.send(conn, 'said', { from: 0, text }));
  const rtts: number[] = [];
  for (let i = 0; i < 5; i++) {
    let back = false;
    const off = client.onRpc('said', () => (back = true));
    const sent = performance.now();
    client.send('say', { text: `ping ${i}` });
    await waitFor(() => back, 'the echo');
    rtts.push(performance.now() - sent);
    off();
  }
  // 40 ms up + 40 ms down = 80 ms at least; the server tick and the 2 ms pump add a little.
  for (const rtt of rtts) expect(rtt).toBeGreaterThanOrEqual(79);
  expect(Math.min(...rtts)).toBeLessThan(80 + 200);
}

describe('link conditioner in real time around socket.io', () => {
  it('on the server: delays both directions of every peer; a server close still tells the client why', async () => {
    const { server, addClient } = await setup((t) => conditionServer(t, { seed: 5, up: { latencyMs: 40 }, down: { latencyMs: 40 } }, realTimeScheduler));
    const client = addClient();
    await expectEchoesDelayed(server, client, 'far');
    server.close('maintenance'); // the Close message is 40 ms behind: the graceful close delivers it first
    await waitFor(() => client.status === 'closed', 'the client to learn of the close');
    expect(client.state.closeReason).toBe('maintenance');
  });

  it('delays both directions and drops nothing on the reliable channel', async () => {
    const { server, addClient } = await setup();
    const link = { up: { latencyMs: 40 }, down: { latencyMs: 40 } };
    const client = addClient((t) => conditionClient(t, { seed: 3, ...link }, realTimeScheduler));
    await expectEchoesDelayed(server, client, 'slow');
  });
});

describe('connecting to a server that is not up yet', () => {
  it('the client keeps trying and connects once the server starts', async () => {
    const refuser = await refuseConnections(); // the port, with no game server on it yet
    const transport = createSocketIoClientTransport(`http://127.0.0.1:${refuser.port}`, { retry: { attempts: 50, minDelayMs: 20, maxDelayMs: 50 } });
    const client = createClient({ protocol: chatProtocol, transport, log: quiet });
    cleanups.push(() => client.leave());
    const pump = setInterval(() => client.update(performance.now()), 2);
    cleanups.push(() => clearInterval(pump));
    client.connect();
    await waitFor(() => refuser.attempts >= 3, 'three failed attempts');
    expect(client.status).toBe('connecting');
    await refuser.close();
    const server = createServer({ protocol: chatProtocol, transport: createSocketIoServerTransport({ host: '127.0.0.1', port: refuser.port }), scheduler: realTimeScheduler, log: quiet });
    server.start();
    cleanups.push(() => server.close());
    await waitFor(() => client.status === 'connected', 'the handshake once the server is up');
    expect(server.connections.size).toBe(1);
  });
});

describe('a URL where nothing listens', () => {
  it('the engine warns at the first failed attempt, with where, why and how long it keeps trying; closed after the last', async () => {
    const refuser = await refuseConnections();
    const url = `http://127.0.0.1:${refuser.port}`;
    const transport = createSocketIoClientTransport(url, { retry: { attempts: 4, minDelayMs: 40, maxDelayMs: 80 } });
    const logs: string[] = [];
    const client = createClient({ protocol: chatProtocol, transport, log: (level, m) => logs.push(`${level}: ${m}`) });
    cleanups.push(() => client.leave());
    const pump = setInterval(() => client.update(performance.now()), 2);
    cleanups.push(() => clearInterval(pump));
    client.connect();
    await waitFor(() => logs.length >= 1, 'the first warning');
    const where = `${url} (socket.io path '/netcode', transports websocket)`;
    // Delays left after the first attempt: 40 + 80 + 80 ms (without their ±25 %).
    expect(logs[0]).toMatch(new RegExp(`^warn: react-netcode: could not connect to ${where.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(attempt 1 of 4: .+; if it goes on, check the URL and path and that the game server is running\\); trying again for about 0\\.2 s more \\(the transport option retry\\)\\.$`));
    expect(client.status).toBe('connecting');
    await waitFor(() => client.status === 'closed', 'the last attempt');
    await refuser.close();
    expect(client.state.closeCode).toBe('connect-failed');
    expect(refuser.attempts).toBe(4);
    // Said twice in all: at the first failure, and the close after the last (with the count), not once per attempt.
    expect(logs).toHaveLength(2);
    expect(logs[1]).toMatch(/^warn: react-netcode: could not connect to .* in 4 attempts over/);
  });
});
