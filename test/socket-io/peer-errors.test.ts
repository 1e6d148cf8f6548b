// What a client sends that the socket.io transport itself closes it for — a message over
// socket.io's maxHttpBufferSize (closed by ws or engine.io before the transport sees it), a
// non-binary payload, an unknown event, a packet socket.io cannot decode — is logged by the
// server (rate-limited) as its own protocol errors are, and ends that client's session for good
// (no resume grace), as they do. Real sockets: polled conditions.

import { afterEach, describe, expect, it } from 'vitest';
import { io as ioClient, type Socket } from 'socket.io-client';
import { createClient, createServer, realTimeScheduler } from '../../src/index.ts';
import { createSocketIoClientTransport, createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { chatProtocol } from '../helpers/protocols.ts';
import { waitFor } from '../helpers/wait.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function setup() {
  const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
  const warnings: string[] = [];
  const server = createServer({ protocol: chatProtocol, transport, scheduler: realTimeScheduler, log: (level, m) => level === 'warn' && warnings.push(m) });
  server.start();
  cleanups.push(() => server.close());
  const { port } = await transport.ready();
  const raw = (transports: string[] = ['websocket']): Promise<Socket> => {
    const socket = ioClient(`http://127.0.0.1:${port}`, { path: '/netcode', transports, reconnection: false, forceNew: true });
    cleanups.push(() => socket.close());
    return new Promise((resolve) => socket.once('connect', () => resolve(socket)));
  };
  const gone = (socket: Socket) => waitFor(() => !socket.connected, 'the server to close the socket');
  return { server, warnings, raw, gone };
}

describe('socket.io: connections the transport closes for what they sent', () => {
  it('a message over maxHttpBufferSize (WebSocket and polling): the server logs one line saying so', async () => {
    const { warnings, raw, gone } = await setup();
    const ws = await raw();
    ws.emit('r', Buffer.alloc(200 * 1024, 7));
    await gone(ws);
    await waitFor(() => warnings.length === 1, 'the log line');
    expect(warnings[0]).toMatch(
      /^react-netcode: protocol error from client: a message over socket\.io's 88406-byte limit \(maxHttpBufferSize, set from the transport's maxMessageBytes \(65536\); raise that option if your own client sends messages this large\) \(peer \d+\); the transport closed that connection only\.$/,
    );
    const polling = await raw(['polling']);
    polling.emit('r', Buffer.alloc(200 * 1024, 7));
    await gone(polling);
    await waitFor(() => warnings.length === 2, 'the second log line');
    expect(warnings[1]).toMatch(/^react-netcode: protocol error from client: a message over socket\.io's 88406-byte limit /);
  });

  it('a non-binary payload, an unknown event, a malformed packet: one line each', async () => {
    const { warnings, raw, gone } = await setup();
    const text = await raw();
    text.emit('r', 'a string, not bytes');
    await gone(text);
    const other = await raw();
    other.emit('chat', { x: 1 });
    await gone(other);
    const malformed = await raw();
    (malformed.io.engine as unknown as { write(data: string): void }).write('2["r",');
    await gone(malformed);
    await waitFor(() => warnings.length === 3, 'three log lines');
    expect(warnings[0]).toMatch(/^react-netcode: protocol error from client: non-binary payload on 'r' \(send a Uint8Array\) \(peer \d+\); the transport closed that connection only\.$/);
    expect(warnings[1]).toMatch(/^react-netcode: protocol error from client: unknown event 'chat' \(only 'r' and 'u' are accepted\) \(peer \d+\); the transport closed/);
    expect(warnings[2]).toMatch(/^react-netcode: protocol error from client: malformed socket\.io packet \(.+\); a client must speak socket\.io or netcode frames \(peer \d+\); the transport closed/);
  });
});

describe('socket.io: the session of a client the transport closes for what it sent', () => {
  it('ends for good (leave with the reason, no suspend): the client that tries to resume gets a fresh session', async () => {
    // A transport limit below what this app's client sends: a 100-character 'say' (≈ 105 bytes) is over it.
    const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0, maxMessageBytes: 96 });
    const warnings: string[] = [];
    const server = createServer({ protocol: chatProtocol, transport, scheduler: realTimeScheduler, log: (level, m) => level === 'warn' && warnings.push(m) });
    const events: string[] = [];
    server.events.on('suspend', () => events.push('suspend'));
    server.events.on('leave', (_c, reason) => events.push(`leave: ${reason}`));
    server.start();
    cleanups.push(() => server.close());
    const { port } = await transport.ready();
    const client = createClient({ protocol: chatProtocol, transport: createSocketIoClientTransport(`http://127.0.0.1:${port}`), log: () => {}, reconnectDelaysMs: [20] });
    const pump = setInterval(() => client.update(performance.now()), 2);
    cleanups.push(() => clearInterval(pump), () => client.leave());
    client.connect();
    await waitFor(() => client.status === 'connected', 'handshake');
    client.join({ name: 'p', token: '' });
    await waitFor(() => client.status === 'in-game', 'the join');
    const id = client.networkId!;
    client.send('say', { text: 'x'.repeat(100) });
    await waitFor(() => events.length > 0, 'the session to end');
    expect(events).toEqual([expect.stringMatching(/^leave: react-netcode: protocol error from client: message of \d+ bytes exceeds maxMessageBytes \(96\)/)]);
    expect(server.connections.has(id)).toBe(false);
    // The log line says the session ended with the link (a peer with no session yet: "that connection only", above).
    expect(warnings.find((w) => w.startsWith('react-netcode: protocol error'))).toMatch(
      new RegExp(`\\(peer \\d+, networkId ${id}\\); the transport closed that connection and its session \\(no resume\\)\\.$`),
    );
    await waitFor(() => client.status === 'connected' && client.state.resumeFailed, 'the fresh session');
    expect(client.networkId).not.toBe(id);
    expect(events).toHaveLength(1); // never suspended, never resumed
  });
});
