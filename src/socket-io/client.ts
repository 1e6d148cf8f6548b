// Client half of the socket.io transport: adapts a socket.io-client Socket to the
// ClientTransport interface the client engine talks to. It asks for netcode frames
// (frames.ts: one WebSocket frame per message) and sends them once the server has
// answered with one; until then, and with a server that does not speak them, events
// 'r' (reliable) and 'u' (unreliable) as plain emits. An unreliable message is
// dropped (and counted) only under backpressure (backpressure.ts).
// A connection that cannot be opened is retried with growing delays (`retry`) before
// it is reported closed; a link that was open and dropped is the engine's to resume,
// and each of its resume attempts is tried once (the engine's schedule, within its grace).
import { io } from 'socket.io-client';
import type { ManagerOptions, Socket, SocketOptions } from 'socket.io-client';
import { checkOptionNames, describeError, NetcodeError } from '../core/errors.ts';
import type { Channel, ClientTransport, ClientTransportHandler, ConnectIntent, TransportStats } from '../core/transport.ts';
import { bufferedBytes, checkMaxBufferedBytes } from './backpressure.ts';
import { toBytes } from './bytes.ts';
import { BYE_EVENT, encodeFrame, FRAMES_QUERY, interceptFrames, MAX_BYE_LENGTH, type DataEmitter } from './frames.ts';

export interface SocketIoClientTransportOptions {
  /** socket.io path (default '/netcode'), must match the server's. */
  path?: string;
  /**
   * Extra socket.io-client options. `transports` defaults to ['websocket']; `autoConnect`, `reconnection`
   * and `forceNew` are owned by the transport. With a `parser` of your own the transport sends plain
   * emits only (no netcode frames; the server's io must then use the same parser).
   */
  socket?: Partial<ManagerOptions & SocketOptions>;
  /** Unreliable messages are dropped (counted in `stats`) while more than this many bytes wait to be written (default 64 KiB). */
  maxBufferedBytes?: number;
  /**
   * How `connect()` retries a connection that cannot be opened (server down or restarting, wrong URL):
   * default { attempts: 10, minDelayMs: 500, maxDelayMs: 5000 } — about 30 s of delays, plus each attempt's wait (refused at
   * once by a host with nothing listening; at most `socket.timeout`, 5 s by default, from a host that never answers:
   * about 80 s in all then); `false` tries once. An attempt to
   * resume a dropped session is tried once: the engine retries it on its own schedule (`reconnectDelaysMs`).
   */
  retry?: ConnectRetryOptions | false;
}

/** Retries of a connection that cannot be opened; the delays double from minDelayMs up to maxDelayMs, each ±25 % at random. */
export interface ConnectRetryOptions {
  /** Attempts in all, the first one included (default 10; 1 = no retry). */
  attempts?: number;
  /** Delay before the second attempt (default 500 ms). */
  minDelayMs?: number;
  /** Longest delay between two attempts (default 5000 ms). */
  maxDelayMs?: number;
}

const DEFAULT_PATH = '/netcode';
/**
 * How long one attempt to open the link waits (socket.io's `timeout`, whose own default is 20 s): a host that takes
 * the TCP connection and never answers (frozen, black-holed) would otherwise hold a first connect of 10 attempts for
 * minutes. `socket: { timeout }` overrides it.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
const DEFAULT_RETRY: Required<ConnectRetryOptions> = { attempts: 10, minDelayMs: 500, maxDelayMs: 5000 };

/** The retry options, checked; `false` is one attempt. */
function retryPolicy(retry: ConnectRetryOptions | false | undefined): Required<ConnectRetryOptions> {
  if (retry === false) return { ...DEFAULT_RETRY, attempts: 1 };
  const r = { ...DEFAULT_RETRY, ...retry };
  if (!Number.isInteger(r.attempts) || r.attempts < 1) throw new NetcodeError('usage', `react-netcode: retry.attempts must be an integer >= 1 (1 = no retry), got ${r.attempts}.`);
  if (!(r.minDelayMs >= 0) || !(r.maxDelayMs >= r.minDelayMs) || !Number.isFinite(r.maxDelayMs)) {
    throw new NetcodeError('usage', `react-netcode: retry needs 0 <= minDelayMs <= maxDelayMs (finite), got ${r.minDelayMs} and ${r.maxDelayMs}.`);
  }
  return r;
}

