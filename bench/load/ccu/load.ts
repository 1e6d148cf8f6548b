// CCU bench, harness side: one load case and the sweep. A case starts a server process (rooms.ts,
// pinned to core 0) and a client process (client-process.ts, pinned to core 1), joins every
// client, warms up, then measures a window: the server's CPU time per client-second, each room's
// tick p50/p99, ticks and inputs the server ran and received, TCP bytes per client each way, and
// how well the client process kept up (a saturated client core makes the row client-limited).
// `sweep` runs rising client counts, the systems interleaved per count, until each system's
// room tick p99 exceeds the budget or its server core saturates.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../library.ts';
import { percentile, round, sleep } from '../measure.ts';
import { canPin, ServerProcess } from '../server-control.ts';
import { TICK_RATE } from './arena.ts';
import type { ClientReport, ClientStart } from './client-process.ts';
import type { CcuSystem } from './rooms.ts';

const CLIENT_ENTRY = join(REPO_ROOT, 'bench/load/ccu/client-process.ts');
/** A tick's budget at 60 Hz (ms). */
export const BUDGET_MS = 1000 / TICK_RATE;
/** Server CPU at or above this share of its core counts as saturated (%). */
export const SATURATED_PCT = 95;

/** Players per room when the number of rooms is not given: an arena match (the demo sets no cap). */
export const DEFAULT_ROOM_SIZE = 16;

export interface CaseOptions {
  system: CcuSystem;
  clients: number;
  /** Rooms (the clients spread evenly over them); default: ceil(clients / roomSize). */
  rooms?: number;
  /** Players per room when `rooms` is not given (default DEFAULT_ROOM_SIZE). */
  roomSize?: number;
  /** Measured window (s). */
  seconds: number;
  warmupSeconds?: number;
  fps?: number;
  /** Pin server and clients to cores 0 and 1 (default: when taskset exists). */
  pin?: boolean;
  /** Write a CPU profile of the server's measured window to `<profileDir>/ccu-<system>-<clients>.cpuprofile`. */
  profileDir?: string;
}

export interface CaseRow {
  case: string;
  system: CcuSystem;
  clients: number;
  rooms: number;
  serverCpuPct: number;
  serverUsPerClientSecond: number;
  /** 10⁶ / serverUsPerClientSecond: clients one core would hold if it did only this (extrapolated). */
  ccuPerCore: number;
  /**
   * Server CPU per client per tick its room ran (µs), × 60: the cost of a client-second at the full tick rate. Equals
   * serverUsPerClientSecond when no room was starved; when some were, it scales the cost up to the ticks not run
   * (an estimate: input handling follows the clients' frames, not the ticks).
   */
  serverUsPerClientSecondAt60: number;
  tickMsP50: number;
  /** The worst room's tick p99, wall time (ms): on a core shared with other processes it includes their time slices. */
  tickMsP99: number;
  /** The worst room's tick p99, CPU time of the server process during the tick (ms): the tick's own cost. */
  tickCpuMsP99: number;
  /** react-netcode: the worst room's own `NetServer.stats.p99Ms` (its last 600 ticks, wall time); null for Colyseus. */
  serverStatsTickMsP99: number | null;
  ticksPerSec: number;
  /** Per client-second: react-netcode ticks of input stored (60 expected), Colyseus input messages handled (30 expected). */
  inputsPerClientSecond: number;
  /** react-netcode: ticks run without the client's input, % of client-ticks (the lean clients' clock keeps inputs on time); Colyseus: null. */
  inputsMissingPct: number | null;
  upBytesPerSecPerClient: number;
  downBytesPerSecPerClient: number;
  clientFps: number;
  clientCpuPct: number;
  /**
   * Every room's tick CPU p99 within the budget and the server process below SATURATED_PCT of its core. Ticks per
   * second are shown, not judged: on a shared machine other processes starve the loop whatever its own load.
   */
  held: boolean;
  /**
   * The slowest room ran < 95 % of its 60 ticks a second: the server did not get the CPU it needed (its own load or,
   * on a shared machine, other processes on its core: see serverCoreOthersPct). Its CPU figures are then for fewer ticks.
   */
  starved: boolean;
  /** Busy time of the server's core (pinned runs) not spent by the server process: other tenants (%). */
  serverCoreOthersPct: number | null;
  /** The client process fell behind (fps < 90 % of asked or its core ≥ 95 %): the server saw less than the load asked for. */
  clientLimited: boolean;
  loadAvg1: number;
}

