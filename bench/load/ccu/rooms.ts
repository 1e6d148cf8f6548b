// CCU bench, server process side: "a server with R rooms of P players", the one function the
// load tool starts (`startRooms`), for react-netcode or the Colyseus peer. react-netcode today
// has one world per NetServer (createServer, src/create-server.ts), so its R rooms are R
// NetServers in this one process, each on its own socket.io transport and port; when the room
// server (src/rooms/) lands, `startNetcodeRooms` is the function to swap for it. Per room the
// samples of a window: each tick's wall and CPU time (one loop turn's work divided by the ticks
// it ran, sends included), ticks run, inputs received and ticks run without one, clients in it.
import type { Server as HttpServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Scheduler } from '../../../src/core/transport.ts';
import { loadLibrary } from '../library.ts';
import { BALLS, CONFIG, makeArenaGame, spawnPoint } from './arena.ts';

export type CcuSystem = 'react-netcode' | 'colyseus';

export interface RoomSamples {
  /** Wall time of each tick (ms): what a client waits for; on a shared core it includes time other processes took. */
  tickMs: number[];
  /** CPU time of the process during each tick (ms, process.cpuUsage()): the tick's own work, whoever else shares the core. */
  tickCpuMs: number[];
  ticks: number;
  inputs: number;
  /** react-netcode: ticks run without a client's input (ServerInputStats.missing, summed); 0 for Colyseus (it keeps the latest message). */
  missing: number;
  clients: number;
  /** react-netcode: the server's own tick p99 (`NetServer.stats`, its last 600 ticks, ms); null for Colyseus. */
  ownP99Ms: number | null;
}

/** Where client i connects: endpoint i / P (a socket.io URL, or a Colyseus URL and room id). */
export interface Endpoint {
  url: string;
  room?: string;
}

export interface CcuRooms {
  endpoints: Endpoint[];
  /** Start the window: samples restart from here. */
  mark(): void;
  /** Per room, since the mark. */
  samples(): RoomSamples[];
  /** The HTTP servers (for TCP byte counts). */
  http: HttpServer[];
  stop(): Promise<void>;
}

export function clearSamples(s: RoomSamples): void {
  s.tickMs.length = 0;
  s.tickCpuMs.length = 0;
  s.ticks = 0;
  s.inputs = 0;
  s.missing = 0;
}

/** A server with `rooms` rooms of `players` seats, on 127.0.0.1 (Colyseus loaded only when asked for). */
export async function startRooms(system: CcuSystem, rooms: number, players: number): Promise<CcuRooms> {
  if (system === 'colyseus') return (await import('./colyseus-rooms.ts')).startColyseusRooms(rooms, players);
  return startNetcodeRooms(rooms);
}

/** `inner` with each timer callback's duration, divided over the ticks it ran, noted as tick samples. */
function timed(inner: Scheduler, samples: RoomSamples): Scheduler {
  return {
    now: () => inner.now(),
    setTimeout: (fn, delayMs) =>
      inner.setTimeout(() => {
        const ticksBefore = samples.ticks;
        const started = performance.now();
        const cpu = process.cpuUsage();
        fn();
        const ran = samples.ticks - ticksBefore;
        const used = process.cpuUsage(cpu);
        const ms = (performance.now() - started) / Math.max(1, ran);
        const cpuMs = (used.user + used.system) / 1000 / Math.max(1, ran);
        for (let i = 0; i < ran; i++) {
          samples.tickMs.push(ms);
          samples.tickCpuMs.push(cpuMs);
        }
      }, delayMs),
    clearTimeout: (handle) => inner.clearTimeout(handle),
  };
}

async function startNetcodeRooms(count: number): Promise<CcuRooms> {
  const lib = await loadLibrary();
  const game = makeArenaGame(lib.core);
  const all: { mark: () => void; read: () => RoomSamples; close: () => Promise<void>; http: HttpServer; port: number }[] = [];
  for (let r = 0; r < count; r++) {
    const samples: RoomSamples = { tickMs: [], tickCpuMs: [], ticks: 0, inputs: 0, missing: 0, clients: 0, ownP99Ms: null };
    const io = lib.socketIo.createSocketIoServerTransport({ port: 0, host: '127.0.0.1' });
    const server = lib.core.createServer({ protocol: game.protocol, systems: game.systems, transport: io, scheduler: timed(lib.core.realTimeScheduler, samples), log: () => {} });
    server.spawn('config', { ...CONFIG });
    for (let i = 0; i < BALLS; i++) server.spawn('ball', {});
    let joined = 0;
    server.events.on('join', (c) => {
      const { x, z, facing } = spawnPoint(++joined);
      server.spawn('player', { position: { x, y: 0.92, z }, grounded: true, facing, colour: joined % 8, name: (c.joinPayload?.name ?? '').slice(0, 16) }, { owner: c.networkId });
    });
    server.events.on('tick', () => void samples.ticks++);
    // Inputs stored (ticks of input, ServerInputStats.received) over the in-game connections, counted when asked.
    const received = (): { sum: number; missing: number; clients: number } => {
      let sum = 0;
      let missing = 0;
      let clients = 0;
      for (const c of server.connections.values()) {
        if (!c.inGame) continue;
        clients++;
        const stats = server.inputStats(c);
        sum += stats?.received ?? 0;
        missing += stats?.missing ?? 0;
      }
      return { sum, missing, clients };
    };
    let base = received();
    const mark = (): void => {
      clearSamples(samples);
      base = received();
    };
    const read = (): RoomSamples => {
      const now = received();
      return { ...samples, inputs: now.sum - base.sum, missing: now.missing - base.missing, clients: now.clients, ownP99Ms: server.stats.p99Ms };
    };
    const { port } = await io.ready();
    server.start();
    all.push({ mark, read, port, http: io.io.httpServer as HttpServer, close: async () => { server.close('load run over'); await io.io.close(); } });
  }
  return {
    endpoints: all.map((r) => ({ url: `http://127.0.0.1:${r.port}` })),
    mark: () => all.forEach((r) => r.mark()),
    samples: () => all.map((r) => r.read()),
    http: all.map((r) => r.http),
    async stop() {
      for (const r of all) await r.close();
    },
  };
}
