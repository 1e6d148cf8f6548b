// Runs one game: game-server.ts and game-clients.ts, each in its own process, inside a
// network namespace (or on 127.0.0.1 when none is given: socket.io and the fallback only).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientResult, GameClientsConfig } from './game-clients.ts';
import type { GameServerConfig } from './game-server.ts';
import type { Netns } from './netns.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');

export interface ServerReport {
  cpuMs: number;
  wallMs: number;
  paths: string[];
  logs: string[];
}

export interface GameRun {
  clients: ClientResult[];
  server: ServerReport;
}

function start(netns: Netns | undefined, script: string, env: Record<string, string>): ChildProcess {
  const args = ['--import', 'tsx', join(HERE, script)];
  const [cmd, ...rest] = netns ? [...netns.prefix, process.execPath, ...args] : [process.execPath, ...args];
  return spawn(cmd!, rest, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
}

/** JSON lines from a child's stdout, one waiter at a time. */
function lines(child: ChildProcess): (key: string, timeoutMs: number) => Promise<unknown> {
  const queue: Record<string, unknown>[] = [];
  let waiting: (() => void) | null = null;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    try {
      queue.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      return;
    }
    waiting?.();
  });
  return async (key, timeoutMs) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const i = queue.findIndex((m) => key in m);
      if (i >= 0) return queue.splice(i, 1)[0]![key];
      if (Date.now() > until || child.exitCode !== null) throw new Error(`react-netcode bench: no '${key}' from ${String(child.spawnargs.at(-1))} within ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        waiting = r;
        setTimeout(r, 100);
      });
    }
  };
}

export async function runGame(netns: Netns | undefined, server: Omit<GameServerConfig, 'host'>, clients: Omit<GameClientsConfig, 'url'>): Promise<GameRun> {
  const host = netns?.host ?? '127.0.0.1';
  const s = start(netns, 'game-server.ts', { RNC_GAME: JSON.stringify({ ...server, host }) });
  const fromServer = lines(s);
  try {
    const port = (await fromServer('ready', 30_000)) as number;
    const c = start(netns, 'game-clients.ts', { RNC_CLIENTS: JSON.stringify({ ...clients, url: `http://${host}:${port}` }) });
    const fromClients = lines(c);
    await new Promise((r) => setTimeout(r, 1500));
    s.stdin!.write('mark\n');
    const result = (await fromClients('result', clients.seconds * 1000 + 30_000)) as ClientResult[];
    s.stdin!.write('report\n');
    const report = (await fromServer('report', 10_000)) as ServerReport;
    return { clients: result, server: report };
  } finally {
    s.stdin!.write('exit\n');
    await new Promise((r) => setTimeout(r, 500));
    if (s.exitCode === null) s.kill();
  }
}
