// serveRooms: a room server on one port — one socket.io transport shared by every room, and
// matchmaking over plain HTTP on the same port (`POST /matchmake/joinOrCreate` …, long-polled
// `GET /matchmake/rooms`), plus a Prometheus `/metrics` endpoint. Matchmaking is HTTP, not a
// socket.io event, because a client asks before it knows which process owns its room: any
// process (or a load balancer in front of them) can answer a stateless request, and a retry
// with the same requestId is safe.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { NetcodeError } from '../core/errors.ts';
import type { ServerTransport } from '../core/transport.ts';
import type { RoomMetadata } from '../rooms/directory.ts';
import { MatchmakingError, type CreateOptions, type Matchmaker } from '../rooms/matchmaker.ts';
import { createMatchmakerClient } from '../rooms/matchmaker-client.ts';
import type { Seat } from '../rooms/seat.ts';
import { RoomServer, type RoomServerOptions } from '../rooms/room-server.ts';
import { metricsText } from '../rooms/room-stats.ts';
import { createSocketIoServerTransport, type SocketIoServerTransport, type SocketIoServerTransportOptions } from './server.ts';

export interface ServeRoomsOptions extends Omit<RoomServerOptions, 'transport'> {
  /** Port (0 = any free one; default 0) and host (default '0.0.0.0'). */
  port?: number;
  host?: string;
  /** Options of the socket.io transport (path, message and buffer limits). */
  socket?: Omit<SocketIoServerTransportOptions, 'io' | 'port' | 'host' | 'onRequest'>;
  /** Prefix of the matchmaking routes (default '/matchmake'). */
  matchmakePath?: string;
  /** Path of the Prometheus text endpoint (default '/metrics'; false: none). */
  metricsPath?: string | false;
  /** Sent as Access-Control-Allow-Origin on matchmaking answers, for a game page served from another origin (default: none). */
  allowOrigin?: string;
  /** Other HTTP requests (the game's own files, health checks); default: 404. */
  onRequest?: (req: IncomingMessage, res: ServerResponse) => void;
  /** Start the shared loop at once (default true). */
  start?: boolean;
  /** Wrap the socket.io transport before the rooms use it (e.g. conditionServer, for a simulated bad link); default none. */
  wrapTransport?: (transport: SocketIoServerTransport) => ServerTransport;
}

export interface ServedRooms {
  readonly rooms: RoomServer;
  readonly transport: SocketIoServerTransport;
  /** Resolves with the port once listening (and, with `workers`, once every worker loaded the room types; else rejects with why). */
  ready(): Promise<{ port: number }>;
  /** Close every room (players are told why) and the port. */
  close(reason?: string): void;
}

const MAX_BODY_BYTES = 4096;
const STATUS: Record<string, number> = { 'unknown-type': 404, 'not-found': 404, full: 409, locked: 409, draining: 503, 'bad-request': 400, unavailable: 503 };

export function serveRooms(options: ServeRoomsOptions): ServedRooms {
  const prefix = (options.matchmakePath ?? '/matchmake').replace(/\/+$/, '');
  const metricsPath = options.metricsPath ?? '/metrics';
  const box: { rooms?: RoomServer } = {};
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0]!;
    const rooms = box.rooms;
    if (rooms !== undefined && path.startsWith(`${prefix}/`)) return void handle(rooms.matchmaker, req, res, path.slice(prefix.length), options.allowOrigin);
    if (rooms !== undefined && metricsPath !== false && path === metricsPath && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metricsText(rooms.stats()));
      return;
    }
    if (options.onRequest) return options.onRequest(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };
  const transport = createSocketIoServerTransport({
    ...options.socket,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.host === undefined ? {} : { host: options.host }),
    onRequest,
  });
  const forwardCreate = (url: string, type: string, create: CreateOptions): Promise<Seat> =>
    createMatchmakerClient(`${url}${prefix}`, { attempts: 2 }).create(type, { ...create, here: true });
  const wrapped = options.wrapTransport ? options.wrapTransport(transport) : transport;
  const server = new RoomServer({ forwardCreate, ...options, transport: wrapped });
  box.rooms = server;
  if (options.start !== false) server.start();
  const ready = async (): Promise<{ port: number }> => {
    await server.ready(); // with workers: every worker has loaded the module of room types
    return transport.ready();
  };
  return { rooms: server, transport, ready, close: (reason) => server.close(reason) };
}

