// Demo server entry: one port (PORT, default 3000) serving the browser client from demo/dist
// when it has been built, /healthz, /metrics, HTTP matchmaking (/matchmake: quick play,
// private matches, join by code, the open rooms) and the socket.io netcode endpoint (path
// /netcode) of every match room (serveRooms; the room type is ./rooms.ts, the game in each
// room ./game.ts). Run with `npm start`: rooms live in this process; with REDIS_URL set they
// live in that Redis (a cluster; PUBLIC_URL is where clients reach this process).
// SIGTERM drains: no new rooms or players, each room closes when its match is over (at
// most DEMO_DRAIN_MS, default 150 s), then the process exits; SIGINT (or a second SIGTERM)
// closes at once. DEMO_LINK_MS, DEMO_JITTER_MS and DEMO_LOSS add a conditioned link to
// every connection. DEMO_WEBRTC=1 offers pages that ask (?webrtc) a WebRTC data channel.

import { createReadStream, existsSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { conditionServer, realTimeScheduler } from '../../src/index.ts';
import type { Directory, Room } from '../../src/rooms/index.ts';
import { serveRooms } from '../../src/socket-io/index.ts';
import { createWebRtcServerTransport } from '../../src/webrtc/index.ts';
import { describeLink, linkFromEnv, linkOptions } from '../shared/link.ts';
import { initRapier } from '../shared/rapier-init.ts';
import { arenaRoom, matchOver } from './rooms.ts';

await initRapier(); // the physics' WASM, before the first tick

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '0.0.0.0';
const staticRoot = join(import.meta.dirname, '..', 'dist');
const drainMs = Number(process.env.DEMO_DRAIN_MS ?? 150_000);

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
};

/** Serves a file of the built client (demo/dist) if there is one for this URL; index.html for '/'. */
function serveStatic(url: string, res: ServerResponse): boolean {
  if (!existsSync(staticRoot)) return false;
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.split('?')[0] ?? '/');
  } catch {
    return false;
  }
  const relative = normalize(pathname === '/' ? '/index.html' : pathname);
  const file = join(staticRoot, relative);
  if (!file.startsWith(staticRoot + sep)) return false;
  if (!existsSync(file) || !statSync(file).isFile()) return false;
  const immutable = relative.startsWith(`${sep}assets${sep}`);
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  createReadStream(file).pipe(res);
  return true;
}

/** How late the event loop ran (a starved process, a blocking call): its maximum is reported, and reset, by each /healthz. */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

/** /healthz: the rooms and, over all of them, connections, the latest tick, the worst tick timings and the overruns. */
function health(rooms: readonly Room[]): Record<string, unknown> {
  let connections = 0, webrtc = 0, tick = 0, tickMeanMs = 0, tickP99Ms = 0, overruns = 0;
  for (const room of rooms) {
    const stats = room.server.stats;
    connections += room.server.connections.size;
    tick = Math.max(tick, room.server.currentTick);
    tickMeanMs = Math.max(tickMeanMs, stats.meanMs);
    tickP99Ms = Math.max(tickP99Ms, stats.p99Ms);
    overruns += stats.overruns;
    for (const c of room.server.connections.values()) if (room.server.transportStats(c)?.unreliablePath === 'webrtc') webrtc++;
  }
  const loopDelayMaxMs = loopDelay.max / 1e6;
  loopDelay.reset();
  return { ok: true, rooms: rooms.length, connections, webrtc, tick, tickMeanMs, tickP99Ms, overruns, loopDelayMaxMs };
}

// DEMO_LINK_MS / DEMO_JITTER_MS / DEMO_LOSS: a bad link for every client, added here (docs/demo.md).
const link = linkFromEnv(process.env);
const seed = Number(process.env.DEMO_LINK_SEED ?? 1) >>> 0;
const webrtcOn = process.env.DEMO_WEBRTC === '1';
if (link !== undefined) console.log(`link conditioner on every connection: ${describeLink(link)} (seed ${seed})`);

const redisUrl = process.env.REDIS_URL;
const directory: (Directory & { close?: () => void }) | undefined = redisUrl
  ? new (await import('../../src/rooms/redis/index.ts')).RedisDirectory({ url: redisUrl })
  : undefined;
const publicUrl = process.env.PUBLIC_URL ?? (redisUrl ? `http://localhost:${port}` : undefined);

const served = serveRooms({
  rooms: [arenaRoom({ log: (message) => console.log(message) })],
  port,
  host,
  scheduler: realTimeScheduler,
  ...(directory ? { directory } : {}),
  ...(publicUrl ? { url: publicUrl } : {}),
  // DEMO_WEBRTC=1: clients that ask (the page's ?webrtc) get a WebRTC data channel for the unreliable channel (docs/transports.md).
  ...(link === undefined && !webrtcOn ? {} : {
    wrapTransport: (t) => {
      const base = webrtcOn ? createWebRtcServerTransport(t) : t;
      return link === undefined ? base : conditionServer(base, { seed, ...linkOptions(link) }, realTimeScheduler);
    },
  }),
  onRequest: (req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(health(served.rooms.rooms)));
      return;
    }
    if ((req.method === 'GET' || req.method === 'HEAD') && serveStatic(req.url ?? '/', res)) return;
    res.writeHead(req.url === '/' ? 200 : 404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('react-netcode demo server (client not built: run `npm start` or `npm run build:demo`). Matchmaking at /matchmake, the netcode endpoint is socket.io at path /netcode, health at /healthz.\n');
  },
});
const ready = await served.ready();
console.log(`react-netcode demo server listening on http://localhost:${ready.port} (matchmaking: /matchmake, netcode: socket.io path /netcode, health: /healthz, metrics: /metrics${redisUrl ? `, rooms in ${redisUrl}` : ''})`);

let closing = false;
function close(): void {
  if (closing) return;
  closing = true;
  served.close('server shutting down');
  directory?.close?.();
  setTimeout(() => process.exit(0), 500).unref(); // time for the close message to leave before the sockets do (generous: the host may be busy)
}

let draining = false;
function drain(): void {
  if (draining) return close();
  draining = true;
  console.log(`SIGTERM: draining (no new rooms or players; each room closes when its match is over, at most ${drainMs} ms)`);
  const overTimer = setInterval(() => {
    for (const room of served.rooms.rooms) if (matchOver(room)) served.rooms.dispose(room, 'server shutting down: the match is over');
  }, 250);
  void served.rooms.drain({ maxWaitMs: drainMs, reason: 'server shutting down' }).then(() => {
    clearInterval(overTimer);
    console.log('drained: closing');
    close();
  });
}
process.on('SIGTERM', drain);
process.on('SIGINT', () => {
  console.log('SIGINT: closing');
  close();
});
