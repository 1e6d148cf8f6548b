// The room directory: where matchmaking finds rooms and keeps seats. One interface, two homes:
// in this process (MemoryDirectory, the default) or shared by a cluster (a Redis directory,
// not built yet). Every method may answer synchronously or with a Promise; `claim` and
// `addRoom` are atomic: no two claims can take the last place of a room.

/** A value now, or later. The in-memory directory answers now (deterministic tests); a networked one later. */
export type MaybePromise<T> = T | Promise<T>;

/** What rooms are matched on: mode, region, or the app's own keys. */
export type RoomMetadata = Readonly<Record<string, string | number | boolean>>;

/** One room as the directory (and a lobby) sees it. */
export interface RoomListing {
  readonly roomId: string;
  readonly type: string;
  /** The process that runs it. */
  readonly processId: string;
  /** Where that process listens for clients, when known. */
  readonly url?: string;
  readonly metadata: RoomMetadata;
  /** Seats taken: used by a live connection or reserved and not lapsed. Never above maxClients. */
  readonly clients: number;
  readonly maxClients: number;
  /** Private rooms are joined by code only: never listed, never picked by joinOrCreate. */
  readonly private: boolean;
  readonly code?: string;
  /** Locked rooms (a match under way, a draining process) take no new seats. */
  readonly locked: boolean;
  readonly createdAt: number;
}

/** One place reserved in one room. */
export interface SeatRecord {
  readonly token: string;
  /** The client-chosen id of the request that made it: the same id gets the same seat again. */
  readonly requestId: string;
  readonly roomId: string;
  /** True from the moment a link presents it until that link is gone; a used seat never lapses. */
  readonly used: boolean;
  /** When an unused seat lapses (server clock, ms). */
  readonly expiresAt: number;
}

/** A seat to claim: in one room (roomId or code) or in the best room of a type matching a filter. */
export interface ClaimQuery {
  readonly requestId: string;
  /** Token and lapse time of the seat, if a new one is made. */
  readonly token: string;
  readonly expiresAt: number;
  readonly roomId?: string;
  readonly code?: string;
  readonly type?: string;
  readonly filter?: RoomMetadata;
}

/** Why no seat: no matching room, the room is full, locked, or unknown. */
/** `late`: the room's process has not renewed its heartbeat lately (a shared directory only): stopped, or overloaded. */
export type ClaimRefusal = 'no-room' | 'full' | 'locked' | 'not-found' | 'late';

export type ClaimResult =
  | { readonly seat: SeatRecord; readonly room: RoomListing; readonly existing: boolean }
  | { readonly refused: ClaimRefusal };

export interface RoomChange {
  /** The directory's version after this change (it only grows). */
  readonly version: number;
  readonly kind: 'add' | 'update' | 'remove';
  readonly room: RoomListing;
}

/** A process of the cluster and its load, as it last reported it. */
export interface ProcessRecord {
  readonly processId: string;
  readonly url?: string;
  readonly rooms: number;
  readonly clients: number;
  /** Draining processes take no new rooms. */
  readonly draining: boolean;
  readonly heartbeatAt: number;
}

export interface RoomQuery {
  readonly type?: string;
  /** Include private rooms (the owner process's own view; never a lobby's). */
  readonly includePrivate?: boolean;
}

export interface Directory {
  /** Atomically: the seat of `requestId` if it has one, else a new seat in the chosen room, else why not. */
  claim(query: ClaimQuery): MaybePromise<ClaimResult>;
  /**
   * Register a new room and, atomically with it, the seat of the request that created it
   * (or that request's existing seat if it was already served: the new room is then not added).
   */
  addRoom(room: RoomListing, first: Omit<ClaimQuery, 'roomId' | 'code' | 'type' | 'filter'>): MaybePromise<ClaimResult>;
  /** Lock or unlock a room. */
  setLocked(roomId: string, locked: boolean): MaybePromise<void>;
  /** Remove a room and its seats (returned). */
  removeRoom(roomId: string): MaybePromise<readonly SeatRecord[]>;
  seat(token: string): MaybePromise<SeatRecord | undefined>;
  /** A link presented the seat (`used` true) or the last one went away (false: it lapses at `expiresAt` unless used again). */
  markUsed(token: string, used: boolean, expiresAt: number): MaybePromise<void>;
  /** The seat's player left for good: its place is free. */
  releaseSeat(token: string): MaybePromise<void>;
  /** Drop the unused seats whose time is up; returns them. */
  expireSeats(now: number): MaybePromise<readonly SeatRecord[]>;
  rooms(query?: RoomQuery): MaybePromise<readonly RoomListing[]>;
  room(roomId: string): MaybePromise<RoomListing | undefined>;
  /** Grows with every change of a listed room (lobbies poll "anything after version v?"). */
  version(): MaybePromise<number>;
  /**
   * Changes as they happen (this process's and, for a shared directory, the others'), private rooms' included: the
   * room servers keep their rooms' seat counts from them (a lobby's feed filters private rooms out). Returns the unsubscribe.
   */
  subscribe(listener: (change: RoomChange) => void): () => void;
  /** Report this process and its load (a heartbeat). */
  registerProcess(record: ProcessRecord): MaybePromise<void>;
  processes(): MaybePromise<readonly ProcessRecord[]>;
  /**
   * Optional, for shared directories: renew the heartbeat (with a TTL); true when the process was
   * not registered (new, or the directory lost it: a Redis restart), so its rooms must be restored.
   */
  heartbeat?(record: ProcessRecord): MaybePromise<boolean>;
  /** Optional: register a room again, with the seats (token, requestId) its connections hold. */
  restoreRoom?(room: RoomListing, held: ReadonlyArray<readonly [token: string, requestId: string]>): MaybePromise<void>;
  /** Optional: remove the rooms of processes whose heartbeat lapsed; returns their ids. */
  reap?(): MaybePromise<readonly string[]>;
}

/** Whether `metadata` has every key of `filter` with the same value. */
export function matchesFilter(metadata: RoomMetadata, filter: RoomMetadata | undefined): boolean {
  if (filter === undefined) return true;
  for (const key of Object.keys(filter)) if (metadata[key] !== filter[key]) return false;
  return true;
}

/** Run `fn` on a MaybePromise's value: at once when it is a value, after it settles when a Promise. */
export function after<T, R>(value: MaybePromise<T>, fn: (v: T) => R): MaybePromise<R> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}

/** Like `after`, for work nobody waits on: a rejection goes to `onError` instead of becoming unhandled. */
export function settle<T>(value: MaybePromise<T>, fn: (v: T) => void, onError: (error: unknown) => void): void {
  if (!(value instanceof Promise)) return fn(value);
  value.then(fn).catch(onError);
}