/** One case: fresh server and client processes, `seconds` measured after the warm-up. */
export async function runCase(o: CaseOptions): Promise<CaseRow> {
  const pin = o.pin ?? canPin();
  const fps = o.fps ?? 30;
  const rooms = o.rooms ?? Math.ceil(o.clients / (o.roomSize ?? DEFAULT_ROOM_SIZE));
  const players = Math.ceil(o.clients / rooms);
  const server = ServerProcess.spawn({ timeoutMs: 60_000, ...(pin ? { cpu: 0 } : {}) });
  const clients = ServerProcess.spawn({ timeoutMs: 120_000, entry: CLIENT_ENTRY, ...(pin ? { cpu: 1 } : {}) });
  try {
    const endpoints = await server.startRooms({ mode: 'ccu', system: o.system, rooms, players, ...(pin ? { cpu: 0 } : {}), ...(o.profileDir === undefined ? {} : { profile: join(o.profileDir, `ccu-${o.system}-${o.clients}.cpuprofile`) }) });
    const start: ClientStart = { type: 'start', system: o.system, endpoints, clients: o.clients, players, fps, joinTimeoutMs: 60_000 + o.clients * 100 };
    await clients.call(start);
    await sleep((o.warmupSeconds ?? 3) * 1000);
    await server.mark();
    await clients.call({ type: 'mark' });
    await sleep(o.seconds * 1000);
    const report = await server.report();
    const client = await clients.call<ClientReport>({ type: 'report' });
    await clients.call({ type: 'stop' });
    return row({ ...o, rooms }, fps, report.ccu!, report.wire, client);
  } finally {
    await clients.exit();
    await server.exit();
  }
}

function row(o: CaseOptions & { rooms: number }, fps: number, ccu: NonNullable<Awaited<ReturnType<ServerProcess['report']>>['ccu']>, wire: { bytesRead: number; bytesWritten: number }, client: ClientReport): CaseRow {
  const seconds = ccu.wallMs / 1000;
  const clientSeconds = o.clients * seconds;
  const usPerClientSecond = ccu.cpuMicros / clientSeconds;
  const q = (xs: readonly number[], at: number): number => percentile([...xs].sort((a, b) => a - b), at);
  const worst = (pick: (r: (typeof ccu.rooms)[number]) => number[], at: number): number => Math.max(...ccu.rooms.map((r) => q(pick(r), at)));
  const cpuPct = (ccu.cpuMicros / 1000 / ccu.wallMs) * 100;
  const tickMsP99 = worst((r) => r.tickMs, 0.99);
  const tickCpuMsP99 = worst((r) => r.tickCpuMs, 0.99);
  const ticksPerSec = Math.min(...ccu.rooms.map((r) => r.ticks)) / seconds;
  const clientLimited = client.framesPerSecPerClient < 0.9 * fps || client.cpuPct >= SATURATED_PCT || client.inRoom < o.clients;
  return {
    case: `${o.clients} clients, ${o.rooms} room${o.rooms === 1 ? '' : 's'}`,
    system: o.system,
    clients: o.clients,
    rooms: o.rooms,
    serverCpuPct: round(cpuPct, 1),
    serverUsPerClientSecond: round(usPerClientSecond, 1),
    ccuPerCore: Math.round(1e6 / usPerClientSecond),
    serverUsPerClientSecondAt60: round((ccu.cpuMicros / Math.max(1, ccu.rooms.reduce((n, r) => n + r.ticks * r.clients, 0))) * TICK_RATE, 1),
    tickMsP50: round(worst((r) => r.tickMs, 0.5), 3),
    tickMsP99: round(tickMsP99, 3),
    tickCpuMsP99: round(tickCpuMsP99, 3),
    serverStatsTickMsP99: ccu.rooms.some((r) => r.ownP99Ms === null) ? null : round(Math.max(...ccu.rooms.map((r) => r.ownP99Ms!)), 3),
    ticksPerSec: round(ticksPerSec, 1),
    inputsPerClientSecond: round(ccu.rooms.reduce((s, r) => s + r.inputs, 0) / clientSeconds, 1),
    inputsMissingPct: o.system === 'colyseus' ? null : round((100 * ccu.rooms.reduce((s, r) => s + r.missing, 0)) / Math.max(1, ccu.rooms.reduce((n, r) => n + r.ticks * r.clients, 0)), 2),
    upBytesPerSecPerClient: Math.round(wire.bytesRead / clientSeconds),
    downBytesPerSecPerClient: Math.round(wire.bytesWritten / clientSeconds),
    clientFps: round(client.framesPerSecPerClient, 1),
    clientCpuPct: round(client.cpuPct, 1),
    held: tickCpuMsP99 <= BUDGET_MS && cpuPct < SATURATED_PCT,
    starved: ticksPerSec < 0.95 * TICK_RATE,
    serverCoreOthersPct: ccu.coreBusyPct === null ? null : round(Math.max(0, ccu.coreBusyPct - cpuPct), 1),
    clientLimited,
    loadAvg1: round(loadavg()[0]!, 2),
  };
}

export interface SweepOptions extends Omit<CaseOptions, 'system' | 'clients'> {
  systems: readonly CcuSystem[];
  counts: readonly number[];
  log?: (line: string) => void;
}

