// Admission over real socket.io on 127.0.0.1: beyond maxPendingPeers, engine.io's
// allowRequest refuses the handshake before any socket.io socket exists; the first 16
// refused at a time are let through to be told why (a refused WebSocket upgrade tells
// a client only "websocket error"), the rest get HTTP 403. Real time: polled conditions.

import { afterEach, describe, expect, it } from 'vitest';
import { io as ioClient, Manager } from 'socket.io-client';
import { createServer, realTimeScheduler } from '../../src/index.ts';
import { createSocketIoClientTransport, createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { chatProtocol } from '../helpers/protocols.ts';
import { waitFor } from '../helpers/wait.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

describe('socket.io admission', () => {
  it('refuses handshakes beyond maxPendingPeers in allowRequest, telling the client it is busy; counts them in limitTotals.refusedPeers', async () => {
    const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
    const warnings: string[] = [];
    const server = createServer({ protocol: chatProtocol, transport, scheduler: realTimeScheduler, log: (level, m) => level === 'warn' && warnings.push(m), maxPendingPeers: 3 });
    server.start();
    cleanups.push(() => server.close());
    const { port } = await transport.ready();
    const outcome = { connected: 0, refused: [] as string[] };
    // One at a time, so that each sees the previous one pending on the server.
    for (let i = 0; i < 6; i++) {
      const socket = ioClient(`http://127.0.0.1:${port}`, { path: '/netcode', transports: ['websocket'], reconnection: false, forceNew: true });
      cleanups.push(() => socket.close());
      await new Promise<void>((resolve) => {
        socket.once('connect', () => (outcome.connected++, resolve()));
        socket.once('connect_error', (err) => (outcome.refused.push(err.message), resolve()));
      });
      await waitFor(() => server.pendingPeers === Math.min(3, i + 1), 'the server to see the pending peer');
    }
    expect(outcome.connected).toBe(3);
    expect(outcome.refused).toEqual(Array(3).fill(expect.stringMatching(/^react-netcode: the server is busy: too many connections are opening at once .*; try again in a few seconds\.$/)));
    expect(server.pendingPeers).toBe(3);
    expect(server.limitTotals.refusedPeers).toBe(3);
    // The server says so (rate-limited: at most 5 lines per 10 s), with the options that set the limits.
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/^react-netcode: turned a new connection away before it opened: the server is busy .*maxPendingPeers and maxHandshakesPerSecond/);
  });

  /** A server that takes one pending peer at a time (maxPendingPeers 1), listening on an ephemeral port. */
  async function busyServer() {
    const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
    const server = createServer({ protocol: chatProtocol, transport, scheduler: realTimeScheduler, log: () => {}, maxPendingPeers: 1 });
    server.start();
    cleanups.push(() => server.close());
    const { port } = await transport.ready();
    return { server, port, transport };
  }

  it('the client transport reports a busy refusal as such, not as a URL to check', async () => {
    const { server, port } = await busyServer();
    const first = ioClient(`http://127.0.0.1:${port}`, { path: '/netcode', transports: ['websocket'], reconnection: false, forceNew: true });
    cleanups.push(() => first.close());
    await waitFor(() => server.pendingPeers === 1, 'the first peer pending');
    const client = createSocketIoClientTransport(`http://127.0.0.1:${port}`, { retry: false });
    const reason = await new Promise<string>((resolve) => client.connect({ onOpen: () => {}, onMessage: () => {}, onClose: resolve }));
    expect(reason).toMatch(/^react-netcode: could not connect to http:\/\/127\.0\.0\.1:\d+ .* in one attempt: the server is busy: too many connections are opening at once/);
    expect(reason).not.toMatch(/websocket error|check the URL/);
  });

  it('tells at most 16 refused connections at a time why; the next gets HTTP 403 and costs no engine.io socket', async () => {
    const { server, port, transport } = await busyServer();
    const url = `http://127.0.0.1:${port}`;
    const first = ioClient(url, { path: '/netcode', transports: ['websocket'], reconnection: false, forceNew: true });
    cleanups.push(() => first.close());
    await waitFor(() => server.pendingPeers === 1, 'the first peer pending');
    // A Manager opened without a namespace holds its engine.io connection: admitted to be told, it keeps its place.
    const managers: Manager[] = [];
    cleanups.push(() => { for (const m of managers) m.engine?.close(); });
    const open = () => new Promise<boolean>((resolve) => {
      const m = new Manager(url, { path: '/netcode', transports: ['websocket'], reconnection: false, autoConnect: false });
      managers.push(m);
      m.open((err) => resolve(err === undefined));
    });
    for (let i = 0; i < 16; i++) expect(await open()).toBe(true);
    expect(await open()).toBe(false); // HTTP 403
    expect(transport.io.engine.clientsCount).toBe(17);
    const refusal = () => new Promise<string>((resolve) => {
      const socket = ioClient(url, { path: '/netcode', transports: ['websocket'], reconnection: false, forceNew: true });
      cleanups.push(() => socket.close());
      socket.once('connect_error', (err) => resolve(err.message));
    });
    expect(await refusal()).toBe('websocket error');
    managers[0]!.engine.close();
    await waitFor(() => transport.io.engine.clientsCount === 16, 'the server to see one close');
    expect(await refusal()).toMatch(/^react-netcode: the server is busy/);
    expect(server.limitTotals.refusedPeers).toBe(19);
  });
});
