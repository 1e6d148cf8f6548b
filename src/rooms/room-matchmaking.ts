// The room server's own matchmaker (in process): claims seats in the directory, creating rooms
// on this process when none matches. Requests run one at a time, in arrival order, so a
// joinOrCreate that finds no room creates one before the next request looks: concurrent
// requests fill one room to maxClients, then the next, never more rooms than needed.

import type { Protocol } from '../core/protocol.ts';
import type { RoomType } from './define-room.ts';
import { after, type ClaimResult, type RoomListing, type RoomMetadata } from './directory.ts';
import {
  MatchmakingError, refusalMessage, type CreateOptions, type JoinOrCreateOptions, type Matchmaker, type RequestOptions, type RoomList,
} from './matchmaker.ts';
import type { RoomServer } from './room-server.ts';
import { hex } from './room-server.ts';
import type { Seat } from './seat.ts';

/** Letters and digits of join codes: no 0/O, 1/I/L. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 6;
/** A lobby's long poll answers after this long without a change (default of `waitMs`). */
const DEFAULT_WAIT_MS = 25_000;

export class LocalMatchmaker implements Matchmaker {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly server: RoomServer) {}

  joinOrCreate(type: string, options: JoinOrCreateOptions = {}): Promise<Seat> {
    return this.serial(async () => {
      const roomType = this.typeOf(type);
      const requestId = options.requestId ?? this.token();
      const filter = options.filter ? { filter: options.filter } : {};
      const claim = await this.server.directory.claim({ ...this.fresh(requestId), type, ...filter });
      if ('seat' in claim) return this.seatOf(claim);
      return this.createRoom(roomType, options.filter ?? {}, false, requestId, false);
    });
  }

  create(type: string, options: CreateOptions = {}): Promise<Seat> {
    const requestId = options.requestId ?? this.token();
    // A room placed here by another process: no queue (that process's queue waits on this answer).
    if (options.here === true) return this.createRoom(this.typeOf(type), options.metadata ?? {}, options.private === true, requestId, true);
    return this.serial(() => this.createRoom(this.typeOf(type), options.metadata ?? {}, options.private === true, requestId, false));
  }

  join(roomId: string, options: RequestOptions = {}): Promise<Seat> {
    return this.serial(async () => {
      const claim = await this.server.directory.claim({ ...this.fresh(options.requestId ?? this.token()), roomId });
      return this.seatOf(claim, roomId);
    });
  }

  joinByCode(code: string, options: RequestOptions = {}): Promise<Seat> {
    return this.serial(async () => {
      const fresh = this.fresh(options.requestId ?? this.token());
      const normalized = code.trim().toUpperCase(); // codes are upper case; a player may type them in lower case
      const claim = await this.server.directory.claim({ ...fresh, code: normalized });
      return this.seatOf(claim, `with code ${normalized}`);
    });
  }

  rooms(type?: string, options: { since?: number; waitMs?: number; signal?: AbortSignal } = {}): Promise<RoomList> {
    const directory = this.server.directory;
    const query = type === undefined ? {} : { type };
    const read = async (): Promise<RoomList> => {
      const [version, rooms] = await Promise.all([directory.version(), directory.rooms(query)]);
      return { version, rooms };
    };
    const since = options.since;
    if (since === undefined) return read();
    // Subscribed at once when the directory answers at once (no change can slip in between).
    return Promise.resolve(after(directory.version(), (v) => (v > since ? undefined : this.changeAfter(type, options)))).then(read);
  }

  /** Resolves at the next change of a listed room of `type`, after `waitMs`, or when aborted. */
  private changeAfter(type: string | undefined, options: { waitMs?: number; signal?: AbortSignal }): Promise<void> {
    return new Promise((resolve) => {
      const scheduler = this.server.scheduler;
      const done = (): void => {
        unsubscribe();
        scheduler.clearTimeout(timer);
        options.signal?.removeEventListener('abort', done);
        resolve();
      };
      const unsubscribe = this.server.directory.subscribe((change) => {
        if (!change.room.private && (type === undefined || change.room.type === type)) done();
      });
      const timer = scheduler.setTimeout(done, options.waitMs ?? DEFAULT_WAIT_MS);
      options.signal?.addEventListener('abort', done);
    });
  }

  private async createRoom(
    type: RoomType<Protocol>, metadata: RoomMetadata, isPrivate: boolean, requestId: string, here: boolean,
  ): Promise<Seat> {
    const elsewhere = here ? undefined : await this.server.placeNewRoom();
    if (elsewhere !== undefined) return this.server.forwardCreate(elsewhere, type.name, { metadata, private: isPrivate, requestId });
    if (this.server.draining) throw new MatchmakingError('draining', refusalMessage('draining', `process ${this.server.processId}`));
    const release = this.server.reserveRoom();
    try {
      return await this.openRoomHere(type, metadata, isPrivate, requestId);
    } finally {
      release();
    }
  }

  private async openRoomHere(type: RoomType<Protocol>, metadata: RoomMetadata, isPrivate: boolean, requestId: string): Promise<Seat> {
    await this.server.canOpenRoom();
    const now = this.server.scheduler.now();
    const listing: RoomListing = {
      roomId: `r${hex(this.server.random())}${hex(this.server.random()).slice(0, 4)}`,
      type: type.name,
      processId: this.server.processId,
      ...(this.server.url === undefined ? {} : { url: this.server.url }),
      metadata: { ...metadata },
      clients: 0,
      maxClients: type.maxClients,
      private: isPrivate,
      ...(isPrivate ? { code: this.code() } : {}),
      locked: false,
      createdAt: now,
    };
    const claim = await this.server.directory.addRoom(listing, this.fresh(requestId));
    if ('seat' in claim && !claim.existing) this.server.openRoom(type, claim.room);
    return this.seatOf(claim);
  }

  private seatOf(claim: ClaimResult, what = ''): Seat {
    if ('refused' in claim) {
      if (claim.refused === 'late') {
        throw new MatchmakingError('unavailable', `react-netcode: room ${what} is on a process that has not answered lately (its heartbeat is late: stopped, or overloaded); try again in a few seconds, or join another room.`);
      }
      const reason = claim.refused === 'no-room' ? 'not-found' : claim.refused;
      throw new MatchmakingError(reason, refusalMessage(reason, what));
    }
    const { seat, room } = claim;
    return {
      token: seat.token,
      roomId: room.roomId,
      roomType: room.type,
      ...(room.code === undefined ? {} : { code: room.code }),
      processId: room.processId,
      ...(room.url === undefined ? {} : { url: room.url }),
      lapseMs: this.server.seatLapseMs,
    };
  }

  private typeOf(name: string): RoomType<Protocol> {
    const type = this.server.types.get(name);
    if (type === undefined) throw new MatchmakingError('unknown-type', refusalMessage('unknown-type', name));
    return type;
  }

  private fresh(requestId: string): { requestId: string; token: string; expiresAt: number } {
    return { requestId, token: this.token(), expiresAt: this.server.scheduler.now() + this.server.seatLapseMs };
  }

  private token(): string {
    const r = this.server.random;
    return hex(r()) + hex(r()) + hex(r()) + hex(r());
  }

  private code(): string {
    let s = '';
    for (let i = 0; i < CODE_LENGTH; i++) s += CODE_ALPHABET[this.server.random() % CODE_ALPHABET.length];
    return s;
  }

  /** Run requests one at a time, in order (a failed one does not stop the next). */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }
}
