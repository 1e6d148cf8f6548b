// CCU bench, server process side: "a server with R rooms of P players", the one function the
// load tool starts (`startRooms`), for react-netcode or the Colyseus peer. react-netcode's R
// rooms are rooms of one RoomServer (src/rooms: one transport, one port, one loop updating every
// room each turn), as the demo's arena is served. Per room the samples of a window: each tick's
// wall and CPU time (the room's `update(now)` in a loop turn divided by the ticks it ran, its
// sends included), ticks run, inputs received and ticks run without one, clients in it.
import type { Server as HttpServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { NetServer } from '../../../src/core/server.ts';
import { defineRoom, RoomServer } from '../../../src/rooms/index.ts';
import { loadLibrary } from '../library.ts';
import { BALLS, CONFIG, makeArenaGame, spawnPoint, type ArenaProtocol } from './arena.ts';

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

/** Where client i connects: endpoint i / P (a socket.io URL and a room id, or a Colyseus URL and room id). */
export interface Endpoint {
  url: string;
  room?: string;
  /** react-netcode: the room's reserved seats (tokens); the room's j-th client presents seats[j]. */
  seats?: string[];
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
  return startNetcodeRooms(rooms, players);
}

/** Per room: the window's samples, from the room's own NetServer (its ticks and its inputs' stats). */
function roomSampler(server: NetServer<ArenaProtocol>, samples: RoomSamples): { mark: () => void; read: () => RoomSamples } {
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
  return {
    mark: () => {
      clearSamples(samples);
      base = received();
    },
    read: () => {
      const now = received();
      return { ...samples, inputs: now.sum - base.sum, missing: now.missing - base.missing, clients: now.clients, ownP99Ms: server.stats.p99Ms };
    },
  };
}

/** Each `update(now)` of the room's NetServer (the room server's loop calls it every turn), timed and divided over the ticks it ran. */
function timeUpdates(server: NetServer<ArenaProtocol>, samples: RoomSamples): void {
  const update = server.update.bind(server);
  server.update = (now: number): number => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const ran = update(now);
    if (ran === 0) return ran;
    const used = process.cpuUsage(cpu);
    const ms = (performance.now() - started) / ran;
    const cpuMs = (used.user + used.system) / 1000 / ran;
    for (let i = 0; i < ran; i++) {
      samples.tickMs.push(ms);
      samples.tickCpuMs.push(cpuMs);
    }
    return ran;
  };
}

/**
 * react-netcode's rooms as the demo's arena serves them: one RoomServer (src/rooms) on one socket.io transport and port,
 * an `arena` room type of `players` seats; R rooms created before the clients come, each with its P seats reserved
 * (matchmaker create + join), handed to the clients (each link presents its seat, then says Hello).
 */
async function startNetcodeRooms(count: number, players: number): Promise<CcuRooms> {
  const lib = await loadLibrary();
  const game = makeArenaGame(lib.core);
  const perRoom = new Map<string, { mark: () => void; read: () => RoomSamples }>();
  let joined = 0;
  const arena = defineRoom('arena', {
    protocol: game.protocol,
    systems: game.systems,
    maxClients: players,
    server: { log: () => {} },
    onCreate: (room) => {
      room.server.spawn('config', { ...CONFIG });
      for (let i = 0; i < BALLS; i++) room.server.spawn('ball', {});
      const samples: RoomSamples = { tickMs: [], tickCpuMs: [], ticks: 0, inputs: 0, missing: 0, clients: 0, ownP99Ms: null };
      timeUpdates(room.server, samples);
      perRoom.set(room.id, roomSampler(room.server, samples));
    },
    onJoin: (room, c) => {
      const { x, z, facing } = spawnPoint(++joined);
      room.server.spawn('player', { position: { x, y: 0.92, z }, grounded: true, facing, colour: joined % 8, name: (c.joinPayload?.name ?? '').slice(0, 16) }, { owner: c.networkId });
    },
  });
  const io = lib.socketIo.createSocketIoServerTransport({ port: 0, host: '127.0.0.1' });
  const rooms = new RoomServer({ rooms: [arena], transport: io, scheduler: lib.core.realTimeScheduler, seatLapseMs: 10 * 60_000, maxPendingPeers: 256, log: () => {} });
  const { port } = await io.ready();
  rooms.start();
  const url = `http://127.0.0.1:${port}`;
  const endpoints: Endpoint[] = [];
  for (let r = 0; r < count; r++) {
    const first = await rooms.matchmaker.create('arena');
    const seats = [first.token];
    for (let i = 1; i < players; i++) seats.push((await rooms.matchmaker.join(first.roomId)).token);
    endpoints.push({ url, room: first.roomId, seats });
  }
  const all = () => endpoints.map((e) => perRoom.get(e.room!)!);
  return {
    endpoints,
    mark: () => all().forEach((r) => r.mark()),
    samples: () => all().map((r) => r.read()),
    http: [io.io.httpServer as HttpServer],
    async stop() {
      rooms.close('load run over');
      await io.io.close();
    },
  };
}
