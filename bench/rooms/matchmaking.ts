// Matchmaking latency, p50 / p99: joinOrCreate over HTTP (createMatchmakerClient → serveRooms on
// 127.0.0.1), with the in-process directory and with a Redis directory (a redis-server started
// here), sequential requests after a warm-up. Run: npx tsx bench/rooms/matchmaking.ts [requests]
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { defineProtocol, field } from '../../src/index.ts';
import { createMatchmakerClient, defineRoom, type Directory } from '../../src/rooms/index.ts';
import { RedisDirectory } from '../../src/rooms/redis/index.ts';
import { serveRooms } from '../../src/socket-io/index.ts';

const n = Number(process.argv[2] ?? 1000);
const protocol = defineProtocol({ join: { name: field.string(8) } });
const room = defineRoom('bench', { protocol, maxClients: 8 });

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function measure(label: string, directory?: Directory): Promise<void> {
  const served = serveRooms({ rooms: [room], host: '127.0.0.1', port: 0, log: () => {}, seatLapseMs: 600_000, ...(directory ? { directory } : {}) });
  const { port } = await served.ready();
  const mm = createMatchmakerClient(`http://127.0.0.1:${port}/matchmake`);
  for (let i = 0; i < 50; i++) await mm.joinOrCreate('bench');
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await mm.joinOrCreate('bench');
    times.push(performance.now() - t0);
  }
  const direct: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await served.rooms.matchmaker.joinOrCreate('bench');
    direct.push(performance.now() - t0);
  }
  served.close();
  const q = (a: number[], p: number): string => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * p))]!.toFixed(3);
  console.log(`| ${label} | HTTP | ${n} | ${q(times, 0.5)} | ${q(times, 0.99)} |`);
  console.log(`| ${label} | in process (no HTTP) | ${n} | ${q(direct, 0.5)} | ${q(direct, 0.99)} |`);
}

console.log('| directory | path | requests | p50 ms | p99 ms |\n|---|---|---|---|---|');
await measure('in-process (MemoryDirectory)');
const port = await freePort();
const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 300));
const directory = new RedisDirectory({ url: `redis://127.0.0.1:${port}` });
await measure('Redis (RedisDirectory, local redis-server)', directory);
directory.close();
redis.kill('SIGKILL');
process.exit(0);
