// One running room: its NetServer on its RoomTransport, and the link between seats and
// connections — a seat is held from its connection's `connect` until its `leave` (through
// suspension and resume), then released in the directory. It runs in the room server's thread,
// or in a room worker (worker-host.ts), where the room server keeps a WorkerRoom for it.

import type { Connection } from '../core/connection.ts';
import type { Logger } from '../core/emitter.ts';
import { HandlerError } from '../core/errors.ts';
import type { JoinPayload, Protocol } from '../core/protocol.ts';
import { NetServer, type ServerOptions } from '../core/server.ts';
import type { Scheduler } from '../core/transport.ts';
import type { Room, RoomType } from './define-room.ts';
import type { RoomListing, RoomMetadata } from './directory.ts';
import type { RoomLink, RoomTransport } from './room-mux.ts';
import { statsOfRoom, type RoomStats } from './room-stats.ts';

/** What the room server keeps of each of its rooms, wherever it runs (this thread: LiveRoom; a worker: WorkerRoom). */
export interface HostedRoom<P extends Protocol = Protocol> extends Room<P> {
  /** Where the mux routes the room's links. */
  readonly link: RoomLink;
  clients: number;
  locked: boolean;
  /** Since when the room has had no seat (undefined: it has some). */
  emptySince: number | undefined;
  readonly emptyGraceMs: number;
  holdsAny(): boolean;
  holds(token: string): boolean;
  heldTokens(): string[];
  /** Close the room: its players are told `reason`, then onDispose runs. */
  shut(reason: string): void;
  stats(): RoomStats;
}

/** A room's directory listing as the room server keeps it: what LiveRoom and WorkerRoom share. */
export abstract class ListedRoom {
  readonly id: string;
  readonly type: string;
  readonly metadata: RoomMetadata;
  readonly private: boolean;
  readonly code: string | undefined;
  readonly createdAt: number;
  readonly maxClients: number;
  /** Seats taken, as the directory last said. */
  clients: number;
  locked: boolean;
  /** Since when the room has had no seat (undefined: it has some). */
  emptySince: number | undefined;

  constructor(listing: RoomListing) {
    this.id = listing.roomId;
    this.type = listing.type;
    this.metadata = listing.metadata;
    this.private = listing.private;
    this.code = listing.code;
    this.createdAt = listing.createdAt;
    this.maxClients = listing.maxClients;
    this.clients = listing.clients;
    this.locked = listing.locked;
  }
}

export interface LiveRoomHooks {
  /** The seat token of the link `peer` (the mux knows it). */
  tokenOf(peer: number): string | undefined;
  lock(roomId: string, locked: boolean): void;
  /** A connection now holds this seat. */
  hold?(token: string): void;
  /** A seat's connection left for good: free its place. */
  release(token: string): void;
  log: Logger;
}

const REPLACED = 'react-netcode: another client connected with this seat (a seat is for one client); matchmake again for a seat of your own.';

export class LiveRoom<P extends Protocol = Protocol> extends ListedRoom implements HostedRoom<P> {
  readonly server: NetServer<P>;
  readonly emptyGraceMs: number;
  private readonly tokenByNetworkId = new Map<number, string>();
  private readonly networkIdByToken = new Map<string, number>();

  constructor(
    readonly roomType: RoomType<P>,
    listing: RoomListing,
    readonly transport: RoomTransport,
    scheduler: Scheduler,
    options: { seed: number; randomUint32?: () => number; emptyGraceMs: number; log?: Logger },
    private readonly hooks: LiveRoomHooks,
  ) {
    super(listing);
    const def = roomType.definition;
    this.emptyGraceMs = def.emptyGraceMs ?? options.emptyGraceMs;
    this.server = new NetServer<P>({
      seed: options.seed,
      ...(options.randomUint32 ? { randomUint32: options.randomUint32 } : {}),
      ...(options.log ? { log: options.log } : {}),
      ...def.server,
      ...(def.systems ? { systems: def.systems } : {}),
      protocol: def.protocol,
      transport,
      scheduler,
      maxConnections: roomType.maxClients,
      // Each connection holds a seat (the seat check limits them): one that drops before its join resumes with it.
      resumeUnjoined: true,
    } as ServerOptions<P>);
    this.server.events.on('connect', (c) => this.connected(c));
    this.server.events.on('join', (c) => this.call('onJoin', () => def.onJoin?.(this, c)));
    this.server.events.on('leave', (c, reason) => this.left(c, reason));
    this.server.listen();
  }

  get link(): RoomLink {
    return this.transport;
  }

  lock(): void {
    this.hooks.lock(this.id, true);
  }

  shut(reason: string): void {
    this.server.close(reason);
    this.call('onDispose', () => this.roomType.definition.onDispose?.(this));
  }

  stats(): RoomStats {
    return statsOfRoom(this);
  }

  unlock(): void {
    this.hooks.lock(this.id, false);
  }

  /** Whether any connection of this room holds a seat. */
  holdsAny(): boolean {
    return this.networkIdByToken.size > 0;
  }

  /** The seats this room's connections hold. */
  heldTokens(): string[] {
    return [...this.networkIdByToken.keys()];
  }

  /** Whether a connection of this room holds the seat. */
  holds(token: string): boolean {
    return this.networkIdByToken.has(token);
  }

  /** Run an app callback, contained: a throw is logged, the room goes on. */
  call(name: 'onCreate' | 'onJoin' | 'onLeave' | 'onDispose', fn: () => void): void {
    try {
      fn();
    } catch (error) {
      const what = new HandlerError(name, this.server.currentTick, error).message.replace(/^react-netcode: /, '');
      this.hooks.log('error', `react-netcode: room ${this.id}: ${what}`);
    }
  }

  private connected(c: Connection<JoinPayload<P>>): void {
    const token = this.hooks.tokenOf(c.peer);
    if (token === undefined) return;
    const previous = this.networkIdByToken.get(token);
    if (previous !== undefined && previous !== c.networkId) {
      // The same seat opened a new session instead of resuming its old one (a reload, or a second client given the
      // seat): one seat, one connection, the newer. The older is closed with a reason and, if its client resumes
      // later, refused with it: two clients with one seat do not take it from each other in turn.
      this.tokenByNetworkId.delete(previous);
      const old = this.server.connections.get(previous);
      if (old) this.server.kick(old, REPLACED);
    }
    this.tokenByNetworkId.set(c.networkId, token);
    this.networkIdByToken.set(token, c.networkId);
    this.hooks.hold?.(token);
  }

  private left(c: Connection<JoinPayload<P>>, reason: string): void {
    const token = this.tokenByNetworkId.get(c.networkId);
    if (token !== undefined) {
      this.tokenByNetworkId.delete(c.networkId);
      if (this.networkIdByToken.get(token) === c.networkId) {
        this.networkIdByToken.delete(token);
        this.hooks.release(token);
      }
    }
    this.call('onLeave', () => this.roomType.definition.onLeave?.(this, c, reason));
  }
}
