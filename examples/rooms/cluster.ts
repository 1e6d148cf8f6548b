// `npm run cluster -- 3`: a local cluster of N room-server processes (examples/rooms/server.ts)
// sharing one Redis — REDIS_URL's, or a redis-server started here on a free port without
// persistence. Process i listens on BASE_PORT + i (default 3000 + i). Ctrl-C (or SIGTERM) drains
// every process and stops the Redis it started.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const n = Math.max(1, Number(process.argv[2] ?? 3));
const basePort = Number(process.env.BASE_PORT ?? 3000);
const children: ChildProcess[] = [];
let redis: ChildProcess | undefined;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

let redisUrl = process.env.REDIS_URL;
if (redisUrl === undefined) {
  const port = await freePort();
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  redis.once('error', (e) => {
    console.error(`react-netcode: could not start redis-server (${e.message}); install it (apt-get install redis-server) or set REDIS_URL.`);
    process.exit(1);
  });
  redisUrl = `redis://127.0.0.1:${port}`;
  await new Promise((r) => setTimeout(r, 300));
  console.log(`redis-server started at ${redisUrl}`);
}

for (let i = 0; i < n; i++) {
  const port = basePort + i;
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'server.ts')], {
    stdio: 'inherit',
    env: { ...process.env, PORT: String(port), REDIS_URL: redisUrl, PUBLIC_URL: `http://localhost:${port}` },
  });
  children.push(child);
}

const stop = (): void => {
  for (const child of children) child.kill('SIGTERM');
  const exited = children.map((c) => new Promise((r) => (c.exitCode !== null ? r(0) : c.once('exit', r))));
  void Promise.all(exited).then(() => {
    redis?.kill('SIGTERM');
    process.exit(0);
  });
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