/** Delay before attempt `attempt` + 1 (from 1): doubling from minDelayMs, capped, ±25 % so clients of a restarted server spread out. */
function retryDelay(r: Required<ConnectRetryOptions>, attempt: number): number {
  return Math.round(baseDelay(r, attempt) * (0.75 + Math.random() * 0.5));
}

/** The delay before attempt `attempt` + 1 without its ±25 %. */
function baseDelay(r: Required<ConnectRetryOptions>, attempt: number): number {
  return Math.min(r.maxDelayMs, r.minDelayMs * 2 ** (attempt - 1));
}

/** One `connect()`: its socket, its handler, whether it is still reported to, and its attempts to open. */
interface Link {
  readonly socket: Socket;
  readonly handler: ClientTransportHandler;
  open: boolean;
  /** The server has sent a netcode frame: it reads them, so this link sends them too. */
  frames: boolean;
  attempts: number;
  /** Attempts to open it in all: `retry.attempts`, or 1 for the engine's attempt to resume. */
  readonly maxAttempts: number;
  readonly startedAt: number;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
}

/** Write one message: a frame or a plain emit; an unreliable one dropped (counted) while the link is backed up. */
function write(link: Link, data: Uint8Array, channel: Channel, maxBuffered: number, stats: TransportStats): void {
  if (channel === 'unreliable' && bufferedBytes(link.socket.io.engine) > maxBuffered) stats.unreliableDropped++;
  else if (link.frames) link.socket.io.engine.write(encodeFrame(data, channel) as never);
  else link.socket.emit(channel === 'reliable' ? 'r' : 'u', data);
}

/** Take the server's netcode frames off the link's engine; the first one switches the link's own sends to frames. */
function takeFrames(link: Link, onData: (link: Link, channel: Channel, data: Uint8Array) => void): void {
  const engine = link.socket.io.engine as unknown as DataEmitter | undefined;
  if (engine === undefined) return;
  interceptFrames(engine, (data, channel) => {
    link.frames = true;
    onData(link, channel, data);
  });
}

/** Every option name (the type makes the list complete). */
const CLIENT_OPTIONS: readonly string[] = Object.keys({
  path: true, socket: true, maxBufferedBytes: true, retry: true,
} satisfies Record<keyof SocketIoClientTransportOptions, true>);

/** Unknown options and a URL that is no string are refused. */
function checkClientArgs(url: unknown, options: object): void {
  checkOptionNames(options, CLIENT_OPTIONS, 'createSocketIoClientTransport');
  if (typeof url !== 'string') {
    throw new NetcodeError('usage', `react-netcode: createSocketIoClientTransport needs the server's URL, e.g. 'http://localhost:3000'; got ${String(url)}.`);
  }
}

/** A URL without a scheme ('localhost:3000'): socket.io-client takes the page's protocol in a browser, https:// elsewhere. */
const schemeHint = (url: string): string =>
  /^[a-z][\w+.-]*:\/\//i.test(url) || url.startsWith('/') ? '' : ` (the URL has no scheme, so outside a page socket.io-client tried https://${url}: write http://${url} if the server is not on TLS)`;

/** Why `link` could not be opened: the server's refusal (busy, not accepting yet), which says what to do, or the URL advice. */
function connectFailure(url: string, where: string, link: Link, err: Error): string {
  const tries = link.attempts === 1 ? 'in one attempt' : `in ${link.attempts} attempts over ${((Date.now() - link.startedAt) / 1000).toFixed(1)} s`;
  if (err.message.startsWith('react-netcode: ')) return `react-netcode: could not connect to ${where} ${tries}: ${describeError(err)}`;
  return (
    `react-netcode: could not connect to ${where} ${tries}: ${err.message}; check the URL${schemeHint(url)} and path, that the game server is running and reachable from here, ` +
    'and that a proxy in between forwards WebSocket upgrades (the transport option retry sets how long to keep trying).'
  );
}

/** Said after a failed attempt that will be tried again: where, why, and how long the attempts go on. */
function retryNotice(url: string, where: string, link: Link, err: Error, retry: Required<ConnectRetryOptions>): string {
  let leftMs = 0;
  for (let a = link.attempts; a < link.maxAttempts; a++) leftMs += baseDelay(retry, a);
  const why = err.message.startsWith('react-netcode: ') ? describeError(err) : `${err.message}; if it goes on, check the URL${schemeHint(url)} and path and that the game server is running`;
  return `react-netcode: could not connect to ${where} (attempt ${link.attempts} of ${link.maxAttempts}: ${why}); trying again for about ${leftMs < 10_000 ? (leftMs / 1000).toFixed(1) : Math.round(leftMs / 1000)} s more (the transport option retry).`;
}

