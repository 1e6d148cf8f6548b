// The room server's options and events, and the checks of its durations (room-server.ts).

import type { Logger } from '../core/emitter.ts';
import { NetcodeError } from '../core/errors.ts';
import type { ServerTransport, Scheduler } from '../core/transport.ts';
import type { Room, RoomType } from './define-room.ts';
import type { Directory } from './directory.ts';
import type { CreateOptions } from './matchmaker.ts';
import type { RoomWorkersOptions } from './room-workers.ts';
import type { Seat } from './seat.ts';

export interface RoomServerOptions {
  /** The room types this process runs (defineRoom). */
  rooms: readonly RoomType<any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- each type has its own protocol
  /** The one transport every room shares (e.g. createSocketIoServerTransport). */
  transport: ServerTransport;
  /** Clock and timers (default: the real monotonic clock). Tests pass a VirtualScheduler and call update(now). */
  scheduler?: Scheduler;
  /** Where rooms and seats are kept (default: a MemoryDirectory, in this process). */
  directory?: Directory;
  /** This process's id in the directory (default: random). */
  processId?: string;
  /** The URL clients reach this process at, handed out with seats (a cluster needs it; default none). */
  url?: string;
  /**
   * An unused seat lapses this long after it was reserved, or after its last link went away
   * (default 30,000 ms). A used seat never lapses.
   */
  seatLapseMs?: number;
  /** A room without seats is disposed after this long (default 30,000 ms; per type: emptyGraceMs). */
  emptyGraceMs?: number;
  /** A link that does not present its seat within this long is refused (default 10,000 ms). */
  seatTimeoutMs?: number;
  /** Links waiting to present their seat, at most (default 64); more are turned away. */
  maxPendingPeers?: number;
  /**
   * Rooms this process runs at most (default 500): a create beyond it is refused ('unavailable', HTTP 503), so a
   * flood of creates (matchmaking has no rate limit of its own) cannot grow the process without bound.
   */
  maxRooms?: number;
  /**
   * With a shared directory (one that keeps heartbeats, e.g. Redis): how a new room is created on
   * another process, the least loaded one (serveRooms passes an HTTP call to its matchmaker with
   * `here: true`). Without it, or with an in-process directory, rooms are created here.
   */
  forwardCreate?: (url: string, type: string, options: CreateOptions) => Promise<Seat>;
  /** uint32 source for seat tokens, room ids, codes and resume tokens (default Web Crypto; tests pass a seeded one). */
  random?: () => number;
  log?: Logger;
  /**
   * Run the rooms in worker threads, when one core is not enough: `{ count, module }`, where
   * `module` exports the same room types (each worker imports it to build its rooms). Links,
   * seats, matchmaking and the directory stay in this thread. Default: every room in this thread.
   */
  workers?: RoomWorkersOptions | 0;
}

export type RoomServerEvents = {
  create: (room: Room) => void;
  dispose: (room: Room, reason: string) => void;
};

export function positive(v: number, name: string): number {
  if (!(v > 0)) throw new NetcodeError('usage', `react-netcode: ${name} must be a number of ms > 0, got ${String(v)}.`);
  return v;
}

export function nonNegative(v: number, name: string): number {
  if (!(v >= 0)) throw new NetcodeError('usage', `react-netcode: ${name} must be a number of ms >= 0, got ${String(v)}.`);
  return v;
}
