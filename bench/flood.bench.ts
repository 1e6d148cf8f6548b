// Flood benchmark: 8 players play the fuzz game against react-netcode's server (socket.io on
// 127.0.0.1, in the load harness's server process, flood mode: bench/load/flood/flood-server.ts) while a flooder in another process keeps 10,000 sockets open that
// never finish the handshake. Measured in the server process over the window: tick time
// (p50/p99/max, every tick), RSS growth (at the end and at most), the most peers pending and
// file descriptors open at once, the heap still retained after a GC; and whether the players saw
// a snapshot gap or an error.
// Cases: no flood; socket.io sockets that never say Hello with the default limits, and with the
// limits off; bare TCP sockets that never send a byte. Run through bench/run.ts; prints a table
// and, last, one `BENCH {json}` line.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createSocketIoClientTransport } from '../src/socket-io/client.ts';
import type { FloodFigures } from './load/flood/flood-server.ts';
import { GoodClient } from './load/fuzz/good-client.ts';
import { ServerProcess } from './load/server-control.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FLOODER = fileURLToPath(new URL('./load/flood/flooder.ts', import.meta.url));
const PLAYERS = 8;
const SOCKETS = 10_000;
const CONCURRENCY = 256;
const WARM_UP_MS = 2000;
const WINDOW_MS = 12_000; // longer than handshakeTimeoutMs / connectTimeout / headersTimeout (10 s): the timeouts fire inside it
/** Descriptors each process needs beyond the flood's sockets (players, IPC, module files, the HTTP server). */
const FD_MARGIN = 512;

type Result = { case: string; system: string } & Record<string, number | string | null>;
type FloodReport = { attempts: number; accepted: number; refused: number; closedByServer: number; errors: number; openMax: number };

/** The soft limit on open files of this process (children inherit it). */
function openFileLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  const soft = Number(line?.split(/\s+/)[3]);
  return Number.isFinite(soft) ? soft : 1024;
}

function flooderProcess(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', FLOODER, ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function next<T>(p: ChildProcess, type: string, timeoutMs = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`react-netcode: flood bench: no '${type}' from a child within ${timeoutMs} ms; is the machine overloaded?`)), timeoutMs);
    const on = (m: { type: string }) => {
      if (m.type !== type) return;
      clearTimeout(timer);
      p.off('message', on);
      resolve(m as T);
    };
    p.on('message', on);
  });
}

async function ended(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => (p.kill('SIGKILL'), resolve()), 5000);
    p.once('exit', () => (clearTimeout(timer), resolve()));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runCase(name: string, flood: 'socketio' | 'tcp' | undefined, limitsOff: boolean, sockets: number): Promise<Result> {
  const server = ServerProcess.spawn({ timeoutMs: 60_000 });
  const port = await server.start({ mode: 'flood', limitsOff });
  const players = Array.from({ length: PLAYERS }, () => new GoodClient(createSocketIoClientTransport(`http://127.0.0.1:${port}`), () => {}, () => performance.now()));
  const frames = setInterval(() => players.forEach((p) => p.frame(performance.now())), 1000 / 60);
  let flooder: ChildProcess | undefined;
  try {
    const by = performance.now() + 30_000;
    while (!players.every((p) => p.inGame) && performance.now() < by) await sleep(20);
    if (!players.every((p) => p.inGame)) throw new Error('react-netcode: flood bench: the players could not join.');
    await sleep(WARM_UP_MS);
    await server.mark();
    const before = players.map((p) => p.report());
    let floodReport: FloodReport | undefined;
    const started = performance.now();
    if (flood) {
      flooder = flooderProcess([String(port), String(sockets), String(CONCURRENCY), flood]);
      await next(flooder, 'ready');
      flooder.send({ type: 'start' });
    }
    await sleep(WINDOW_MS);
    const seconds = (performance.now() - started) / 1000;
    if (flooder) {
      flooder.send({ type: 'stop' });
      floodReport = await next<FloodReport>(flooder, 'report');
    }
    const s: FloodFigures = (await server.report()).flood!;
    const after = players.map((p) => p.report());
    const gaps = after.reduce((n, a, i) => n + a.snapshotGaps - before[i]!.snapshotGaps, 0);
    const errors = after.reduce((n, a, i) => n + a.stateErrors.length - before[i]!.stateErrors.length, 0);
    const snapshots = after.reduce((n, a, i) => n + a.snapshots - before[i]!.snapshots, 0);
    const r = (v: number, d = 2) => Number(v.toFixed(d));
    return {
      case: name,
      system: 'react-netcode',
      ticks: s.ticks,
      tickP50Ms: r(s.tickP50Ms, 3),
      tickP99Ms: r(s.tickP99Ms, 3),
      tickMaxMs: r(s.tickMaxMs, 1),
      rssGrowthMB: r(s.rssEndMB - s.rssMarkMB, 1),
      rssPeakGrowthMB: r(s.rssMaxMB - s.rssMarkMB, 1),
      heapRetainedGrowthMB: r(s.heapEndMB - s.heapMarkMB, 1),
      pendingPeersMax: s.pendingMax,
      openFdsMax: s.fdMax,
      floodAttempts: floodReport?.attempts ?? 0,
      floodAttemptsPerSec: r((floodReport?.attempts ?? 0) / seconds, 0),
      floodAccepted: floodReport?.accepted ?? 0,
      floodOpenMax: floodReport?.openMax ?? 0,
      floodRefused: floodReport?.refused ?? 0,
      floodClosedByServer: floodReport?.closedByServer ?? 0,
      playerSnapshots: snapshots,
      playerSnapshotGaps: gaps,
      playerErrors: errors,
    };
  } finally {
    clearInterval(frames);
    for (const p of players) p.client.leave('bench over');
    if (flooder) {
      if (flooder.connected) flooder.send({ type: 'stop' });
      await ended(flooder);
    }
    await server.exit();
  }
}

export async function run(): Promise<void> {
  const limit = openFileLimit();
  const sockets = Math.max(100, Math.min(SOCKETS, limit - FD_MARGIN));
  if (sockets < SOCKETS) console.log(`Note: the open-file limit is ${limit} (ulimit -n); each process needs ${SOCKETS} + ${FD_MARGIN} for the full flood, so this run floods with ${sockets} sockets. Raise it with \`ulimit -n ${SOCKETS + FD_MARGIN}\`.`);
  else console.log(`open-file limit ${limit} (ulimit -n): enough for ${SOCKETS} sockets in the server and in the flooder.`);
  const results: Result[] = [];
  results.push(await runCase('8 players, no flood', undefined, false, 0));
  results.push(await runCase(`8 players + ${sockets} socket.io sockets that never say Hello, default limits`, 'socketio', false, sockets));
  results.push(await runCase(`8 players + ${sockets} socket.io sockets that never say Hello, limits off`, 'socketio', true, sockets));
  results.push(await runCase(`8 players + ${sockets} TCP sockets that never send a byte, default limits`, 'tcp', false, sockets));
  console.table(results.map(({ case: name, tickP50Ms, tickP99Ms, tickMaxMs, rssGrowthMB, heapRetainedGrowthMB, pendingPeersMax, openFdsMax, floodAttemptsPerSec, floodAccepted, playerSnapshotGaps, playerErrors }) => ({ case: name, tickP50Ms, tickP99Ms, tickMaxMs, rssGrowthMB, heapRetainedGrowthMB, pendingPeersMax, openFdsMax, floodAttemptsPerSec, floodAccepted, playerSnapshotGaps, playerErrors })));
  console.log(`BENCH ${JSON.stringify({ bench: 'flood', results })}`);
}
