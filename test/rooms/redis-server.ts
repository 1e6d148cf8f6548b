// A throwaway redis-server for tests: on 127.0.0.1, a free port, no persistence; started and
// stopped by the test itself. `redisMissing` says why Redis tests are skipped when it is absent.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { connect } from 'node:net';

export const REDIS_SERVER = '/usr/bin/redis-server';
export const redisMissing = existsSync(REDIS_SERVER) ? undefined : `${REDIS_SERVER} is not installed (apt-get install redis-server): Redis tests skipped`;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export class TestRedis {
  private child: ChildProcess | undefined;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<TestRedis> {
    const redis = new TestRedis(await freePort());
    await redis.restart();
    return redis;
  }

  /** (Re)start the server on the same port; resolves once it answers PING. */
  async restart(): Promise<void> {
    this.child = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await ping(this.port))) {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not answer PING within 10 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Kill the server (SIGKILL: its data is gone, as after a crash without persistence). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
  });
}
