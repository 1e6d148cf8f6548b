// The game server: one port serves the page and the netcode (socket.io at /netcode).
// `npm start` builds the client and serves it (dist/); `npm run dev` serves it through Vite,
// with reload. PORT (default 3000) and HOST (default localhost) choose where it listens.
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { Server } from 'socket.io';
import { createServer } from 'react-netcode';
import { createSocketIoServerTransport } from 'react-netcode/socket-io';
import { COLOURS, protocol, systems } from './src/shared.ts';

const dev = process.argv.includes('--dev');
const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? 'localhost';
const dist = join(import.meta.dirname, 'dist');
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

const http = createHttpServer();
if (dev) {
  const { createServer: createVite } = await import('vite');
  const vite = await createVite({ root: import.meta.dirname, server: { middlewareMode: true, hmr: { server: http } }, appType: 'spa' });
  http.on('request', vite.middlewares);
} else {
  http.on('request', async (req, res) => {
    const path = normalize(new URL(req.url ?? '/', 'http://x').pathname.replace(/\/$/, '/index.html'));
    try {
      const body = await readFile(join(dist, path));
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found (run `npm run build` first)\n');
    }
  });
}

// destroyUpgrade: false leaves other WebSocket upgrades (Vite's reload socket) alone.
const io = new Server(http, { path: '/netcode', serveClient: false, destroyUpgrade: false });
const server = createServer({ protocol, systems, transport: createSocketIoServerTransport({ io }) });
server.events.on('join', (connection) => {
  const x = ((connection.networkId * 3) % 9) - 4;
  const colour = connection.networkId % COLOURS.length;
  // A ghost owned by a connection is despawned when that player leaves for good.
  server.spawn('player', { position: { x, y: 0, z: 2 }, colour }, { owner: connection.networkId });
});
server.start();
http.listen(port, host, () => console.log(`starter listening on http://${host}:${(http.address() as AddressInfo).port}`));
