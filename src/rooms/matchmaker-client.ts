// The matchmaker over HTTP, for clients (browsers, headless Node): the same Matchmaker
// interface as the room server's own, speaking to serveRooms' routes (`POST {url}/joinOrCreate`
// …, `GET {url}/rooms`). A request that fails on the network or with a 5xx is retried with the
// same requestId, so a retry never takes a second seat.

import { NetcodeError } from '../core/errors.ts';
import {
  MatchmakingError, randomId, refusalMessage,
  type CreateOptions, type JoinOrCreateOptions, type Matchmaker, type MatchmakingReason, type RequestOptions, type RoomList,
} from './matchmaker.ts';
import type { Seat } from './seat.ts';

export interface MatchmakerClientOptions {
  /** Attempts per request, the first included (default 3). */
  attempts?: number;
  /** Delay before a retry (default 300 ms, doubled each time). */
  retryDelayMs?: number;
  /** A request without an answer after this long is retried (default 10,000 ms). */
  timeoutMs?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof globalThis.fetch;
}

const REASONS: ReadonlySet<string> = new Set(['unknown-type', 'not-found', 'full', 'locked', 'draining', 'bad-request', 'unavailable']);

/** `url` made absolute: a relative one ('/matchmake') against the page's address, where there is a page. */
function absolute(url: string): string {
  if (typeof url !== 'string') throw new NetcodeError('usage', `react-netcode: createMatchmakerClient needs the matchmaker's URL, e.g. '/matchmake' in a page or 'http://localhost:3000/matchmake'; got ${String(url)}.`);
  const page = (globalThis as { location?: { href?: unknown } }).location?.href;
  try {
    return new URL(url, typeof page === 'string' ? page : undefined).href;
  } catch {
    throw new NetcodeError('usage', `react-netcode: createMatchmakerClient(${JSON.stringify(url)}) is not a URL${typeof page === 'string' ? '' : ' (outside a page a relative URL has no base)'}; pass a full one, e.g. 'http://localhost:3000/matchmake'.`);
  }
}

/**
 * A Matchmaker that talks to a room server's HTTP routes at `url` (e.g. `http://host:3000/matchmake`, or
 * `/matchmake` in a page: relative to the page's address). Every seat it returns has a `url`: the room's
 * own, else the origin of `url`.
 */
export function createMatchmakerClient(url: string, options: MatchmakerClientOptions = {}): Matchmaker {
  const base = absolute(url).replace(/\/+$/, '');
  const fetchFn = options.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== 'function') throw new NetcodeError('usage', 'react-netcode: createMatchmakerClient needs fetch (Node ≥ 18, every browser) or options.fetch.');
  const attempts = Math.max(1, Math.floor(options.attempts ?? 3));
  const retryDelayMs = options.retryDelayMs ?? 300;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const origin = new URL(base).origin;

  /** One request, retried; each attempt ends after `limitMs` unless `init.signal` (the caller's) ends it first. */
  const request = async <T>(route: string, init: RequestInit, what: string, limitMs = timeoutMs): Promise<T> => {
    let last = 'no attempt';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await new Promise((r) => setTimeout(r, retryDelayMs * 2 ** (attempt - 2)));
      let res: Response;
      try {
        res = await fetchFn(`${base}${route}`, init.signal ? init : { ...init, signal: AbortSignal.timeout(limitMs) });
      } catch (error) {
        if ((init.signal as AbortSignal | undefined)?.aborted) throw error;
        last = error instanceof Error ? error.message : String(error);
        continue;
      }
      const body = (await res.json().catch(() => undefined)) as { reason?: string; message?: string } | undefined;
      if (res.ok) return body as T;
      const known = typeof body?.reason === 'string' && REASONS.has(body.reason);
      if (res.status >= 500) {
        // The server's own words, without its advice (this client retries, and says what to do once, below).
        const told = typeof body?.message === 'string' ? `: ${body.message.replace(/^react-netcode: /, '').replace(/[;,]?\s*retry[^;]*\.?$/i, '')}` : '';
        last = `HTTP ${res.status}${told}`;
        continue;
      }
      if (!known) {
        // 404 / 405: nothing there answers matchmaking; other statuses (a proxy's 413 or 429, say) as they are.
        const where = res.status === 404 || res.status === 405
          ? `; is ${base} the matchmaker's URL? (serveRooms serves it under /matchmake, e.g. http://host:port/matchmake)`
          : ' (from something in between, not the matchmaker)';
        throw new MatchmakingError('bad-request', `react-netcode: ${base}${route} answered HTTP ${res.status}, not a matchmaking reply${where}`);
      }
      const reason = body!.reason as MatchmakingReason;
      throw new MatchmakingError(reason, typeof body?.message === 'string' ? body.message : refusalMessage(reason, what));
    }
    throw new MatchmakingError('unavailable', `react-netcode: the matchmaker is unavailable (${base}${route}, ${attempts} attempt${attempts === 1 ? '' : 's'}: ${last}); try again in a moment (pass the same requestId to each try of one request, so it never gets two seats).`);
  };

  const post = async (route: string, body: Record<string, unknown>, what: string): Promise<Seat> => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    const seat = await request<Seat>(route, init, what);
    return seat.url === undefined ? { ...seat, url: origin } : seat;
  };
  const id = (o: RequestOptions): string => o.requestId ?? randomId();

  return {
    joinOrCreate: (type, o: JoinOrCreateOptions = {}) => post('/joinOrCreate', { type, filter: o.filter, requestId: id(o) }, type),
    create: (type, o: CreateOptions = {}) => post('/create', { type, metadata: o.metadata, private: o.private, here: o.here, requestId: id(o) }, type),
    join: (roomId, o: RequestOptions = {}) => post('/join', { roomId, requestId: id(o) }, roomId),
    joinByCode: (code, o: RequestOptions = {}) => post('/joinByCode', { code, requestId: id(o) }, `with code ${code}`),
    rooms: (type, o = {}) => {
      const q = new URLSearchParams();
      if (type !== undefined) q.set('type', type);
      if (o.since !== undefined) q.set('since', String(o.since));
      if (o.waitMs !== undefined) q.set('waitMs', String(o.waitMs));
      return request<RoomList>(`/rooms?${q.toString()}`, o.signal ? { signal: o.signal } : {}, type ?? 'rooms', (o.waitMs ?? 25_000) + timeoutMs);
    },
  };
}
