// Room types: what the app declares once per kind of match (`defineRoom('arena', {...})`): the
// protocol and systems every room of the type runs, how many players it seats, the options of
// its NetServer, and the lifecycle callbacks. A room is one authoritative world (a NetServer).

import type { Connection } from '../core/connection.ts';
import { NetcodeError } from '../core/errors.ts';
import type { JoinPayload, Protocol } from '../core/protocol.ts';
import type { NetServer, ServerOptions } from '../core/server.ts';
import type { SystemDef } from '../core/system.ts';
import type { RoomMetadata } from './directory.ts';

/** One running room: its world and what matchmaking knows about it. */
export interface Room<P extends Protocol = Protocol> {
  readonly id: string;
  readonly type: string;
  /** The room's authoritative server: its world, connections, events, RPCs, stats. */
  readonly server: NetServer<P>;
  /** What it was created with (mode, region, the app's keys); joinOrCreate filters match on it. */
  readonly metadata: RoomMetadata;
  readonly private: boolean;
  /** Join code of a private room. */
  readonly code: string | undefined;
  readonly createdAt: number;
  /** Seats taken (players connected, suspended or on their way). */
  readonly clients: number;
  readonly maxClients: number;
  /** Take no new seats (e.g. once the match started); `unlock()` reopens it. */
  lock(): void;
  unlock(): void;
  readonly locked: boolean;
}

export type RoomNetServerOptions<P extends Protocol> = Omit<Partial<ServerOptions<P>>, 'protocol' | 'transport' | 'scheduler' | 'systems' | 'maxConnections'>;

export interface RoomDefinition<P extends Protocol> {
  protocol: P;
  systems?: readonly SystemDef<P>[];
  /** Seats per room: joinOrCreate never puts one more player in (default 16). */
  maxClients?: number;
  /** Options of each room's NetServer (onJoin decides joins, relevancy, limits, buildId …). */
  server?: RoomNetServerOptions<P>;
  /** An empty room is disposed after this long without seats (default: the room server's emptyGraceMs). */
  emptyGraceMs?: number;
  /** The room was created (spawn the level here). */
  onCreate?: (room: Room<P>) => void;
  /** A connection joined the room's game (after `server.onJoin` accepted it). */
  onJoin?: (room: Room<P>, connection: Connection<JoinPayload<P>>) => void;
  /** A connection left for good (its seat is free again). */
  onLeave?: (room: Room<P>, connection: Connection<JoinPayload<P>>, reason: string) => void;
  /** The room is being disposed (empty past its grace, or the process drains). */
  onDispose?: (room: Room<P>) => void;
}

/** A room type: a name and its definition (pass them to the room server's `rooms`). */
export interface RoomType<P extends Protocol = Protocol> {
  readonly name: string;
  readonly definition: RoomDefinition<P>;
  readonly maxClients: number;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Declare a room type. */
export function defineRoom<P extends Protocol>(name: string, definition: RoomDefinition<P>): RoomType<P> {
  if (!NAME.test(name)) throw new NetcodeError('usage', `react-netcode: room type name "${name}" must be 1–64 letters, digits, '_' or '-'.`);
  const maxClients = definition.maxClients ?? 16;
  if (!Number.isInteger(maxClients) || maxClients < 1 || maxClients > 4096) {
    throw new NetcodeError('usage', `react-netcode: maxClients of room type "${name}" must be an integer from 1 to 4096, got ${String(definition.maxClients)}.`);
  }
  return { name, definition, maxClients };
}
