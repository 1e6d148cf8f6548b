// Real-path benchmark: react-netcode over socket.io on 127.0.0.1 — its server in its
// own process, headless clients on their own frame loops (bench/load) — at 1, 8 and
// 32 clients and 20, 30 and 60 frames/s, beside raw socket.io `emit` of payloads of
// the same sizes at the same rates (measured in the same run, right after each case).
// Run through bench/run.ts; prints a table and, last, one `BENCH {json}` line.
import { histogramPercentile, round } from './load/measure.ts';
import { runRawScenario } from './load/raw-clients.ts';
import { runScenario, type ScenarioRun } from './load/scenario.ts';
import { ServerProcess } from './load/server-control.ts';

const CLIENTS = [1, 8, 32];
const FPS = [20, 30, 60];
const ACTIVE_MS = 3000;

type Result = { case: string; system: 'react-netcode' | 'socket.io' } & Record<string, number | string | null>;

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const mean = (xs: readonly number[]): number => (xs.length === 0 ? Number.NaN : sum(xs) / xs.length);

function netcodeRow(name: string, run: ScenarioRun): Result {
  const { clients, server } = run;
  const stepMs = 1000 / server.tickRate;
  const arrivals = new Array<number>(64).fill(0);
  for (const c of server.connections) c.arrivals?.forEach((n, i) => (arrivals[i] = (arrivals[i] ?? 0) + n));
  const early = (p: number): number => round(histogramPercentile(arrivals, p) * stepMs, 1);
  const seconds = (server.at - server.markAt) / 1000;
  return {
    case: name,
    system: 'react-netcode',
    framesPerSec: round(mean(clients.map((c) => c.framesPerSec)), 1),
    inputTicks: round((run.measuredMs / 1000) * server.tickRate * clients.length, 0),
    inputsLost: sum(clients.map((c) => c.inputsMissing)),
    inputsLostUnexplained: sum(clients.map((c) => c.unexplained.length)),
    snapshotsSent: sum(clients.map((c) => c.sentSnapshotTicks.length)),
    snapshotsLost: sum(clients.map((c) => c.lostSnapshotTicks.length)),
    inputEarlyMsP1: early(0.01),
    inputEarlyMsP50: early(0.5),
    inputEarlyMsP99: early(0.99),
    upBytesPerSecPerClient: round(mean(clients.map((c) => c.upBytesPerSec)), 0),
    downBytesPerSecPerClient: round(mean(clients.map((c) => c.downBytesPerSec)), 0),
    upWritesPerSecPerClient: round(mean(clients.map((c) => c.upWritesPerSec)), 1),
    downWritesPerSecPerClient: round(mean(clients.map((c) => c.downWritesPerSec)), 1),
    upWireBytesPerSecPerClient: round(server.wire.bytesRead / seconds / clients.length, 0),
    downWireBytesPerSecPerClient: round(server.wire.bytesWritten / seconds / clients.length, 0),
    maxClientStallMs: round(Math.max(...clients.map((c) => c.player.maxStallMs)), 0),
    maxServerStallMs: round(server.maxStallMs, 0),
  };
}

async function rawRow(server: ServerProcess, name: string, clients: number, fps: number, like: Result): Promise<Result> {
  const per = (bytes: unknown, writes: unknown): number => Math.max(4, Math.round(Number(bytes) / Math.max(1e-9, Number(writes))));
  const downHz = Math.max(1, Number(like.downWritesPerSecPerClient));
  const run = await runRawScenario(server, {
    clients,
    fps,
    upBytes: per(like.upBytesPerSecPerClient, like.upWritesPerSecPerClient),
    downBytes: per(like.downBytesPerSecPerClient, like.downWritesPerSecPerClient),
    downHz,
    activeMs: ACTIVE_MS,
  });
  const seconds = (run.server.at - run.server.markAt) / 1000;
  const c = run.clients;
  return {
    case: name,
    system: 'socket.io',
    framesPerSec: round(mean(c.map((x) => x.framesPerSec)), 1),
    inputTicks: sum(c.map((x) => x.upSent)),
    inputsLost: sum(c.map((x) => x.upLost)),
    inputsLostUnexplained: null,
    snapshotsSent: sum(c.map((x) => x.downSent)),
    snapshotsLost: sum(c.map((x) => x.downLost)),
    inputEarlyMsP1: null,
    inputEarlyMsP50: null,
    inputEarlyMsP99: null,
    upBytesPerSecPerClient: round(mean(c.map((x) => x.upBytesPerSec)), 0),
    downBytesPerSecPerClient: round(mean(c.map((x) => x.downBytesPerSec)), 0),
    upWritesPerSecPerClient: round(mean(c.map((x) => x.framesPerSec)), 1),
    downWritesPerSecPerClient: round(downHz, 1),
    upWireBytesPerSecPerClient: round(run.server.wire.bytesRead / seconds / clients, 0),
    downWireBytesPerSecPerClient: round(run.server.wire.bytesWritten / seconds / clients, 0),
    maxClientStallMs: round(Math.max(...c.map((x) => x.maxStallMs)), 0),
    maxServerStallMs: round(run.server.maxStallMs, 0),
  };
}

export async function run(): Promise<void> {
  const started = performance.now();
  const server = ServerProcess.spawn({ timeoutMs: 60_000 });
  const results: Result[] = [];
  try {
    for (const clients of CLIENTS) {
      for (const fps of FPS) {
        const name = `${clients}x${fps}`;
        const netcode = netcodeRow(name, await runScenario(server, { clients: Array.from({ length: clients }, () => ({ fps })), activeMs: ACTIVE_MS, settleMs: 500, readyTimeoutMs: 60_000 }));
        results.push(netcode, await rawRow(server, name, clients, fps, netcode));
      }
    }
  } finally {
    await server.exit();
  }
  console.table(results.map(({ case: name, system, ...metrics }) => ({ case: name, system, ...metrics })));
  console.log(`Each case: ${ACTIVE_MS / 1000} s measured after a 1.5 s warm-up (react-netcode) / 0.5 s (socket.io); the server in its own process, clients in this one, 127.0.0.1.`);
  console.log('react-netcode: inputs lost = ticks its server ran without a client\'s input; snapshots lost = snapshot ticks written to a client and never received; input early = how long before its tick an input was stored.');
  console.log('socket.io: the same bytes as plain emits (one per client frame up; down at react-netcode\'s write rate and mean size); lost = emitted and never received.');
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'realpath', results })}`);
}