async function handle(
  mm: Matchmaker, req: IncomingMessage, res: ServerResponse, route: string, allowOrigin: string | undefined,
): Promise<void> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  if (allowOrigin !== undefined) Object.assign(headers, { 'access-control-allow-origin': allowOrigin, 'access-control-allow-headers': 'content-type' });
  const reply = (status: number, body: unknown): void => void res.writeHead(status, headers).end(JSON.stringify(body));
  if (req.method === 'OPTIONS') return reply(204, {});
  try {
    if (route === '/rooms' && req.method === 'GET') {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const type = q.get('type') ?? undefined;
      const since = q.has('since') ? Number(q.get('since')) : undefined;
      const waitMs = Math.min(30_000, Math.max(0, Number(q.get('waitMs') ?? 25_000)));
      const abort = new AbortController();
      res.once('close', () => abort.abort());
      const list = await mm.rooms(type === undefined ? undefined : text(type, 'type', 64), {
        ...(since !== undefined && Number.isFinite(since) ? { since } : {}),
        waitMs: Number.isFinite(waitMs) ? waitMs : 25_000,
        signal: abort.signal,
      });
      return reply(200, list);
    }
    if (req.method !== 'POST') return reply(404, { reason: 'bad-request', message: `react-netcode: no matchmaking route ${req.method} ${route}; see docs/rooms.md.` });
    const body = await readJson(req);
    const requestId = optional(body.requestId, (v) => text(v, 'requestId', 128));
    const ro = requestId === undefined ? {} : { requestId };
    if (route === '/joinOrCreate') {
      const filter = optional(body.filter, metadata);
      return reply(200, await mm.joinOrCreate(text(body.type, 'type', 64), { ...ro, ...(filter ? { filter } : {}) }));
    }
    if (route === '/create') {
      const md = optional(body.metadata, metadata);
      const create = { ...ro, ...(md ? { metadata: md } : {}), private: body.private === true, here: body.here === true };
      return reply(200, await mm.create(text(body.type, 'type', 64), create));
    }
    if (route === '/join') return reply(200, await mm.join(text(body.roomId, 'roomId', 64), ro));
    if (route === '/joinByCode') return reply(200, await mm.joinByCode(text(body.code, 'code', 16), ro));
    return reply(404, { reason: 'bad-request', message: `react-netcode: no matchmaking route POST ${route}; see docs/rooms.md.` });
  } catch (error) {
    if (error instanceof MatchmakingError) return reply(STATUS[error.reason] ?? 400, { reason: error.reason, message: error.message });
    const what = (error instanceof Error ? error.message : String(error)).replace(/^react-netcode: /, '').replace(/[.;\s]+$/, '');
    return reply(503, { reason: 'unavailable', message: `react-netcode: matchmaking failed on the server (${what}); retry with the same requestId.` });
  }
}

function bad(message: string): MatchmakingError {
  return new MatchmakingError('bad-request', `react-netcode: bad matchmaking request: ${message}.`);
}

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(bad(`body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      try {
        const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('the body must be a JSON object');
        resolve(value as Record<string, unknown>);
      } catch (error) {
        reject(error instanceof NetcodeError ? error : bad('the body is not JSON'));
      }
    });
  });
}

function optional<T>(value: unknown, check: (v: unknown) => T): T | undefined {
  return value === undefined || value === null ? undefined : check(value);
}

function text(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw bad(`${name} must be a string of 1 to ${max} characters`);
  return value;
}

/** Metadata and filters: at most 16 keys, each a short string, number or boolean. */
function metadata(value: unknown): RoomMetadata {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('filter and metadata must be objects');
  const entries = Object.entries(value);
  if (entries.length > 16) throw bad('filter and metadata have at most 16 keys');
  const out: Record<string, string | number | boolean> = {};
  for (const [key, v] of entries) {
    if (key.length > 64) throw bad(`key "${key.slice(0, 16)}…" is over 64 characters`);
    if (typeof v === 'string' ? v.length > 128 : typeof v === 'number' ? !Number.isFinite(v) : typeof v !== 'boolean') throw bad(`"${key}" must be a string (≤ 128), a finite number or a boolean`);
    out[key] = v;
  }
  return out;
}
