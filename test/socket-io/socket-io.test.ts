// Integration tests of the socket.io transports: a real socket.io server and
// clients on 127.0.0.1 (ephemeral ports), every wait bounded by a timeout.
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket as NetSocket } from 'node:net';
import { Server } from 'socket.io';
import { Manager, io as rawClient } from 'socket.io-client';
import type { Socket as RawClientSocket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { Channel, PeerId } from '../../src/core/transport.ts';
import { createSocketIoClientTransport, createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import type { SocketIoClientTransportOptions, SocketIoServerTransportOptions } from '../../src/socket-io/index.ts';
import { toBytes } from '../../src/socket-io/bytes.ts';
import { refuseConnections } from '../helpers/refuser.ts';
import { waitFor as waitUntil } from '../helpers/wait.ts';

const TIMEOUT_MS = 5000;

/** Events in arrival order, with bounded waits on the first one matching a predicate. */
class Recorder<E> {
  readonly events: E[] = [];
  private waiters: { match: (e: E) => boolean; resolve: (e: E) => void }[] = [];
  push(event: E): void {
    this.events.push(event);
    for (const w of [...this.waiters]) {
      if (w.match(event)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(event);
      }
    }
  }
  /** Index of the next event, for `waitFor(..., from)`. */
  mark(): number {
    return this.events.length;
  }
  /** Resolves with the first event from index `from` on (already recorded or future) that matches. */
  waitFor(match: (e: E) => boolean, what: string, from = 0): Promise<E> {
    const seen = this.events.slice(from).find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return bounded(new Promise<E>((resolve) => this.waiters.push({ match, resolve })), what);
  }
  count(match: (e: E) => boolean): number {
    return this.events.filter(match).length;
  }
}

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

type ServerEvent =
  | { kind: 'connect'; peer: PeerId }
  | { kind: 'message'; peer: PeerId; data: Uint8Array; channel: Channel }
  | { kind: 'disconnect'; peer: PeerId; reason: string };
type ClientEvent = { kind: 'open' } | { kind: 'message'; data: Uint8Array; channel: Channel } | { kind: 'close'; reason: string };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Closes an io (and its HTTP server) and waits until the port is released. */
function closeIo(io: Server): Promise<void> {
  return bounded(io.close(), 'the socket.io server to close');
}

async function startServer(options: SocketIoServerTransportOptions = {}) {
  const transport = createSocketIoServerTransport({ port: 0, host: '127.0.0.1', ...options });
  const events = new Recorder<ServerEvent>();
  transport.listen({
    onConnect: (peer) => events.push({ kind: 'connect', peer }),
    onMessage: (peer, data, channel) => events.push({ kind: 'message', peer, data: new Uint8Array(data), channel }),
    onDisconnect: (peer, reason) => events.push({ kind: 'disconnect', peer, reason }),
  });
  const { port } = await transport.ready();
  if (options.io === undefined) cleanups.push(() => { transport.close(); return closeIo(transport.io); });
  else cleanups.push(() => transport.close());
  return { transport, events, port, url: `http://127.0.0.1:${port}` };
}

function startClient(url: string, options: SocketIoClientTransportOptions = {}) {
  const transport = createSocketIoClientTransport(url, options);
  const events = new Recorder<ClientEvent>();
  const connect = (): void =>
    transport.connect({
      onOpen: () => events.push({ kind: 'open' }),
      onMessage: (data, channel) => events.push({ kind: 'message', data: new Uint8Array(data), channel }),
      onClose: (reason) => events.push({ kind: 'close', reason }),
    });
  connect();
  cleanups.push(() => transport.close('test over'));
  return { transport, events, connect };
}

/** Connects a client and returns it with the server's PeerId for it. */
async function connected(server: Awaited<ReturnType<typeof startServer>>) {
  const from = server.events.mark();
  const client = startClient(server.url);
  await client.events.waitFor((e) => e.kind === 'open', 'client open');
  const connect = await server.events.waitFor((e) => e.kind === 'connect', 'server connect', from);
  return { ...client, peer: connect.kind === 'connect' ? connect.peer : -1 };
}

function rawSocket(url: string): RawClientSocket {
  const socket = rawClient(url, { path: '/netcode', transports: ['websocket'], reconnection: false, forceNew: true });
  cleanups.push(() => { socket.disconnect(); });
  return socket;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed) & 0xff;
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((v, i) => v === b[i]);
}

describe('socket.io transports', () => {
  it('opens and carries messages both ways on both channels, bytes intact', async () => {
    const server = await startServer();
    const client = await connected(server);
    const slab = bytes(4096, 7);
    const payloads = [bytes(64, 1), bytes(1500, 2), new Uint8Array(0), slab.subarray(100, 164)];
    for (const channel of ['reliable', 'unreliable'] as const) {
      for (const payload of payloads) {
        const serverFrom = server.events.mark();
        client.transport.send(payload, channel);
        const got = await server.events.waitFor((e) => e.kind === 'message', `server ${channel} message`, serverFrom);
        expect(got).toMatchObject({ kind: 'message', peer: client.peer, channel });
        if (got.kind === 'message') expect(sameBytes(got.data, payload)).toBe(true);

        const clientFrom = client.events.mark();
        server.transport.send(client.peer, payload, channel);
        const back = await client.events.waitFor((e) => e.kind === 'message', `client ${channel} message`, clientFrom);
        expect(back).toMatchObject({ kind: 'message', channel });
        if (back.kind === 'message') expect(sameBytes(back.data, payload)).toBe(true);
      }
    }
  });

  it('unreliable messages written back to back in one task all arrive, both ways (no volatile drops on an idle link)', async () => {
    // The regression: with socket.io's volatile.emit, a message right after another emit in the
    // same task was discarded (an ack then an input: the input lost, every frame).
    const server = await startServer();
    const client = await connected(server);
    const serverFrom = server.events.mark();
    const clientFrom = client.events.mark();
    for (let i = 0; i < 200; i++) {
      client.transport.send(bytes(32, i), i % 3 === 0 ? 'reliable' : 'unreliable');
      server.transport.send(client.peer, bytes(100, i), 'unreliable'); // 20 KB in all: within the 64 KiB buffer threshold
    }
    const messagesSince = (r: Recorder<ServerEvent> | Recorder<ClientEvent>, from: number) => r.events.slice(from).filter((e) => e.kind === 'message').length;
    await server.events.waitFor(() => messagesSince(server.events, serverFrom) >= 200, '200 messages at the server', serverFrom);
    await client.events.waitFor(() => messagesSince(client.events, clientFrom) >= 200, '200 messages at the client', clientFrom);
    expect(client.transport.stats!.unreliableDropped).toBe(0);
    expect(server.transport.peerStats!(client.peer)!.unreliableDropped).toBe(0);
    // In order: payload i starts with byte (i · 0 · 31 + i) & 0xff = i.
    const seeds = client.events.events.slice(clientFrom).flatMap((e) => (e.kind === 'message' ? [e.data[0]!] : []));
    expect(seeds).toEqual(Array.from({ length: 200 }, (_, i) => i & 0xff));
  });

  it('drops unreliable messages only while more than maxBufferedBytes wait to be written, and counts them', async () => {
    const server = await startServer({ maxBufferedBytes: 32 * 1024 });
    const client = await connected(server);
    const clientFrom = client.events.mark();
    // 400 × 8 KiB in one task: the first writes fill engine.io's buffer past 32 KiB before any is
    // flushed, then every further unreliable message is dropped; the reliable one never is.
    for (let i = 0; i < 400; i++) server.transport.send(client.peer, bytes(8192, i), 'unreliable');
    server.transport.send(client.peer, bytes(16, 99), 'reliable');
    await client.events.waitFor((e) => e.kind === 'message' && e.channel === 'reliable', 'the reliable message', clientFrom);
    const dropped = server.transport.peerStats!(client.peer)!.unreliableDropped;
    const arrived = client.events.count((e) => e.kind === 'message' && e.channel === 'unreliable');
    expect(dropped).toBeGreaterThan(0);
    expect(arrived + dropped).toBe(400); // each one either delivered or counted, none lost silently
    expect(arrived).toBeGreaterThanOrEqual(4); // 32 KiB / 8 KiB: the buffer's worth got through
  });

  it('hands over plain Uint8Array views that respect byteOffset, in order on the reliable channel', async () => {
    const server = createSocketIoServerTransport({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => { server.close(); return closeIo(server.io); });
    const received: Uint8Array[] = [];
    const all = new Promise<void>((resolve) =>
      server.listen({
        onConnect: () => {},
        onMessage: (_peer, data) => {
          // Read through the view only, as the engines do (no copy in the handler).
          expect(data.constructor).toBe(Uint8Array);
          received.push(Uint8Array.from(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)));
          if (received.length === 50) resolve();
        },
        onDisconnect: () => {},
      }),
    );
    const { port } = await server.ready();
    const client = startClient(`http://127.0.0.1:${port}`);
    await client.events.waitFor((e) => e.kind === 'open', 'client open');
    const sent = Array.from({ length: 50 }, (_, i) => bytes(10 + i, i));
    for (const payload of sent) client.transport.send(payload, 'reliable');
    await bounded(all, '50 reliable messages');
    received.forEach((data, i) => expect(sameBytes(data, sent[i] ?? new Uint8Array(1))).toBe(true));
  });

  it('normalises received binary to a Uint8Array view without copying', () => {
    const slab = Buffer.from(bytes(256, 3));
    const pooled = slab.subarray(40, 72);
    const view = toBytes(pooled);
    expect(view?.constructor).toBe(Uint8Array);
    expect(view?.buffer).toBe(slab.buffer);
    expect(view?.byteOffset).toBe(pooled.byteOffset);
    expect(view !== null && sameBytes(view, bytes(256, 3).subarray(40, 72))).toBe(true);
    const ab = bytes(16, 9).buffer;
    expect(toBytes(ab)?.buffer).toBe(ab);
    expect(toBytes('text')).toBeNull();
  });

  it('a peer that reads nothing is dropped once reliable messages pile up for it, saying so; the others play on', async () => {
    const server = await startServer();
    const witness = await connected(server);
    const raw = rawSocket(server.url);
    await bounded(new Promise<void>((resolve) => raw.on('connect', () => resolve())), 'raw connect');
    const peer = await server.events.waitFor((e) => e.kind === 'connect' && e.peer !== witness.peer, 'the raw peer');
    // Its TCP socket stops reading: what the server writes waits in the kernel, then in the server's buffers.
    const tcp = (raw.io.engine as unknown as { transport: { ws: { _socket: { pause(): void } } } }).transport.ws._socket;
    tcp.pause();
    const big = bytes(60_000, 1);
    let sent = 0;
    while (sent < 400 && !server.events.events.some((e) => e.kind === 'disconnect')) {
      server.transport.send(peer.kind === 'connect' ? peer.peer : -1, big, 'reliable');
      sent++;
      if (sent % 20 === 0) await new Promise((r) => setTimeout(r, 5)); // let the socket flush what it can
    }
    const dropped = server.events.events.find((e) => e.kind === 'disconnect');
    expect(dropped, `sent ${sent} messages of 60 kB`).toBeDefined();
    expect(dropped!.kind === 'disconnect' && dropped!.reason).toMatch(/^react-netcode: the client reads nothing: \d+ messages and \d+ bytes wait to be written to it/);
    expect(sent * 60_000).toBeGreaterThan(8 * 1024 * 1024); // not before MAX_WAITING_BYTES
    // The other peer is untouched.
    witness.transport.send(bytes(8, 0), 'reliable');
    await server.events.waitFor((e) => e.kind === 'message' && e.peer === witness.peer, 'witness message');
  });

  it("server disconnect(peer, 'kicked') closes the client and reports our reason once", async () => {
    const server = await startServer();
    const client = await connected(server);
    const witness = await connected(server);
    server.transport.disconnect(client.peer, 'kicked');
    const closed = await client.events.waitFor((e) => e.kind === 'close', 'client close');
    expect(closed).toEqual({ kind: 'close', reason: `react-netcode: the connection to ${server.url} (socket.io path '/netcode', transports websocket) closed (the server closed it: kicked)` });
    // A round trip with another client flushes anything late.
    witness.transport.send(bytes(8, 0), 'reliable');
    await server.events.waitFor((e) => e.kind === 'message' && e.peer === witness.peer, 'witness message');
    expect(server.events.events.filter((e) => e.kind === 'disconnect')).toEqual([{ kind: 'disconnect', peer: client.peer, reason: 'kicked' }]);
    expect(client.events.count((e) => e.kind === 'close')).toBe(1);
    server.transport.send(client.peer, bytes(8, 0), 'reliable'); // gone: ignored
    server.transport.disconnect(client.peer, 'again'); // gone: ignored
    expect(server.events.count((e) => e.kind === 'disconnect')).toBe(1);
  });

  it('client close reports our reason on the client and socket.io’s on the server', async () => {
    const server = await startServer();
    const client = await connected(server);
    client.transport.close('bye');
    expect(client.events.events.filter((e) => e.kind === 'close')).toEqual([{ kind: 'close', reason: 'bye' }]);
    const gone = await server.events.waitFor((e) => e.kind === 'disconnect', 'server disconnect');
    expect(gone).toEqual({ kind: 'disconnect', peer: client.peer, reason: 'client namespace disconnect' });
    client.transport.send(bytes(4, 0), 'reliable'); // after close: ignored
    client.transport.close('twice');
    expect(client.events.count((e) => e.kind === 'close')).toBe(1);
  });

  it('a non-binary emit disconnects only that socket', async () => {
    const server = await startServer();
    const good = await connected(server);
    const raw = rawSocket(server.url);
    const rawClosed = new Promise<string>((resolve) => raw.on('disconnect', resolve));
    await bounded(new Promise<void>((resolve) => raw.on('connect', () => resolve())), 'raw connect');
    raw.emit('r', 'not binary');
    expect(await bounded(rawClosed, 'raw disconnect')).toBe('io server disconnect');
    const dropped = await server.events.waitFor((e) => e.kind === 'disconnect', 'server disconnect');
    expect(dropped.kind === 'disconnect' && dropped.peer !== good.peer && /^react-netcode: non-binary payload/.test(dropped.reason)).toBe(true);
    good.transport.send(bytes(32, 5), 'reliable');
    const msg = await server.events.waitFor((e) => e.kind === 'message' && e.peer === good.peer, 'message from the good client');
    expect(msg.kind === 'message' && sameBytes(msg.data, bytes(32, 5))).toBe(true);
    server.transport.send(good.peer, bytes(16, 6), 'reliable');
    await good.events.waitFor((e) => e.kind === 'message', 'reply to the good client');
  });

  it('oversized messages and unknown events disconnect their sender', async () => {
    const server = await startServer({ maxMessageBytes: 1024 });
    const big = await connected(server);
    big.transport.send(bytes(1025, 1), 'reliable');
    const first = await server.events.waitFor((e) => e.kind === 'disconnect', 'oversize disconnect');
    expect(first).toEqual({ kind: 'disconnect', peer: big.peer, reason: expect.stringMatching(/^react-netcode: message of 1025 bytes exceeds maxMessageBytes \(1024\); raise that transport option if your own client/) });
    await big.events.waitFor((e) => e.kind === 'close', 'client close');
    const raw = rawSocket(server.url);
    const rawClosed = new Promise<string>((resolve) => raw.on('disconnect', resolve));
    raw.emit('chat', new Uint8Array(4));
    await bounded(rawClosed, 'raw disconnect');
    const second = await server.events.waitFor((e) => e.kind === 'disconnect' && e.peer !== big.peer, 'unknown event disconnect');
    expect(second.kind === 'disconnect' && second.reason.includes("unknown event 'chat'")).toBe(true);
  });

  it('attaches to an existing io Server and leaves it running on close()', async () => {
    const http = createServer();
    const io = new Server(http, { path: '/netcode', serveClient: false });
    await bounded(new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve)), 'http listen');
    cleanups.push(() => closeIo(io));
    const port = (http.address() as AddressInfo).port;
    const server = await startServer({ io });
    expect(server.port).toBe(port);
    expect(server.transport.io).toBe(io);
    const client = await connected(server);
    server.transport.send(client.peer, bytes(100, 4), 'reliable');
    await client.events.waitFor((e) => e.kind === 'message', 'message over the shared io');
    server.transport.close();
    await client.events.waitFor((e) => e.kind === 'close', 'client close on transport close');
    expect(server.events.events.filter((e) => e.kind === 'disconnect')).toEqual([{ kind: 'disconnect', peer: client.peer, reason: 'server closed' }]);
    // The app's io still accepts connections and its own listeners run.
    const appConnection = new Promise<void>((resolve) => io.once('connection', () => resolve()));
    const raw = rawSocket(`http://127.0.0.1:${port}`);
    await bounded(new Promise<void>((resolve) => raw.on('connect', () => resolve())), 'raw connect after close');
    await bounded(appConnection, 'app connection');
    expect(raw.connected).toBe(true);
  });

  it('before its engine listens, the transport admits at most 16 connections at a time (to be told why); the next gets HTTP 403', async () => {
    const transport = createSocketIoServerTransport({ port: 0, host: '127.0.0.1' });
    const { port } = await transport.ready();
    cleanups.push(() => { transport.close(); return closeIo(transport.io); });
    // A Manager opened without a namespace holds an engine.io connection that never reaches socket.io's middleware.
    const managers: Manager[] = [];
    const open = () => new Promise<boolean>((resolve) => {
      const m = new Manager(`http://127.0.0.1:${port}`, { path: '/netcode', transports: ['websocket'], reconnection: false, autoConnect: false });
      managers.push(m);
      m.open((err) => resolve(err === undefined));
    });
    cleanups.push(() => { for (const m of managers) m.engine?.close(); });
    for (let i = 0; i < 16; i++) expect(await bounded(open(), `connection ${i + 1}`)).toBe(true);
    expect(await bounded(open(), 'the 17th')).toBe(false); // refused in allowRequest
    managers[0]!.engine.close();
    await waitUntil(() => transport.io.engine.clientsCount < 16, 'the server to see one close');
    expect(await bounded(open(), 'one more after a close')).toBe(true);
  });

  it('transports attached to one io one after another leave one middleware on it, passing everything once they closed', async () => {
    const http = createServer();
    const io = new Server(http, { path: '/netcode', serveClient: false });
    await bounded(new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve)), 'http listen');
    cleanups.push(() => closeIo(io));
    for (let i = 0; i < 3; i++) createSocketIoServerTransport({ io }).close();
    expect((io.of('/') as unknown as { _fns: unknown[] })._fns).toHaveLength(1);
    const appConnection = new Promise<void>((resolve) => io.once('connection', () => resolve()));
    rawSocket(`http://127.0.0.1:${(http.address() as AddressInfo).port}`);
    await bounded(appConnection, 'the app\'s own connection, past the closed transports\' gate');
  });

  it('reconnects after close, with a new PeerId', async () => {
    const server = await startServer();
    const client = await connected(server);
    client.transport.close('again');
    const openFrom = client.events.mark();
    await server.events.waitFor((e) => e.kind === 'disconnect', 'server disconnect');
    client.connect();
    await client.events.waitFor((e) => e.kind === 'open', 'second open', openFrom);
    const second = await server.events.waitFor((e) => e.kind === 'connect' && e.peer !== client.peer, 'second connect');
    expect(second.kind === 'connect' && second.peer > client.peer).toBe(true);
    client.transport.send(bytes(20, 8), 'unreliable');
    const msg = await server.events.waitFor((e) => e.kind === 'message', 'message after reconnect');
    expect(msg.kind === 'message' && msg.peer === second.peer).toBe(true);
    expect(() => client.connect()).toThrow(/^react-netcode: connect\(\) called while a connection is active/);
  });

  /** A port nothing listens on (a server was there a moment ago). */
  async function deadPort(): Promise<number> {
    const probe = createSocketIoServerTransport({ port: 0, host: '127.0.0.1' });
    const { port } = await probe.ready();
    probe.close();
    await closeIo(probe.io);
    return port;
  }

  it('reports a failed connection once, saying where it tried, and ignores send before open', async () => {
    const port = await deadPort();
    const client = startClient(`http://127.0.0.1:${port}`, { retry: false });
    client.transport.send(bytes(4, 0), 'reliable'); // not open: ignored
    const closed = await client.events.waitFor((e) => e.kind === 'close', 'connect_error close');
    const where = `http://127.0.0.1:${port} (socket.io path '/netcode', transports websocket)`;
    expect(closed.kind === 'close' && closed.reason).toMatch(new RegExp(`^react-netcode: could not connect to ${escape(where)} in one attempt: `));
    expect(closed.kind === 'close' && closed.reason).toMatch(/check the URL and path, that the game server is running/);
    expect(client.events.count((e) => e.kind === 'open')).toBe(0);
    expect(client.events.count((e) => e.kind === 'close')).toBe(1);
  });

  it('a URL without a scheme: the failure says which URL socket.io-client tried and what to write', async () => {
    const port = await deadPort();
    const client = startClient(`127.0.0.1:${port}`, { retry: false });
    const closed = await client.events.waitFor((e) => e.kind === 'close', 'connect_error close');
    expect(closed.kind === 'close' && closed.reason).toContain(
      `check the URL (the URL has no scheme, so outside a page socket.io-client tried https://127.0.0.1:${port}: write http://127.0.0.1:${port} if the server is not on TLS) and path`,
    );
  });

  it('an option either transport does not have is refused, naming the nearest one', () => {
    expect(() => createSocketIoServerTransport({ prot: 3000 } as never)).toThrow(
      'react-netcode: createSocketIoServerTransport has no option "prot" (did you mean "port"?); its options are io, port, host, path,',
    );
    expect(() => createSocketIoClientTransport('http://127.0.0.1:1', { retries: false } as never)).toThrow(
      'react-netcode: createSocketIoClientTransport has no option "retries" (did you mean "retry"?)',
    );
    expect(() => createSocketIoClientTransport(3000 as never)).toThrow("react-netcode: createSocketIoClientTransport needs the server's URL, e.g. 'http://localhost:3000'; got 3000.");
  });

  it('a server whose engine has not begun to run: the client is told so, and connects once it listens', async () => {
    const transport = createSocketIoServerTransport({ port: 0, host: '127.0.0.1' });
    const { port } = await transport.ready();
    cleanups.push(() => { transport.close(); return closeIo(transport.io); });
    const refused = startClient(`http://127.0.0.1:${port}`, { retry: false });
    const closed = await refused.events.waitFor((e) => e.kind === 'close', 'the refusal');
    expect(closed.kind === 'close' && closed.reason).toMatch(/in one attempt: the game server is not accepting connections yet: its engine has not begun to run \(call server\.start\(\)/);
    const events = new Recorder<ServerEvent>();
    transport.listen({ onConnect: (peer) => events.push({ kind: 'connect', peer }), onMessage: () => {}, onDisconnect: () => {} });
    const client = startClient(`http://127.0.0.1:${port}`, { retry: false });
    await client.events.waitFor((e) => e.kind === 'open', 'open once listening');
    await events.waitFor((e) => e.kind === 'connect', 'the server sees it');
  });

  it('an attempt to a host that takes the TCP connection and never answers gives up after 5 s (socket.io alone waits 20 s)', async () => {
    const silent = createNetServer(() => {}); // accepts, says nothing: a frozen or black-holed host
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets: NetSocket[] = [];
    silent.on('connection', (socket) => sockets.push(socket));
    cleanups.push(() => new Promise<void>((resolve) => { sockets.forEach((socket) => socket.destroy()); silent.close(() => resolve()); }));
    const started = performance.now();
    const client = startClient(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, { retry: false });
    await waitUntil(() => client.events.count((e) => e.kind === 'close') === 1, 'the attempt to time out', 25_000);
    const waited = performance.now() - started;
    const closed = await client.events.waitFor((e) => e.kind === 'close', 'the close');
    expect(waited).toBeGreaterThanOrEqual(4500); // DEFAULT_CONNECT_TIMEOUT_MS, 5000
    expect(waited).toBeLessThan(15_000); // well before socket.io's own 20 s
    expect(closed.kind === 'close' && closed.reason).toMatch(/in one attempt: timeout/);
  }, 30_000);

  it('retries a connection that cannot be opened, then reports the attempts', async () => {
    const port = await deadPort();
    const started = performance.now();
    const client = startClient(`http://127.0.0.1:${port}`, { retry: { attempts: 3, minDelayMs: 100, maxDelayMs: 150 } });
    const closed = await client.events.waitFor((e) => e.kind === 'close', 'close after the last attempt');
    // Two delays (100 and 150 ms, each at least 75 % of that) passed between the three attempts.
    expect(performance.now() - started).toBeGreaterThanOrEqual(0.75 * (100 + 150));
    expect(closed.kind === 'close' && closed.reason).toMatch(/^react-netcode: could not connect to .* in 3 attempts over \d+\.\d s: /);
    expect(client.events.count((e) => e.kind === 'close')).toBe(1);
  });

  it("tries the engine's attempt to resume once (its own schedule within the grace), however many retries `retry` allows", async () => {
    const refuser = await refuseConnections();
    const transport = createSocketIoClientTransport(`http://127.0.0.1:${refuser.port}`, { retry: { attempts: 50, minDelayMs: 20, maxDelayMs: 50 } });
    cleanups.push(() => transport.close('test over'));
    const reasons: string[] = [];
    transport.connect({ onOpen: () => {}, onMessage: () => {}, onClose: (reason) => reasons.push(reason) }, { resume: true });
    await waitUntil(() => reasons.length === 1, 'the one attempt to fail');
    expect(reasons[0]).toMatch(/^react-netcode: could not connect to .* in one attempt: /);
    expect(refuser.attempts).toBe(1);
    // A first connection (no intent) still retries.
    transport.connect({ onOpen: () => {}, onMessage: () => {}, onClose: (reason) => reasons.push(reason) });
    await waitUntil(() => refuser.attempts >= 3, 'retries');
    expect(reasons).toHaveLength(1);
    await refuser.close();
  });

  it('connects once a server that starts after the client is up', async () => {
    const refuser = await refuseConnections(); // the port, with no game server on it yet
    const client = startClient(`http://127.0.0.1:${refuser.port}`, { retry: { attempts: 50, minDelayMs: 20, maxDelayMs: 50 } });
    await waitUntil(() => refuser.attempts >= 3, 'three failed attempts');
    expect(client.events.events).toEqual([]); // still trying: nothing reported
    await refuser.close();
    const server = await startServer({ port: refuser.port });
    await client.events.waitFor((e) => e.kind === 'open', 'open once the server is up');
    await server.events.waitFor((e) => e.kind === 'connect', 'server connect');
    client.transport.send(bytes(12, 3), 'reliable');
    const msg = await server.events.waitFor((e) => e.kind === 'message', 'a message over the late link');
    expect(msg.kind === 'message' && msg.data.byteLength).toBe(12);
  });

  it('close() while retrying stops the attempts and reports once', async () => {
    const refuser = await refuseConnections();
    cleanups.push(() => void refuser.close());
    const client = startClient(`http://127.0.0.1:${refuser.port}`, { retry: { attempts: 50, minDelayMs: 20, maxDelayMs: 20 } });
    await waitUntil(() => refuser.attempts >= 2, 'two failed attempts');
    client.transport.close('gave up');
    const after = refuser.attempts;
    // Ten retry delays (at most 25 ms each): an attempt left running would have knocked again by now.
    await new Promise((r) => setTimeout(r, 250));
    expect(refuser.attempts - after).toBeLessThanOrEqual(1); // at most the one already on its way
    expect(client.events.events).toEqual([{ kind: 'close', reason: 'gave up' }]);
  });

  it('rejects retry options that cannot work', () => {
    expect(() => createSocketIoClientTransport('http://127.0.0.1:1', { retry: { attempts: 0 } })).toThrow(/^react-netcode: retry.attempts must be an integer >= 1/);
    expect(() => createSocketIoClientTransport('http://127.0.0.1:1', { retry: { minDelayMs: 10, maxDelayMs: 5 } })).toThrow(/^react-netcode: retry needs 0 <= minDelayMs <= maxDelayMs/);
  });

  it('close() before open reports once and never opens', async () => {
    const server = await startServer();
    const client = startClient(server.url);
    client.transport.close('changed my mind');
    expect(client.events.events).toEqual([{ kind: 'close', reason: 'changed my mind' }]);
    // A second client connecting afterwards proves the server is fine; the first never opened.
    await connected(server);
    expect(client.events.count((e) => e.kind === 'open')).toBe(0);
  });

  it('rejects listen() twice', async () => {
    const server = await startServer();
    expect(() => server.transport.listen({ onConnect() {}, onMessage() {}, onDisconnect() {} })).toThrow(/^react-netcode: listen\(\) called twice/);
  });
});
