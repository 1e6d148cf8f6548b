// Demo server entry: one HTTP server on PORT (default 3000) serving /healthz, the
// socket.io netcode endpoint (path /netcode) and, when it has been built, the
// browser client from demo/dist; the authoritative server loop runs on the real
// clock. Run with `npm start`. SIGTERM/SIGINT tell clients and exit cleanly. The game
// itself (config, balls, players, RPCs) is set up by ./game.ts. DEMO_LINK_MS,
// DEMO_JITTER_MS and DEMO_LOSS add a conditioned link to every connection.

import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Server as IoServer } from 'socket.io';
import { conditionServer, createServer, realTimeScheduler } from '../../src/index.ts';
import { createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { createWebRtcServerTransport } from '../../src/webrtc/index.ts';
import { describeLink, linkFromEnv, linkOptions } from '../shared/link.ts';
import { initRapier } from '../shared/rapier-init.ts';
import { protocol } from '../shared/protocol.ts';
import { systems } from '../shared/systems.ts';
import { setupGame } from './game.ts';

await initRapier(); // the physics' WASM, before the first tick

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '0.0.0.0';
const staticRoot = join(import.meta.dirname, '..', 'dist');

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

const http = createHttpServer((req, res) => {
  if (req.url === '/healthz') {
    const stats = server.stats;
    const loopDelayMaxMs = loopDelay.max / 1e6;
    loopDelay.reset();
    res.writeHead(200, { 'content-type': 'application/json' });
    const webrtc = [...server.connections.values()].filter((c) => server.transportStats(c)?.unreliablePath === 'webrtc').length;
    res.end(JSON.stringify({ ok: true, connections: server.connections.size, webrtc, tick: server.currentTick, tickMeanMs: stats.meanMs, tickP99Ms: stats.p99Ms, overruns: stats.overruns, loopDelayMaxMs }));
    return;
  }
  if ((req.method === 'GET' || req.method === 'HEAD') && serveStatic(req.url ?? '/', res)) return;
  res.writeHead(req.url === '/' ? 200 : 404, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('react-netcode demo server (client not built: run `npm start` or `npm run build:demo`). The netcode endpoint is socket.io at path /netcode; health at /healthz.\n');
});

const io = new IoServer(http, { path: '/netcode', serveClient: false, cors: { origin: true } });
// DEMO_LINK_MS / DEMO_JITTER_MS / DEMO_LOSS: a bad link for every client, added here (docs/demo.md).
const link = linkFromEnv(process.env);
const seed = Number(process.env.DEMO_LINK_SEED ?? 1) >>> 0;
// DEMO_WEBRTC=1: clients that ask (the page's ?webrtc) get a WebRTC data channel for the unreliable channel (docs/transports.md).
const base = process.env.DEMO_WEBRTC === '1' ? createWebRtcServerTransport(createSocketIoServerTransport({ io })) : createSocketIoServerTransport({ io });
const transport = link === undefined ? base : conditionServer(base, { seed, ...linkOptions(link) }, realTimeScheduler);
if (link !== undefined) console.log(`link conditioner on every connection: ${describeLink(link)} (seed ${seed})`);

const server = createServer({
  protocol,
  systems,
  transport,
  scheduler: realTimeScheduler,
  onJoin: (_connection, payload) => (payload.name.trim().length > 0 ? true : { reject: 'pick a name' }),
});

setupGame(server, { log: (message) => console.log(message) });

server.start();
http.listen(port, host, () => {
  const address = http.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  console.log(`react-netcode demo server listening on http://localhost:${actual} (netcode: socket.io path /netcode, health: /healthz)`);
});

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: closing`);
  server.close('server shutting down');
  setTimeout(() => {
    io.close();
    http.close(() => process.exit(0));
  }, 500).unref(); // time for the close message to leave before the sockets do (generous: the host may be busy)
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
