// The demo's room type: every match is a room of type 'arena' — its own authoritative world
// with today's game in it (config and match ghosts, the balls, a player per join, the RPCs:
// ./game.ts). serveRooms (./main.ts) runs many of them on one port, matchmade over HTTP.
import { defineRoom, type Room } from '../../src/rooms/index.ts';
import { PHASE_RESULTS } from '../shared/match.ts';
import { protocol, type DemoProtocol } from '../shared/protocol.ts';
import { systems } from '../shared/systems.ts';
import { setupGame, type GameOptions } from './game.ts';

/** Players per match room: quick play fills a room to this, then opens another. */
export const ARENA_MAX_CLIENTS = 8;

export interface ArenaOptions extends Omit<GameOptions, 'log'> {
  log?: (message: string) => void;
  /** An empty room is disposed after this long (default 30 s: a player who reloads finds it again). */
  emptyGraceMs?: number;
}

/** The 'arena' room type: each room sets up one game world (setupGame) with its log lines prefixed by the room id. */
export function arenaRoom(options: ArenaOptions = {}) {
  const log = options.log ?? (() => {});
  return defineRoom('arena', {
    protocol,
    systems,
    maxClients: ARENA_MAX_CLIENTS,
    emptyGraceMs: options.emptyGraceMs ?? 30_000,
    server: { onJoin: (_connection, payload) => (payload.name.trim().length > 0 ? true : { reject: 'pick a name' }) },
    onCreate: (room) => {
      log(`room ${room.id} created (${room.private ? `private, code ${room.code}` : 'public'})`);
      setupGame(room.server, { ...(options.balls ? { balls: options.balls } : {}), log: (message) => log(`room ${room.id}: ${message}`) });
    },
    onDispose: (room) => log(`room ${room.id} closed`),
  });
}

/** Whether the room's match is over (its results screen): a draining server closes it then. */
export function matchOver(room: Room): boolean {
  for (const m of (room as unknown as Room<DemoProtocol>).server.world.query('match')) if (m.components.phase === PHASE_RESULTS) return true;
  return false;
}
