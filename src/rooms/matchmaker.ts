// The matchmaker's API, one interface for both sides: the room server's own (in process, the
// default) and the HTTP client's (createMatchmakerClient), so game code and the React hooks do
// not care where matchmaking runs. Every call returns a Seat or throws a MatchmakingError that
// says what to do.

import { NetcodeError } from '../core/errors.ts';
import type { RoomListing, RoomMetadata } from './directory.ts';
import type { Seat } from './seat.ts';

/** Why matchmaking gave no seat. */
export type MatchmakingReason =
  | 'unknown-type' // no room type of that name
  | 'not-found' // no room of that id or code (it ended, or the code is wrong)
  | 'full' // the room has maxClients seats taken
  | 'locked' // the room takes no new players
  | 'draining' // the process is shutting down and takes no new rooms
  | 'bad-request' // the request was malformed
  | 'unavailable'; // the matchmaker could not be reached or failed

export class MatchmakingError extends NetcodeError {
  readonly reason: MatchmakingReason;
  constructor(reason: MatchmakingReason, message: string) {
    super('matchmaking', message);
    this.name = 'MatchmakingError';
    this.reason = reason;
  }
}

export interface RequestOptions {
  /**
   * Idempotency key, unguessable (default: a fresh random one per call). The same id gets the same
   * seat again: retry a request whose answer was lost with the same id, and no second seat is taken.
   */
  requestId?: string;
}

export interface JoinOrCreateOptions extends RequestOptions {
  /** Join only a room whose metadata has these values (mode, region, the app's keys); a new room gets them. */
  filter?: RoomMetadata;
}

export interface CreateOptions extends RequestOptions {
  /** The new room's metadata (what joinOrCreate filters match). */
  metadata?: RoomMetadata;
  /** A private room: not listed, not matched, joined by its `code` only. */
  private?: boolean;
  /** Create it on the process that serves this request, not on the least loaded one of a cluster (default false). */
  here?: boolean;
}

/** One lobby's view: the listed rooms of one type, and the directory version it was read at. */
export interface RoomList {
  readonly version: number;
  readonly rooms: readonly RoomListing[];
}

export interface Matchmaker {
  /** A seat in the fullest open room of `type` whose metadata matches the filter, or in a new room. */
  joinOrCreate(type: string, options?: JoinOrCreateOptions): Promise<Seat>;
  /** A seat in a new room of `type`. */
  create(type: string, options?: CreateOptions): Promise<Seat>;
  /** A seat in the room with this id. */
  join(roomId: string, options?: RequestOptions): Promise<Seat>;
  /** A seat in the private (or public) room with this code. */
  joinByCode(code: string, options?: RequestOptions): Promise<Seat>;
  /**
   * The public rooms of `type` (all types if omitted). With `since`, waits (up to `waitMs`, default
   * 25 s) until the directory has changed after that version: a lobby calls it in a loop.
   */
  rooms(type?: string, options?: { since?: number; waitMs?: number; signal?: AbortSignal }): Promise<RoomList>;
}

/** The error message for a refusal, saying what to do. */
export function refusalMessage(reason: MatchmakingReason, what: string): string {
  switch (reason) {
    case 'unknown-type':
      return `react-netcode: no room type "${what}"; pass it to the room server's rooms (defineRoom).`;
    case 'not-found':
      return `react-netcode: no room ${what} (it ended, or the id or code is wrong); check it, or call joinOrCreate.`;
    case 'full':
      return `react-netcode: room ${what} is full; join another room or call joinOrCreate.`;
    case 'locked':
      return `react-netcode: room ${what} takes no new players (locked); join another room or call joinOrCreate.`;
    case 'draining':
      return `react-netcode: this server is shutting down and takes no new rooms (${what}); retry in a moment (another process will take it).`;
    case 'bad-request':
      return `react-netcode: bad matchmaking request: ${what}.`;
    case 'unavailable':
      return `react-netcode: the matchmaker is unavailable (${what}); retry with the same requestId.`;
  }
}

/** A fresh unguessable id (128 bits, hex), from Web Crypto. */
export function randomId(): string {
  const words = globalThis.crypto.getRandomValues(new Uint32Array(4));
  let s = '';
  for (const w of words) s += w.toString(16).padStart(8, '0');
  return s;
}
