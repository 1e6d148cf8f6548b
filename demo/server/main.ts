// Demo server entry: one HTTP server on PORT (default 3000) serving /healthz and
// the socket.io netcode endpoint, with the authoritative server loop on the real
// clock. Run with `npm start`. SIGTERM/SIGINT tell clients and exit cleanly.

import { createServer as createHttpServer } from 'node:http';
import { Server as IoServer } from 'socket.io';
import { createServer, realTimeScheduler } from '../../src/index.ts';
import { createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { protocol } from '../shared/protocol.ts';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '0.0.0.0';

const http = createHttpServer((req, res) => {
  if (req.url === '/healthz') {
    const stats = server.stats;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, connections: server.connections.size, tick: server.currentTick, tickMeanMs: stats.meanMs, tickP99Ms: stats.p99Ms, overruns: stats.overruns }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('react-netcode demo server. The netcode endpoint is socket.io at path /netcode; health at /healthz.\n');
});

const io = new IoServer(http, { path: '/netcode', serveClient: false, cors: { origin: true } });
const transport = createSocketIoServerTransport({ io });

const server = createServer({
  protocol,
  transport,
  scheduler: realTimeScheduler,
  onJoin: (_connection, payload) => (payload.name.trim().length > 0 ? true : { reject: 'pick a name' }),
});

server.events.on('join', (connection) => {
  server.send(connection, 'welcome', { players: server.connections.size });
  console.log(`player ${connection.networkId} joined as "${connection.joinPayload?.name ?? ''}"`);
});
server.events.on('leave', (connection, reason) => console.log(`player ${connection.networkId} left: ${reason}`));
server.onRpc('say', (connection, { text }) => {
  server.broadcast('said', { from: connection.networkId, name: connection.joinPayload?.name ?? '', text });
});

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
  }, 200).unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
