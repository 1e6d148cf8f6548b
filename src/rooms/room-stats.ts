// Per-room and per-process figures of a room server, and their Prometheus text rendering
// (what a `/metrics` endpoint serves for scraping).

import type { Room } from './define-room.ts';

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

export interface RoomServerStats {
  readonly processId: string;
  readonly draining: boolean;
  readonly rooms: readonly RoomStats[];
  /** Seats taken over every room. */
  readonly clients: number;
  /** Links waiting to present their seat, and links refused so far (no seat, bad seat, timeout, busy). */
  readonly pendingLinks: number;
  readonly refusedLinks: number;
}

export function roomStats(
  server: { processId: string; draining: boolean; mux: { pendingPeers: number; refused: number } },
  rooms: readonly Room[],
): RoomServerStats {
  let clients = 0;
  const list: RoomStats[] = [];
  for (const room of rooms) {
    const s = room.server.stats;
    let inGame = 0;
    for (const c of room.server.connections.values()) if (c.inGame) inGame++;
    clients += room.clients;
    list.push({
      roomId: room.id, type: room.type, clients: room.clients, maxClients: room.maxClients,
      connections: room.server.connections.size, inGame, ghosts: room.server.world.size,
      ticks: s.ticks, tickMeanMs: s.meanMs, tickP99Ms: s.p99Ms, droppedTicks: s.droppedTicks,
    });
  }
  const { processId, draining, mux } = server;
  return { processId, draining, rooms: list, clients, pendingLinks: mux.pendingPeers, refusedLinks: mux.refused };
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
  return `${lines.join('\n')}\n`;
}

function label(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