/** Calls `closed` with why `socket` disconnected: the server's reason when it said one (its bye event), else socket.io's. */
function onDisconnect(socket: Socket, closed: (why: string) => void): void {
  let bye: string | undefined; // the server's reason, said just before it disconnects
  socket.on(BYE_EVENT, (reason: unknown) => {
    if (typeof reason === 'string') bye = reason.slice(0, MAX_BYE_LENGTH);
  });
  socket.on('disconnect', (reason: string) => {
    closed(bye !== undefined && reason === 'io server disconnect' ? `the server closed it: ${describeError(bye).replace(/[.;\s]+$/, '')}` : `socket.io: ${reason}`);
  });
}

export function createSocketIoClientTransport(url: string, options: SocketIoClientTransportOptions = {}): ClientTransport {
  checkClientArgs(url, options);
  const path = options.path ?? options.socket?.path ?? DEFAULT_PATH;
  const maxBuffered = checkMaxBufferedBytes(options.maxBufferedBytes);
  const retry = retryPolicy(options.retry);
  const where = `${url} (socket.io path '${path}', transports ${(options.socket?.transports ?? ['websocket']).join('/')})`;
  const stats: TransportStats = { unreliableDropped: 0 };
  let link: Link | null = null;

  /** Ends `current` once: stop listening, tear the socket down, then report. */
  const finish = (current: Link, reason: string): void => {
    if (link !== current) return;
    link = null;
    current.open = false;
    if (current.retryTimer !== undefined) clearTimeout(current.retryTimer);
    current.socket.off();
    current.socket.disconnect();
    current.handler.onClose(reason);
  };

  /** A failed attempt to open `current`: try again after a delay, or report where it tried and why it failed. */
  const failed = (current: Link, err: Error): void => {
    if (link !== current || current.open) return;
    current.attempts++;
    if (current.attempts < current.maxAttempts) {
      current.handler.onRetry?.(retryNotice(url, where, current, err, retry));
      current.retryTimer = setTimeout(() => {
        current.retryTimer = undefined;
        if (link === current) current.socket.connect();
      }, retryDelay(retry, current.attempts));
      return;
    }
    finish(current, connectFailure(url, where, current, err));
  };

  const onData = (current: Link, channel: Channel, data: Uint8Array | null): void => {
    if (link !== current || !current.open) return;
    if (data === null) {
      const reason = `react-netcode: the server sent a non-binary payload on '${channel === 'reliable' ? 'r' : 'u'}' (not a react-netcode server, or one that emits its own events on the netcode channels)`;
      current.handler.onServerError?.(reason);
      finish(current, reason);
      return;
    }
    current.handler.onMessage(data, channel);
  };

  return {
    stats,
    connect(handler: ClientTransportHandler, intent?: ConnectIntent): void {
      if (link !== null) throw new NetcodeError('usage', 'react-netcode: connect() called while a connection is active; call close() first.');
      const frames = options.socket?.parser === undefined;
      const socket = io(url, {
        transports: ['websocket'],
        timeout: DEFAULT_CONNECT_TIMEOUT_MS,
        ...options.socket,
        ...(frames ? { query: { ...options.socket?.query, [FRAMES_QUERY]: '1' } } : {}),
        path,
        autoConnect: false,
        reconnection: false,
        forceNew: true,
      });
      const maxAttempts = intent?.resume === true ? 1 : retry.attempts;
      const startedAt = Date.now();
      const current: Link = { socket, handler, open: false, frames: false, attempts: 0, maxAttempts, startedAt, retryTimer: undefined };
      link = current;
      socket.on('connect', () => {
        if (link !== current || current.open) return;
        current.open = true;
        if (frames) takeFrames(current, onData);
        handler.onOpen();
      });
      socket.on('r', (...args: unknown[]) => onData(current, 'reliable', args.length === 1 ? toBytes(args[0]) : null));
      socket.on('u', (...args: unknown[]) => onData(current, 'unreliable', args.length === 1 ? toBytes(args[0]) : null));
      socket.on('connect_error', (err: Error) => failed(current, err));
      onDisconnect(socket, (why) => finish(current, `react-netcode: the connection to ${where} closed (${why})`));
      socket.connect();
    },
    send(data: Uint8Array, channel: Channel): void {
      if (link !== null && link.open) write(link, data, channel, maxBuffered, stats);
    },
    close(reason: string): void {
      if (link !== null) finish(link, reason);
    },
  };
}
