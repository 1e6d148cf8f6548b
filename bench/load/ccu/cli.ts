// `npm run load`: the CCU load tool. Headless clients at 30 fps against a server of R rooms
// (react-netcode, or the Colyseus peer), the server pinned to core 0 and the clients to core 1,
// and what the server's core spent on them. Prints a table, then one `BENCH {"bench":"ccu",…}` line.
//
//   npm run load -- --clients 200                      # react-netcode, 200 clients, 1 room, 10 s
//   npm run load -- --clients 200 --system both        # the same against Colyseus, same run
//   npm run load -- --clients 50,100,200,400 --system both --rooms 4 --seconds 15
//   npm run load -- --sweep                            # both systems, 50…1600 until a room's tick p99 exceeds 16.7 ms
import { parseArgs } from 'node:util';
import { canPin } from '../server-control.ts';
import { BUDGET_MS, runCase, summarize, sweep, type CaseRow } from './load.ts';
import type { CcuSystem } from './rooms.ts';

const SWEEP = [50, 100, 200, 400, 800, 1600];

function fail(message: string): never {
  console.error(`react-netcode: ${message}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    clients: { type: 'string' },
    rooms: { type: 'string', default: '1' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    fps: { type: 'string', default: '30' },
    system: { type: 'string', default: 'react-netcode' },
    sweep: { type: 'boolean', default: false },
    'no-pin': { type: 'boolean', default: false },
  },
});

const num = (name: string, v: string | undefined, min: number): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) fail(`--${name} must be a number ≥ ${min}, got ${String(v)}.`);
  return n;
};
const systems: CcuSystem[] =
  values.system === 'both' || (values.sweep && values.system === 'react-netcode' && !process.argv.includes('--system')) ? ['react-netcode', 'colyseus']
  : values.system === 'react-netcode' || values.system === 'colyseus' ? [values.system]
  : fail(`--system must be react-netcode, colyseus or both, got ${values.system}.`);
const counts = values.clients !== undefined ? values.clients.split(',').map((c) => num('clients', c, 1)) : values.sweep ? SWEEP : fail('give --clients N (or a list: --clients 50,100,200), or --sweep.');
const rooms = num('rooms', values.rooms, 1);
const seconds = num('seconds', values.seconds, 1);
const warmupSeconds = num('warmup', values.warmup, 0);
const fps = num('fps', values.fps, 1);
const pin = !values['no-pin'] && canPin();
if (!values['no-pin'] && !pin) console.log('taskset (util-linux) is not available: server and clients run unpinned, sharing every core; the CPU figures still count only the server process.');

const started = performance.now();
const log = (line: string): void => console.log(line);
let rows: CaseRow[];
if (values.sweep || counts.length > 1) rows = await sweep({ systems, counts, rooms, seconds, warmupSeconds, fps, pin, log });
else {
  rows = [];
  for (const system of systems) {
    const r = await runCase({ system, clients: counts[0]!, rooms, seconds, warmupSeconds, fps, pin });
    log(`${system}: server ${r.serverCpuPct} % CPU`);
    rows.push(r);
  }
}
const summary = summarize(rows, systems);
console.table(rows.map(({ case: name, system, clients, serverCpuPct, serverUsPerClientSecond, ccuPerCore, tickMsP50, tickMsP99, tickCpuMsP99, ticksPerSec, inputsPerClientSecond, upBytesPerSecPerClient, downBytesPerSecPerClient, clientFps, clientCpuPct, held, clientLimited, serverCoreOthersPct }) => ({
  case: name, system, clients, 'cpu %': serverCpuPct, 'µs/client-s': serverUsPerClientSecond, 'ccu/core (extrap.)': ccuPerCore, 'tick p50': tickMsP50, 'tick p99': tickMsP99, 'tick cpu p99': tickCpuMsP99, 'ticks/s': ticksPerSec,
  'inputs/client-s': inputsPerClientSecond, 'up B/s': upBytesPerSecPerClient, 'down B/s': downBytesPerSecPerClient, 'client fps': clientFps, 'client cpu %': clientCpuPct, 'others on core 0 %': serverCoreOthersPct, held, 'client-limited': clientLimited,
})));
console.table(summary);
console.log(`${pin ? 'Server pinned to core 0, clients to core 1 (taskset).' : 'Unpinned.'} ${fps} fps clients, 60 Hz ticks, 20 Hz snapshots/patches, ${rooms} room(s); ${seconds} s measured after ${warmupSeconds} s warm-up per case. Held = every room's tick CPU-time p99 ≤ ${BUDGET_MS.toFixed(1)} ms and server CPU < 95 %.`);
console.log('tick p50/p99: wall time of the worst room\'s ticks (other processes on the core included); tick cpu p99: the server process\'s CPU time during them.');
console.log('ccu/core (extrap.) = 10⁶ / µs per client-second at that count, fixed costs included. Summary: ccuPerCoreHeld = the largest count measured that held (client-limited rows excluded);');
console.log('ccuPerCore = the extrapolation at that count; ccuPerCoreMarginal = (10⁶ − fixed µs/s) / slope of server CPU against clients over the held rows.');
console.log(`took ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${rows.map((r) => r.loadAvg1).join(', ')}`);
console.log(`BENCH ${JSON.stringify({ bench: 'ccu', results: [...rows, ...summary] })}`);
