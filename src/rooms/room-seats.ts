// The room server's seat gate: the first message of a link (its Seat) turns into the room to route it to,
// or the reason to refuse it; a link that goes away leaves its seat to lapse unused unless a connection
// still holds it. One seat may come again on a new link while an older one holds it: the room's server
// settles which session that link gets by its Hello (a resume with the session's token takes it over, a
// new session replaces the old one).

import type { Scheduler, PeerId } from '../core/transport.ts';
import { after, type Directory, type MaybePromise, type RoomListing } from './directory.ts';
import type { HostedRoom } from './live-room.ts';
import type { SeatGate, SeatVerdict } from './room-mux.ts';

/** What the gate uses of its room server. */
export interface SeatHost {
  readonly directory: Directory;
  readonly scheduler: Scheduler;
  readonly processId: string;
  readonly url: string | undefined;
  readonly seatLapseMs: number;
  room(roomId: string): HostedRoom | undefined;
  /** Whether a connection of one of this process's rooms holds the seat. */
  holds(token: string): boolean;
  /** Directory work nobody waits on (a failure is logged). */
  fire(value: MaybePromise<unknown>, what: string): void;
}

export class RoomSeats implements SeatGate {
  /** The newest link that presented each seat. */
  private readonly linkOfSeat = new Map<string, PeerId>();

  constructor(private readonly host: SeatHost) {}

  admit(token: string, peer: PeerId): MaybePromise<SeatVerdict> {
    // A promise that resolves to a promise is flattened by `then`: the nested MaybePromise is one.
    return after(this.host.directory.seat(token), (seat): MaybePromise<SeatVerdict> => {
      if (seat === undefined) {
        return { refuse: `react-netcode: this seat is unknown or lapsed unused (an unused seat is kept ${this.host.seatLapseMs} ms); call joinOrCreate or join again for a new seat.` };
      }
      const room = this.host.room(seat.roomId);
      if (room === undefined) {
        return after(this.host.directory.room(seat.roomId), (listing) => ({ refuse: this.notHere(seat.roomId, listing) }));
      }
      this.linkOfSeat.set(token, peer);
      this.host.fire(this.host.directory.markUsed(token, true, seat.expiresAt), 'seat');
      return { room: room.link };
    }) as MaybePromise<SeatVerdict>;
  }

  /** Why a seat of room `roomId` (listed as `listing`, or no more) cannot be used on this process. */
  private notHere(roomId: string, listing: RoomListing | undefined): string {
    const again = 'matchmake again for a new seat';
    if (listing === undefined) return `react-netcode: room ${roomId} has ended; ${again}.`;
    if (listing.url !== undefined && listing.url === this.host.url) {
      return `react-netcode: room ${roomId} ran at this address in process ${listing.processId}, which is gone (this is process ${this.host.processId}, started since); ${again}.`;
    }
    return `react-netcode: room ${roomId} runs on process ${listing.processId}${listing.url === undefined ? '' : ` at ${listing.url}`}, not on this one (${this.host.processId}); connect to the url of the seat, or ${again}.`;
  }

  /** A link routed with `token` went away: an unheld seat lapses unused after seatLapseMs. */
  gone(token: string, peer: PeerId): void {
    if (this.linkOfSeat.get(token) !== peer) return;
    this.linkOfSeat.delete(token);
    if (this.host.holds(token)) return; // suspended: the seat is kept until its connection leaves
    this.host.fire(this.host.directory.markUsed(token, false, this.host.scheduler.now() + this.host.seatLapseMs), 'seat');
  }
}
