// `npm run load`: the CCU load tool. Headless clients at 30 fps against a server of R rooms
// (react-netcode, or the Colyseus peer), the server pinned to core 0 and the clients to core 1,
// and what the server's core spent on them. Prints a table, then one `BENCH {"bench":"ccu",…}` line.
//
//   npm run load -- --clients 200                      # react-netcode, 200 clients in rooms of 16 (13 rooms), 10 s
//   npm run load -- --clients 200 --system both        # the same against Colyseus, same run
//   npm run load -- --clients 50,100,200,400 --system both --room-size 8 --seconds 15
//   npm run load -- --clients 100 --rooms 1            # one room of 100 players
//   npm run load -- --sweep                            # both systems, 50…1600 until a room's tick p99 exceeds 16.7 ms
//
// A list of counts (or --sweep) runs them rising, the systems interleaved, each system stopping at its
// first count that did not hold or whose clients fell behind. --no-pin runs without taskset;
// --profile DIR writes a CPU profile of each server's measured window there.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { canPin } from '../server-control.ts';
import { DEFAULT_ROOM_SIZE, runCase, sweep, type CaseRow } from './load.ts';
import { printCcu } from './print.ts';
import type { CcuSystem } from './rooms.ts';

const SWEEP = [50, 100, 200, 400, 800, 1600];
/** One client process holds every client; beyond this its core (and descriptors) would be the limit long before the server. */
const MAX_CLIENTS = 5000;

function fail(message: string): never {
  console.error(`react-netcode: ${message}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    clients: { type: 'string' },
    rooms: { type: 'string' },
    'room-size': { type: 'string' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    fps: { type: 'string', default: '30' },
    system: { type: 'string' },
    sweep: { type: 'boolean', default: false },
    'no-pin': { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});

const num = (name: string, v: string | undefined, min: number): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) fail(`--${name} must be a number ≥ ${min}, got ${String(v)}.`);
  return n;
};
const system = values.system ?? (values.sweep ? 'both' : 'react-netcode');
const systems: CcuSystem[] =
  system === 'both' ? ['react-netcode', 'colyseus']
  : system === 'react-netcode' || system === 'colyseus' ? [system]
  : fail(`--system must be react-netcode, colyseus or both, got ${system}.`);
const counts = values.clients !== undefined ? values.clients.split(',').map((c) => num('clients', c, 1)) : values.sweep ? SWEEP : fail('give --clients N (or a list: --clients 50,100,200), or --sweep.');
if (counts.some((c) => c > MAX_CLIENTS)) fail(`at most ${MAX_CLIENTS} clients (one client process holds them all); got ${Math.max(...counts)}.`);
const roomsGiven = values.rooms === undefined ? {} : { rooms: num('rooms', values.rooms, 1) };
const roomSize = num('room-size', values['room-size'] ?? String(DEFAULT_ROOM_SIZE), 1);
const seconds = num('seconds', values.seconds, 1);
const warmupSeconds = num('warmup', values.warmup, 0);
const fps = num('fps', values.fps, 1);
const pin = !values['no-pin'] && canPin();
const profileDir = values.profile === undefined ? {} : { profileDir: resolve(values.profile) };
if (values.profile !== undefined) mkdirSync(values.profile, { recursive: true });
if (!values['no-pin'] && !pin) console.log('taskset (util-linux) is not available: server and clients run unpinned, sharing every core; the CPU figures still count only the server process.');

const started = performance.now();
const log = (line: string): void => console.log(line);
let rows: CaseRow[];
if (values.sweep || counts.length > 1) rows = await sweep({ systems, counts, ...roomsGiven, roomSize, seconds, warmupSeconds, fps, pin, log, ...profileDir });
else {
  rows = [];
  for (const system of systems) {
    const r = await runCase({ system, clients: counts[0]!, ...roomsGiven, roomSize, seconds, warmupSeconds, fps, pin, ...profileDir });
    log(`${system}: server ${r.serverCpuPct} % CPU`);
    rows.push(r);
  }
}
printCcu(rows, systems, { pin, fps, rooms: roomsGiven.rooms ?? `of ${roomSize} players`, seconds, warmupSeconds, startedAt: started });