/**
 * Rising counts, the systems interleaved per count (their order alternating); a system stops at its first row that
 * did not hold, or after two counts in a row whose clients fell behind (each client-limited case is run once more:
 * the shared machine stalls the client process now and then).
 */
export async function sweep(o: SweepOptions): Promise<CaseRow[]> {
  const rows: CaseRow[] = [];
  const stopped = new Set<CcuSystem>();
  const limitedBefore = new Set<CcuSystem>();
  for (const [i, clients] of o.counts.entries()) {
    const order = i % 2 === 0 ? o.systems : [...o.systems].reverse();
    for (const system of order) {
      if (stopped.has(system)) continue;
      let r = await tryCase({ ...o, system, clients }, o.log);
      // A shared machine stalls the client process now and then: a client-limited case gets one more try.
      if (r?.clientLimited) {
        o.log?.(`${system} ${clients} clients: the clients fell behind (${r.clientFps} fps); once more`);
        r = await tryCase({ ...o, system, clients }, o.log);
      }
      if (r === undefined) {
        stopped.add(system);
        continue;
      }
      o.log?.(`${system} ${clients} clients: server ${r.serverCpuPct} % CPU, ${r.serverUsPerClientSecond} µs/client-s, tick p99 ${r.tickMsP99} ms${r.held ? '' : ' (did not hold)'}${r.clientLimited ? ' (client-limited)' : ''}`);
      rows.push(r);
      // The server did not hold: done. The clients fell behind at this count and the one before: so will they above.
      if (!r.held || (r.clientLimited && limitedBefore.has(system))) stopped.add(system);
      if (r.clientLimited) limitedBefore.add(system);
      else limitedBefore.delete(system);
    }
  }
  return rows;
}

/** A case, or undefined (logged) when it failed: a sweep keeps the rows it has. */
async function tryCase(o: CaseOptions, log: ((line: string) => void) | undefined): Promise<CaseRow | undefined> {
  try {
    return await runCase(o);
  } catch (error) {
    log?.(`${o.system} ${o.clients} clients: the case failed, the sweep stops this system: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    return undefined;
  }
}

export interface Summary {
  case: 'ccu per core';
  system: CcuSystem;
  /** The largest count that held with the clients keeping up (measured; a lower bound when the sweep ended client-limited). */
  ccuPerCoreHeld: number;
  /** 10⁶ / µs per client-second at that count: the extrapolation to a full core. */
  ccuPerCore: number;
  serverUsPerClientSecond: number;
  /**
   * The straight line through the held rows' server CPU (µs per second) against clients: its slope (µs per
   * client-second, fixed costs left out) and what a full core holds by it, (10⁶ − intercept) / slope. Null
   * with fewer than two held rows.
   */
  marginalUsPerClientSecond: number | null;
  ccuPerCoreMarginal: number | null;
  /** Held rows whose rooms ran < 95 % of their ticks (see CaseRow.starved). */
  starvedRows: number;
  /** What ended the sweep: 'tick p99', 'server CPU', 'clients' (client core saturated) or 'counts' (the list ran out). */
  limitedBy: string;
}

/** Least-squares line through (clients, server µs per second). */
function fit(rows: readonly CaseRow[]): { slope: number; intercept: number } | null {
  if (rows.length < 2) return null;
  const xs = rows.map((r) => r.clients);
  const ys = rows.map((r) => r.serverCpuPct * 1e4);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  xs.forEach((x, i) => {
    sxy += (x - mx) * (ys[i]! - my);
    sxx += (x - mx) ** 2;
  });
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

export function summarize(rows: readonly CaseRow[], systems: readonly CcuSystem[]): Summary[] {
  return systems.map((system) => {
    const mine = rows.filter((r) => r.system === system);
    const good = mine.filter((r) => r.held && !r.clientLimited);
    const best = good[good.length - 1];
    const last = mine[mine.length - 1];
    const limitedBy =
      last === undefined ? 'no run'
      : last.tickCpuMsP99 > BUDGET_MS ? 'tick p99'
      : !last.held ? 'server CPU'
      : last.clientLimited ? 'clients'
      : 'counts';
    const line = fit(good);
    const usable = line !== null && line.slope > 0;
    return {
      case: 'ccu per core',
      system,
      ccuPerCoreHeld: best?.clients ?? 0,
      ccuPerCore: best?.ccuPerCore ?? 0,
      serverUsPerClientSecond: best?.serverUsPerClientSecond ?? 0,
      marginalUsPerClientSecond: usable ? round(line.slope, 1) : null,
      ccuPerCoreMarginal: usable ? Math.round((1e6 - Math.max(0, line.intercept)) / line.slope) : null,
      starvedRows: good.filter((r) => r.starved).length,
      limitedBy,
    };
  });
}
