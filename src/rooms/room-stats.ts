// Per-room and per-process figures of a room server, and their Prometheus text rendering
// (what a `/metrics` endpoint serves for scraping).

import type { Protocol } from '../core/protocol.ts';
import type { Room } from './define-room.ts';
import type { WorkerReport } from './worker-wire.ts';

export interface RoomStats {
  readonly roomId: string;
  readonly type: string;
  /** Seats taken. */
  readonly clients: number;
  readonly maxClients: number;
  /** Connections of its NetServer (connected, in game, suspended) and those in game. */
  readonly connections: number;
  readonly inGame: number;
  readonly ghosts: number;
  readonly ticks: number;
  readonly tickMeanMs: number;
  readonly tickP99Ms: number;
  readonly droppedTicks: number;
}

/**
 * One room worker (RoomServerOptions.workers), as its last report said (at most 250 ms old): the worker's own
 * figures (busy share — 1 = its core is full —, messages and batches in and out, heap) and the main thread's.
 */
export interface WorkerStats extends WorkerReport {
  /** Its slot, 0 … count − 1 (a crashed worker's slot is taken by its replacement). */
  readonly index: number;
  readonly rooms: number;
  /** Seats taken in its rooms. */
  readonly clients: number;
  /** Workers of this slot that crashed so far. */
  readonly crashes: number;
}

export interface RoomServerStats {
  readonly processId: string;
  readonly draining: boolean;
  readonly rooms: readonly RoomStats[];
  /** Seats taken over every room. */
  readonly clients: number;
  /** Links waiting to present their seat, and links refused so far (no seat, bad seat, timeout, busy). */
  readonly pendingLinks: number;
  readonly refusedLinks: number;
  /** The room workers (empty without `workers`). */
  readonly workers: readonly WorkerStats[];
}

/** One room's figures, read from its NetServer (in the thread that runs it). */
export function statsOfRoom<P extends Protocol>(room: Room<P>): RoomStats {
  const s = room.server.stats;
  let inGame = 0;
  for (const c of room.server.connections.values()) if (c.inGame) inGame++;
  return {
    roomId: room.id, type: room.type, clients: room.clients, maxClients: room.maxClients,
    connections: room.server.connections.size, inGame, ghosts: room.server.world.size,
    ticks: s.ticks, tickMeanMs: s.meanMs, tickP99Ms: s.p99Ms, droppedTicks: s.droppedTicks,
  };
}

export function roomStats(
  server: { processId: string; draining: boolean; mux: { pendingPeers: number; refused: number } },
  rooms: readonly RoomStats[],
  workers: readonly WorkerStats[],
): RoomServerStats {
  let clients = 0;
  for (const room of rooms) clients += room.clients;
  const { processId, draining, mux } = server;
  return { processId, draining, rooms, clients, pendingLinks: mux.pendingPeers, refusedLinks: mux.refused, workers };
}

/** The stats in Prometheus' text exposition format (version 0.0.4). */
export function metricsText(stats: RoomServerStats): string {
  const p = `process="${label(stats.processId)}"`;
  const lines = [
    '# HELP netcode_rooms Rooms running in this process.', '# TYPE netcode_rooms gauge', `netcode_rooms{${p}} ${stats.rooms.length}`,
    '# HELP netcode_clients Seats taken in this process.', '# TYPE netcode_clients gauge', `netcode_clients{${p}} ${stats.clients}`,
    '# HELP netcode_draining 1 while the process drains.', '# TYPE netcode_draining gauge', `netcode_draining{${p}} ${stats.draining ? 1 : 0}`,
    '# HELP netcode_pending_links Links waiting to present their seat.', '# TYPE netcode_pending_links gauge', `netcode_pending_links{${p}} ${stats.pendingLinks}`,
    '# HELP netcode_refused_links_total Links refused before reaching a room.', '# TYPE netcode_refused_links_total counter', `netcode_refused_links_total{${p}} ${stats.refusedLinks}`,
  ];
  const perRoom: Array<[string, string, string, (r: RoomStats) => number]> = [
    ['netcode_room_clients', 'gauge', 'Seats taken in the room.', (r) => r.clients],
    ['netcode_room_max_clients', 'gauge', 'Seats in the room.', (r) => r.maxClients],
    ['netcode_room_in_game', 'gauge', 'Connections in game.', (r) => r.inGame],
    ['netcode_room_ghosts', 'gauge', 'Ghosts in the room world.', (r) => r.ghosts],
    ['netcode_room_ticks_total', 'counter', 'Ticks simulated.', (r) => r.ticks],
    ['netcode_room_tick_mean_ms', 'gauge', 'Mean tick time over the last ticks, ms.', (r) => r.tickMeanMs],
    ['netcode_room_tick_p99_ms', 'gauge', 'p99 tick time over the last ticks, ms.', (r) => r.tickP99Ms],
    ['netcode_room_dropped_ticks_total', 'counter', 'Ticks dropped because the loop fell behind.', (r) => r.droppedTicks],
  ];
  for (const [name, type, help, value] of perRoom) {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const r of stats.rooms) lines.push(`${name}{${p},room="${label(r.roomId)}",type="${label(r.type)}"} ${value(r)}`);
  }
  if (stats.workers.length === 0) return `${lines.join('\n')}\n`;
  const perWorker: Array<[string, string, string, (w: WorkerStats) => number]> = [
    ['netcode_worker_rooms', 'gauge', 'Rooms running in the worker.', (w) => w.rooms],
    ['netcode_worker_clients', 'gauge', 'Seats taken in the worker\'s rooms.', (w) => w.clients],
    ['netcode_worker_busy_ratio', 'gauge', 'Share of wall time the worker spent running its rooms (1 = its core is full).', (w) => w.busy],
    ['netcode_worker_messages_in_total', 'counter', 'Messages handed to the worker.', (w) => w.messagesIn],
    ['netcode_worker_messages_out_total', 'counter', 'Messages the worker sent.', (w) => w.messagesOut],
    ['netcode_worker_heap_used_bytes', 'gauge', 'V8 heap in use in the worker thread.', (w) => w.heapUsedBytes],
    ['netcode_worker_crashes_total', 'counter', 'Workers of this slot that crashed.', (w) => w.crashes],
  ];
  for (const [name, type, help, value] of perWorker) {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const w of stats.workers) lines.push(`${name}{${p},worker="${w.index}"} ${value(w)}`);
  }
  return `${lines.join('\n')}\n`;
}

function label(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
