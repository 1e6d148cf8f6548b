// Admission over real socket.io on 127.0.0.1: beyond maxPendingPeers, engine.io's
// allowRequest refuses the handshake before any socket exists, so a crowd that never
// says Hello costs no engine.io or socket.io socket. Real time: polled conditions.

import { afterEach, describe, expect, it } from 'vitest';
import { io as ioClient, type Socket } from 'socket.io-client';
import { createServer, realTimeScheduler } from '../../src/index.ts';
import { createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { chatProtocol } from '../helpers/protocols.ts';
import { waitFor } from '../helpers/wait.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

describe('socket.io admission', () => {
  it('refuses handshakes beyond maxPendingPeers in allowRequest: no engine.io socket is created for them', async () => {
    const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
    const warnings: string[] = [];
    const server = createServer({ protocol: chatProtocol, transport, scheduler: realTimeScheduler, log: (level, m) => level === 'warn' && warnings.push(m), maxPendingPeers: 3 });
    server.start();
    cleanups.push(() => server.close());
    const { port } = await transport.ready();
    const sockets: Socket[] = [];
    const outcome = { connected: 0, refused: 0 };
    // One at a time, so that each sees the previous one pending on the server.
    for (let i = 0; i < 6; i++) {
      const socket = ioClient(`http://127.0.0.1:${port}`, { path: '/netcode', transports: ['websocket'], reconnection: false, forceNew: true });
      sockets.push(socket);
      cleanups.push(() => socket.close());
      await new Promise<void>((resolve) => {
        socket.once('connect', () => (outcome.connected++, resolve()));
        socket.once('connect_error', () => (outcome.refused++, resolve()));
      });
      await waitFor(() => server.pendingPeers === Math.min(3, i + 1), 'the server to see the pending peer');
    }
    expect(outcome).toEqual({ connected: 3, refused: 3 });
    expect(transport.io.engine.clientsCount).toBe(3);
    expect(server.pendingPeers).toBe(3);
    // The server says so (rate-limited: at most 5 lines per 10 s), with the options that set the limits.
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/^react-netcode: turned a new connection away before it opened: the server is busy .*maxPendingPeers and maxHandshakesPerSecond/);
  });
});
