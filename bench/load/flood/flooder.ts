// Flood bench, the flooder: a process of its own that keeps `sockets` connections open to the
// server and never finishes a handshake — `socketio`: a WebSocket upgrade to engine.io and
// socket.io's CONNECT, then never a netcode Hello; `tcp`: a TCP connection that never sends a
// byte. Written on bare `net` sockets (a few KB each). A refused or closed socket is replaced,
// `concurrency` opening at a time, until { stop }; then it reports what it saw.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

if (typeof process.send !== 'function') {
  console.error('react-netcode: bench/load/flood/flooder.ts runs as a child with an IPC channel; bench/flood.bench.ts starts it.');
  process.exit(2);
}

const [port, sockets, concurrency, mode] = [Number(process.argv[2]), Number(process.argv[3]), Number(process.argv[4]), process.argv[5] as 'socketio' | 'tcp'];
const stats = { attempts: 0, accepted: 0, refused: 0, closedByServer: 0, errors: 0, openMax: 0 };
let open = 0;
let opening = 0;
let stopped = false;
const live = new Set<Socket>();

/** One masked WebSocket text frame (clients must mask). */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const out = Buffer.alloc(6 + payload.length);
  out[0] = 0x81;
  out[1] = 0x80 | payload.length;
  mask.copy(out, 2);
  for (let i = 0; i < payload.length; i++) out[6 + i] = payload[i]! ^ mask[i % 4]!;
  return out;
}

function one(): void {
  opening++;
  stats.attempts++;
  const socket = connect({ host: '127.0.0.1', port });
  live.add(socket);
  let accepted = false;
  let settled = false;
  const settle = (): void => {
    if (settled) return;
    settled = true;
    opening--;
  };
  socket.on('connect', () => {
    if (mode === 'tcp') {
      accepted = true;
      stats.accepted++;
      open++;
      stats.openMax = Math.max(stats.openMax, open);
      settle();
      pump();
      return;
    }
    socket.write(`GET /netcode/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  });
  socket.on('data', (data: Buffer) => {
    if (accepted || mode === 'tcp') return;
    if (data.toString('latin1', 0, 12) === 'HTTP/1.1 101') {
      accepted = true;
      stats.accepted++;
      open++;
      stats.openMax = Math.max(stats.openMax, open);
      socket.write(textFrame('40')); // socket.io CONNECT to the main namespace; then silence
    } else {
      stats.refused++;
      socket.destroy();
    }
    settle();
    pump();
  });
  socket.on('error', () => void stats.errors++);
  socket.on('close', () => {
    live.delete(socket);
    if (accepted) {
      open--;
      if (!stopped) stats.closedByServer++;
    } else if (!settled) stats.refused++;
    settle();
    pump();
  });
}

/** Keep `sockets` open (or opening), `concurrency` handshakes in flight at most. */
function pump(): void {
  while (!stopped && opening < concurrency && open + opening < sockets) one();
}

process.on('message', (m: { type: string }) => {
  if (m.type === 'start') pump();
  else if (m.type === 'stop') {
    stopped = true;
    process.send!({ type: 'report', ...stats, open });
    for (const s of live) s.destroy();
    setTimeout(() => process.exit(0), 200);
  }
});
process.send({ type: 'ready' });
process.on('disconnect', () => process.exit(0));
