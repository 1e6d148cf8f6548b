// CCU bench: the report of a run — the per-case table, the per-system summary, what the columns
// mean, and last the one `BENCH {"bench":"ccu",…}` line (bench/README.md). Shared by
// `npm run load` (cli.ts) and bench/ccu.bench.ts.
import { BUDGET_MS, summarize, type CaseRow } from './load.ts';
import type { CcuSystem } from './rooms.ts';

export interface RunInfo {
  pin: boolean;
  fps: number;
  /** A number of rooms, or a description of how they were sized ("of 16 players"). */
  rooms: number | string;
  seconds: number;
  warmupSeconds: number;
  /** performance.now() when the run began. */
  startedAt: number;
}

function tableRow(r: CaseRow): Record<string, unknown> {
  return {
    case: r.case,
    system: r.system,
    'cpu %': r.serverCpuPct,
    'µs/client-s': r.serverUsPerClientSecond,
    'ccu/core (extrap.)': r.ccuPerCore,
    'µs/client-s at 60 Hz': r.serverUsPerClientSecondAt60,
    'tick p50': r.tickMsP50,
    'tick p99': r.tickMsP99,
    'tick cpu p99': r.tickCpuMsP99,
    'own stats p99': r.serverStatsTickMsP99,
    'ticks/s': r.ticksPerSec,
    'inputs/client-s': r.inputsPerClientSecond,
    'inputs missing %': r.inputsMissingPct,
    'up B/s': r.upBytesPerSecPerClient,
    'down B/s': r.downBytesPerSecPerClient,
    'client fps': r.clientFps,
    'client cpu %': r.clientCpuPct,
    'others on core 0 %': r.serverCoreOthersPct,
    held: r.held,
    starved: r.starved,
    'client-limited': r.clientLimited,
  };
}

export function printCcu(rows: readonly CaseRow[], systems: readonly CcuSystem[], info: RunInfo): void {
  const summary = summarize(rows, systems);
  console.table(rows.map(tableRow));
  console.table(summary);
  const where = info.pin ? 'Server pinned to core 0, clients to core 1 (taskset).' : 'Unpinned (no taskset, or --no-pin).';
  console.log(`${where} ${info.fps} fps clients, 60 Hz ticks, 20 Hz snapshots/patches, rooms${typeof info.rooms === 'number' ? `: ${info.rooms} per case` : ` ${info.rooms}`}; ${info.seconds} s measured after ${info.warmupSeconds} s warm-up.`);
  console.log(`held = every room's tick CPU-time p99 ≤ ${BUDGET_MS.toFixed(1)} ms and server CPU < 95 % of its core; client-limited = the client process fell behind (its rows do not count).`);
  console.log('starved = a room ran < 95 % of its 60 ticks/s: the server lacked CPU (its own load, or other processes on its core: "others on core 0 %"); its CPU figures are then for fewer ticks.');
  console.log("tick p50/p99: wall time of the worst room's ticks (other processes on the core included); tick cpu p99: the server process's CPU time during them.");
  console.log('ccu/core (extrap.) = 10⁶ / µs per client-second at that count, fixed costs included; µs/client-s at 60 Hz = CPU per client per tick run × 60 (the same unless starved).');
  console.log('Summary: ccuPerCoreHeld = the largest count measured that held;');
  console.log('ccuPerCore = the extrapolation at that count; ccuPerCoreMarginal = (10⁶ − fixed µs/s) / slope of server CPU against clients over the held rows.');
  console.log(`took ${((performance.now() - info.startedAt) / 1000).toFixed(1)} s; load average (1 min) at each case: ${rows.map((r) => r.loadAvg1).join(', ')}`);
  console.log(`BENCH ${JSON.stringify({ bench: 'ccu', results: [...rows, ...summary] })}`);
}
