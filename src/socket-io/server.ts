// Server half of the socket.io transport: adapts a socket.io Server to the
// ServerTransport interface the server engine talks to. A client that speaks netcode
// frames (frames.ts) gets and sends each message as one frame; any other client uses
// event 'r' for the reliable channel and event 'u' for the unreliable one (plain emits).
// Either way an unreliable message is dropped (and counted) only under backpressure
// (backpressure.ts).
// New connections are admitted in engine.io's `allowRequest`, before any socket exists,
// when the server engine says it takes one (pending handshakes and rate under their caps);
// before the engine listens, or while it is busy, a few are let through to be told why in
// socket.io's middleware (the rest get HTTP 403).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import type { Socket } from 'socket.io';
import { checkOptionNames, describeError, NetcodeError } from '../core/errors.ts';
import { toBytes } from './bytes.ts';
import type { Channel, PeerId, ServerTransport, ServerTransportHandler, TransportStats } from '../core/transport.ts';
import { backedUp, bufferedBytes, checkMaxBufferedBytes } from './backpressure.ts';
import { BYE_EVENT, encodeFrame, FRAMES_QUERY, interceptFrames, MAX_BYE_LENGTH, type DataEmitter } from './frames.ts';

export interface SocketIoServerTransportOptions {
  /**
   * Attach to an existing Server (the app may serve HTTP on the same port). `port`, `host`, `path` and
   * `maxHttpBufferSize` are then the app's.
   */
  io?: Server;
  /** Otherwise create a Server listening on this port (0 = ephemeral; default 0). */
  port?: number;
  /** Host to listen on when creating the Server (default '0.0.0.0'). */
  host?: string;
  /** socket.io path when creating the Server (default '/netcode'). */
  path?: string;
  /** Larger messages disconnect their sender (default 64 KiB). */
  maxMessageBytes?: number;
  /**
   * Unreliable messages to a peer are dropped (counted in `peerStats`) while more than this many bytes
   * wait to be written to it (default 64 KiB).
   */
  maxBufferedBytes?: number;
  /**
   * When creating the Server: an engine.io connection that has not joined socket.io's namespace after this long is closed
   * (socket.io's `connectTimeout`; default 10,000 ms, socket.io's own is 45,000).
   */
  connectTimeoutMs?: number;
  /**
   * When creating the Server: serve the other HTTP requests on the same port (socket.io answers its
   * own path first), e.g. matchmaking routes or the game's files. Default: none (they hang up unanswered).
   */
  onRequest?: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface SocketIoServerTransport extends ServerTransport {
  readonly io: Server;
  /** Resolves once listening (immediately when attached to an existing `io`: the port is then its HTTP server's, or 0 if unknown). */
  ready(): Promise<{ port: number }>;
  /** The remote address of a peer's socket (socket.io's `handshake.address`), undefined for an unknown peer. */
  peerAddress(peer: PeerId): string | undefined;
  /** Drops every peer (onDisconnect 'server closed'). Closes the io and HTTP server only when this transport created them. */
  close(): void;
}

const DEFAULT_PATH = '/netcode';
const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024;

/** The part of engine.io's Server this transport uses. */
interface EngineLike {
  opts: { allowRequest?: (req: IncomingMessage, fn: (err: string | null | undefined, success: boolean) => void) => void };
  on(event: 'connection', fn: (raw: RawConnection) => void): void;
  off(event: 'connection', fn: (raw: RawConnection) => void): void;
}

/** A peer that does not answer the WebSocket close handshake keeps its socket this long at most (ws itself waits 30 s). */
const CLOSE_GRACE_MS = 1000;

/**
 * Disconnect `socket`, first saying `reason` (the bye event: a socket.io disconnect carries none); if its WebSocket
 * is still open after CLOSE_GRACE_MS (a peer that never answers the close), terminate it.
 */
function hangUp(socket: Socket | undefined, reason?: string): void {
  if (socket === undefined) return;
  if (reason !== undefined) socket.emit(BYE_EVENT, reason.slice(0, MAX_BYE_LENGTH));
  const ws = (socket.conn as unknown as { transport?: { socket?: { readyState?: number; terminate?: () => void } } }).transport?.socket;
  socket.disconnect(true);
  if (ws?.terminate === undefined) return;
  setTimeout(() => {
    if (ws.readyState !== 3) ws.terminate!(); // 3: CLOSED
  }, CLOSE_GRACE_MS).unref();
}

function portOf(io: Server): number {
  const address = (io.httpServer as { address?: () => AddressInfo | string | null } | undefined)?.address?.();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/** The io Server to use (the app's, or one listening on its own HTTP server) and when it is ready. */
type Opened = { io: Server; readyPromise: Promise<{ port: number }> };

function openServer(options: SocketIoServerTransportOptions, maxMessageBytes: number): Opened {
  if (options.io !== undefined) return { io: options.io, readyPromise: Promise.resolve({ port: portOf(options.io) }) };
  // A TCP connection that never sends its request headers is dropped after 10 s, checked every
  // second (Node: 60 s, checked every 30 s).
  const httpOptions = { connectionsCheckingInterval: 1000 };
  const http = options.onRequest ? createServer(httpOptions, options.onRequest) : createServer(httpOptions);
  http.headersTimeout = 10_000;
  // Headroom: polling base64-encodes binary (4/3) and adds packet framing.
  const maxHttpBufferSize = Math.ceil((maxMessageBytes * 4) / 3) + 1024;
  const connectTimeout = options.connectTimeoutMs ?? 10_000;
  const io = new Server(http, { path: options.path ?? DEFAULT_PATH, serveClient: false, maxHttpBufferSize, connectTimeout });
  const readyPromise = new Promise<{ port: number }>((resolve, reject) => {
    http.once('error', (err) => reject(new NetcodeError('transport', `react-netcode: the socket.io server could not listen: ${err.message}; pick a free port (0 = any) or another host, or pass your own io.`)));
    http.listen(options.port ?? 0, options.host ?? '0.0.0.0', () => resolve({ port: portOf(io) }));
  });
  readyPromise.catch(() => {}); // reported through ready(); do not crash when nobody asks
  return { io, readyPromise };
}

/**
 * Connections admitted at most at once only to be refused with a message (before the engine listens, or while it is
 * busy), which the client receives: a refused WebSocket upgrade (HTTP 403) tells it only "websocket error". The rest get HTTP 403.
 */
const MAX_TOLD_AT_ONCE = 16;

const NOT_LISTENING =
  'react-netcode: the game server is not accepting connections yet: its engine has not begun to run (call server.start(), or drive server.update(now) / server.tick())';
const BUSY =
  'react-netcode: the server is busy: too many connections are opening at once (its maxPendingPeers / maxHandshakesPerSecond limits); try again in a few seconds.';

/** The gate socket.io's middleware asks, one per io (middleware cannot be removed: a transport that closes empties it). */
const gates = new WeakMap<Server, { check: ((socket: Socket) => Error | undefined) | undefined }>();

/** An engine.io connection as this transport sees it: its close, and the request that opened it. */
type RawConnection = { once(event: 'close', fn: () => void): void; request?: IncomingMessage };

/**
 * Admission in engine.io's `allowRequest`, before any socket exists: a new connection is refused unless the server
 * engine's `canConnect` takes it, counting the engine.io connections admitted that have not reached socket.io's
 * `connection` yet. Wraps an `allowRequest` the app set. A refused connection is admitted all the same, up to
 * MAX_TOLD_AT_ONCE at a time, to be refused in socket.io's middleware of the default namespace with a message saying
 * why (NOT_LISTENING, BUSY); beyond that it gets HTTP 403. socket.io closes a connection that joined no namespace after
 * its connectTimeout (10 s by default here), which frees its place among the told.
 */
function admit(io: Server, handlerOf: () => ServerTransportHandler | null): { connected(socket: Socket): void; release(): void } {
  const opening = new Set<object>();
  const told = new Set<object>();
  const refusals = new WeakMap<object, string>(); // request → why it is admitted only to be told
  const engine = io.engine as EngineLike | undefined;
  const previous = engine?.opts.allowRequest;
  let gate = gates.get(io);
  if (gate === undefined) {
    const created: { check: ((socket: Socket) => Error | undefined) | undefined } = { check: undefined };
    gates.set(io, (gate = created));
    io.use((socket, next) => next(created.check?.(socket)));
  }
  const check = (socket: Socket): Error | undefined => {
    const why = handlerOf() === null ? NOT_LISTENING : refusals.get(socket.request);
    refusals.delete(socket.request); // told once: a retry on the same connection goes on to the engine's own checks
    return why === undefined ? undefined : new Error(`react-netcode: ${describeError(why)}`);
  };
  gate.check = check;
  const onEngineConnection = (raw: RawConnection): void => {
    const set = raw.request !== undefined && refusals.has(raw.request) ? told : opening;
    set.add(raw);
    raw.once('close', () => set.delete(raw));
  };
  if (engine !== undefined) {
    engine.opts.allowRequest = (req, fn) => {
      const handler = handlerOf();
      const busy = handler !== null && handler.canConnect !== undefined && !handler.canConnect(opening.size);
      const refusal = handler === null ? NOT_LISTENING : busy ? BUSY : null;
      if (refusal === null) {
        if (previous !== undefined) previous(req, fn);
        else fn(null, true);
      } else if (told.size >= MAX_TOLD_AT_ONCE) fn(refusal, false);
      else {
        refusals.set(req, refusal);
        fn(null, true);
      }
    };
    engine.on('connection', onEngineConnection);
  }
  return {
    connected: (socket) => void opening.delete(socket.conn),
    release: () => {
      if (gate.check === check) gate.check = undefined;
      if (engine === undefined) return;
      engine.off('connection', onEngineConnection);
      if (previous !== undefined) engine.opts.allowRequest = previous;
      else delete engine.opts.allowRequest;
    },
  };
}

/** Whether `io` parses with socket.io's default parser (text packets): netcode frames are sorted out of its packets. */
function defaultParser(io: Server): boolean {
  try {
    const encoder = (io as unknown as { encoder?: { encode?: (packet: unknown) => unknown[] } }).encoder;
    const out = encoder?.encode?.({ type: 2, nsp: '/', data: ['r'] });
    return typeof out?.[0] === 'string';
  } catch {
    return false;
  }
}

/** A connected peer: its socket, and whether it speaks netcode frames. */
interface Peer {
  readonly socket: Socket;
  readonly frames: boolean;
  readonly stats: TransportStats;
}

const allocFrame = (n: number): Uint8Array => Buffer.allocUnsafe(n);

/** Write one message to a peer: a frame or a plain emit; an unreliable one dropped (counted) while the link is backed up. */
/**
 * Write `data` to `p`, or drop it (unreliable, while the link is backed up). Returns why the peer must be dropped
 * instead: reliable messages are never dropped, so to a peer that reads nothing they would pile up without bound.
 */
function write(p: Peer, data: Uint8Array, channel: Channel, maxBuffered: number): string | undefined {
  let stuck: string | undefined;
  if (channel === 'unreliable' && bufferedBytes(p.socket.conn) > maxBuffered) p.stats.unreliableDropped++;
  else if (channel === 'reliable' && (stuck = backedUp(p.socket.conn)) !== undefined) return stuck;
  else if (p.frames) p.socket.conn.write(encodeFrame(data, channel, allocFrame) as Buffer);
  else p.socket.emit(channel === 'reliable' ? 'r' : 'u', data);
  return undefined;
}

/** Why a received event is not acceptable (null: it is). */
function violationOf(event: string, channel: Channel | null, data: Uint8Array | null, maxMessageBytes: number): string | null {
  if (channel === null) return `unknown event '${event}' (only 'r' and 'u' are accepted)`;
  if (data === null) return `non-binary payload on '${event}' (send a Uint8Array)`;
  if (data.byteLength > maxMessageBytes) {
    return `message of ${data.byteLength} bytes exceeds maxMessageBytes (${maxMessageBytes}); raise that transport option if your own client sends messages this large`;
  }
  return null;
}

/** Why a peer over socket.io's size limit was closed (ws closes the WebSocket, the polling transport answers HTTP 413). */
function oversizeReason(io: Server, maxMessageBytes: number, owned: boolean): string {
  const limit = (io.engine as { opts?: { maxHttpBufferSize?: number } } | undefined)?.opts?.maxHttpBufferSize;
  const where = owned ? `set from the transport's maxMessageBytes (${maxMessageBytes}); raise that option` : 'of your io; raise it';
  return `react-netcode: a message over socket.io's ${limit ?? 'maxHttpBufferSize'}-byte limit (maxHttpBufferSize, ${where} if your own client sends messages this large)`;
}

/**
 * Calls `onClose` once `socket` disconnects, with socket.io's reason and why engine.io or socket.io closed it for what
 * it sent (null: not for that): over the size limit ("Max payload size exceeded" from ws, "payload too large" from
 * polling), or a packet socket.io's decoder failed on (its 'error', then a forced close).
 */
function watchClose(socket: Socket, oversize: string, onClose: (reason: string, why: string | null) => void): void {
  let malformed: string | undefined;
  socket.on('error', (err: Error) => void (malformed = err.message));
  socket.once('disconnect', (reason: string, description: unknown) => {
    const detail = description instanceof Error ? description.message : String(description ?? '');
    if (malformed !== undefined) onClose(reason, `react-netcode: malformed socket.io packet (${malformed}); a client must speak socket.io or netcode frames`);
    else onClose(reason, reason === 'transport error' && /max payload size exceeded|payload too large/i.test(detail) ? oversize : null);
  });
}

function checkMaxMessageBytes(value: number | undefined): number {
  const n = value ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isInteger(n) || n <= 0) throw new NetcodeError('usage', `react-netcode: maxMessageBytes must be a positive integer, got ${String(value)}.`);
  return n;
}

/** Every option name (the type makes the list complete). */
const SERVER_OPTIONS: readonly string[] = Object.keys({
  io: true, port: true, host: true, path: true, maxMessageBytes: true, maxBufferedBytes: true, connectTimeoutMs: true, onRequest: true,
} satisfies Record<keyof SocketIoServerTransportOptions, true>);

export function createSocketIoServerTransport(options: SocketIoServerTransportOptions = {}): SocketIoServerTransport {
  checkOptionNames(options, SERVER_OPTIONS, 'createSocketIoServerTransport');
  const maxMessageBytes = checkMaxMessageBytes(options.maxMessageBytes);
  const owned = options.io === undefined;
  const { io, readyPromise } = openServer(options, maxMessageBytes);
  const oversize = oversizeReason(io, maxMessageBytes, owned);
  let handler: ServerTransportHandler | null = null;
  let closed = false;
  let nextPeer: PeerId = 1;
  const maxBuffered = checkMaxBufferedBytes(options.maxBufferedBytes);
  const peers = new Map<PeerId, Peer>();
  const framesSupported = owned || defaultParser(io);
  const admission = admit(io, () => (closed ? null : handler));

  /** Forget `peer` and report it once; returns the socket if it was still known. */
  const drop = (peer: PeerId, reason: string): Socket | undefined => {
    const socket = peers.get(peer)?.socket;
    if (socket === undefined) return undefined;
    peers.delete(peer);
    socket.offAny();
    handler?.onDisconnect(peer, reason);
    return socket;
  };

  /** A message received from `peer` on `event`: handed on, or the peer dropped for what is wrong with it. */
  const deliver = (peer: PeerId, event: string, channel: Channel | null, data: Uint8Array | null): void => {
    if (!peers.has(peer)) return;
    const violation = violationOf(event, channel, data, maxMessageBytes);
    if (violation !== null || channel === null || data === null) {
      const reason = `react-netcode: ${violation ?? 'protocol violation'}`;
      handler?.onPeerError?.(peer, reason);
      return hangUp(drop(peer, reason), reason);
    }
    handler?.onMessage(peer, data, channel);
  };

  const onConnection = (socket: Socket): void => {
    admission.connected(socket);
    if (handler === null || closed) {
      socket.disconnect(true);
      return;
    }
    const peer = nextPeer++;
    const frames = framesSupported && socket.handshake.query[FRAMES_QUERY] === '1';
    peers.set(peer, { socket, frames, stats: { unreliableDropped: 0 } });
    if (frames) interceptFrames(socket.conn as unknown as DataEmitter, (data, channel) => deliver(peer, channel === 'reliable' ? 'r' : 'u', channel, data));
    socket.onAny((event: string, ...args: unknown[]) => {
      const channel: Channel | null = event === 'r' ? 'reliable' : event === 'u' ? 'unreliable' : null;
      deliver(peer, event, channel, args.length === 1 ? toBytes(args[0]) : null);
    });
    watchClose(socket, oversize, (reason, why) => {
      if (why !== null && peers.has(peer)) handler?.onPeerError?.(peer, why);
      drop(peer, why ?? reason);
    });
    handler.onConnect(peer);
  };
  io.on('connection', onConnection);

  return {
    io,
    ready: () => readyPromise,
    listen(next: ServerTransportHandler): void {
      if (closed) throw new NetcodeError('usage', 'react-netcode: listen() after close(); create a new transport.');
      if (handler !== null) throw new NetcodeError('usage', 'react-netcode: listen() called twice on the same socket.io server transport; give each server its own transport.');
      handler = next;
    },
    send(peer: PeerId, data: Uint8Array, channel: Channel): void {
      const p = peers.get(peer), stuck = p === undefined ? undefined : write(p, data, channel, maxBuffered);
      if (stuck !== undefined) hangUp(drop(peer, stuck), stuck);
    },
    peerStats: (peer) => peers.get(peer)?.stats,
    peerAddress: (peer) => peers.get(peer)?.socket.handshake.address,
    disconnect(peer: PeerId, reason: string): void {
      hangUp(drop(peer, reason), reason);
    },
    close(): void {
      if (closed) return;
      closed = true;
      for (const peer of [...peers.keys()]) hangUp(drop(peer, 'server closed'));
      handler = null;
      io.off('connection', onConnection);
      admission.release();
      if (owned) void io.close();
    },
  };
}
