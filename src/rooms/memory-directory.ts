// The in-process directory, the default: rooms, seats and process load in Maps. Every method
// answers synchronously, so a claim is atomic by construction (one thread, no await inside)
// and tests on a virtual clock stay deterministic.

import type {
  ClaimQuery, ClaimResult, Directory, ProcessRecord, RoomChange, RoomListing, RoomQuery, SeatRecord,
} from './directory.ts';
import { matchesFilter } from './directory.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class MemoryDirectory implements Directory {
  private readonly roomsById = new Map<string, Mutable<RoomListing>>();
  private readonly roomByCode = new Map<string, string>();
  private readonly seats = new Map<string, Mutable<SeatRecord>>();
  private readonly seatByRequest = new Map<string, string>();
  private readonly seatsOfRoom = new Map<string, Set<string>>();
  private readonly procs = new Map<string, ProcessRecord>();
  private readonly listeners = new Set<(change: RoomChange) => void>();
  private changes = 0;

  claim(q: ClaimQuery): ClaimResult {
    const existing = this.existing(q.requestId);
    if (existing !== undefined) return existing;
    const room = this.pick(q);
    if (!('roomId' in room)) return room;
    return { seat: this.addSeat(room, q), room: { ...room }, existing: false };
  }

  addRoom(listing: RoomListing, first: Omit<ClaimQuery, 'roomId' | 'code' | 'type' | 'filter'>): ClaimResult {
    const existing = this.existing(first.requestId);
    if (existing !== undefined) return existing;
    const room: Mutable<RoomListing> = { ...listing, clients: 0 };
    this.roomsById.set(room.roomId, room);
    this.seatsOfRoom.set(room.roomId, new Set());
    if (room.code !== undefined) this.roomByCode.set(room.code, room.roomId);
    const seat = this.addSeat(room, first, false);
    this.emit('add', room);
    return { seat, room: { ...room }, existing: false };
  }

  setLocked(roomId: string, locked: boolean): void {
    const room = this.roomsById.get(roomId);
    if (room === undefined || room.locked === locked) return;
    room.locked = locked;
    this.emit('update', room);
  }

  removeRoom(roomId: string): SeatRecord[] {
    const room = this.roomsById.get(roomId);
    if (room === undefined) return [];
    const dropped: SeatRecord[] = [];
    for (const token of this.seatsOfRoom.get(roomId) ?? []) {
      const seat = this.seats.get(token);
      if (seat !== undefined) dropped.push(seat);
      this.dropSeat(token);
    }
    this.roomsById.delete(roomId);
    this.seatsOfRoom.delete(roomId);
    if (room.code !== undefined) this.roomByCode.delete(room.code);
    this.emit('remove', room);
    return dropped;
  }

  seat(token: string): SeatRecord | undefined {
    const seat = this.seats.get(token);
    return seat === undefined ? undefined : { ...seat };
  }

  markUsed(token: string, used: boolean, expiresAt: number): void {
    const seat = this.seats.get(token);
    if (seat === undefined) return;
    seat.used = used;
    seat.expiresAt = expiresAt;
  }

  releaseSeat(token: string): void {
    const seat = this.seats.get(token);
    if (seat === undefined) return;
    this.dropSeat(token);
    const room = this.roomsById.get(seat.roomId);
    if (room !== undefined) {
      room.clients--;
      this.emit('update', room);
    }
  }

  expireSeats(now: number): SeatRecord[] {
    const lapsed: SeatRecord[] = [];
    for (const seat of this.seats.values()) if (!seat.used && now >= seat.expiresAt) lapsed.push({ ...seat });
    for (const seat of lapsed) this.releaseSeat(seat.token);
    return lapsed;
  }

  rooms(query: RoomQuery = {}): RoomListing[] {
    const out: RoomListing[] = [];
    for (const room of this.roomsById.values()) {
      if (query.type !== undefined && room.type !== query.type) continue;
      if (room.private && query.includePrivate !== true) continue;
      out.push({ ...room });
    }
    return out;
  }

  room(roomId: string): RoomListing | undefined {
    const room = this.roomsById.get(roomId);
    return room === undefined ? undefined : { ...room };
  }

  version(): number {
    return this.changes;
  }

  subscribe(listener: (change: RoomChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  registerProcess(record: ProcessRecord): void {
    this.procs.set(record.processId, { ...record });
  }

  processes(): ProcessRecord[] {
    return [...this.procs.values()];
  }

  /** The seat an earlier request with this id got, if it still exists. */
  private existing(requestId: string): ClaimResult | undefined {
    const token = this.seatByRequest.get(requestId);
    const seat = token === undefined ? undefined : this.seats.get(token);
    const room = seat === undefined ? undefined : this.roomsById.get(seat.roomId);
    if (seat === undefined || room === undefined) return undefined;
    return { seat: { ...seat }, room: { ...room }, existing: true };
  }

  /** The room a query names, or the best open room of its type and filter: the fullest (fill rooms first), then the oldest. */
  private pick(q: ClaimQuery): Mutable<RoomListing> | { refused: 'no-room' | 'full' | 'locked' | 'not-found' } {
    const named = q.roomId ?? (q.code === undefined ? undefined : this.roomByCode.get(q.code.toUpperCase()));
    if (q.roomId !== undefined || q.code !== undefined) {
      const room = named === undefined ? undefined : this.roomsById.get(named);
      if (room === undefined) return { refused: 'not-found' };
      if (room.locked) return { refused: 'locked' };
      return room.clients >= room.maxClients ? { refused: 'full' } : room;
    }
    let best: Mutable<RoomListing> | undefined;
    for (const room of this.roomsById.values()) {
      if (room.type !== q.type || room.private || room.locked || room.clients >= room.maxClients) continue;
      if (!matchesFilter(room.metadata, q.filter)) continue;
      if (best === undefined || room.clients > best.clients) best = room;
    }
    return best ?? { refused: 'no-room' };
  }

  private addSeat(room: Mutable<RoomListing>, q: { requestId: string; token: string; expiresAt: number }, emit = true): SeatRecord {
    const seat: SeatRecord = { token: q.token, requestId: q.requestId, roomId: room.roomId, used: false, expiresAt: q.expiresAt };
    this.seats.set(seat.token, { ...seat });
    this.seatByRequest.set(seat.requestId, seat.token);
    this.seatsOfRoom.get(room.roomId)?.add(seat.token);
    room.clients++;
    if (emit) this.emit('update', room);
    return seat;
  }

  private dropSeat(token: string): void {
    const seat = this.seats.get(token);
    if (seat === undefined) return;
    this.seats.delete(token);
    if (this.seatByRequest.get(seat.requestId) === token) this.seatByRequest.delete(seat.requestId);
    this.seatsOfRoom.get(seat.roomId)?.delete(token);
  }

  private emit(kind: RoomChange['kind'], room: RoomListing): void {
    this.changes++;
    const change: RoomChange = { version: this.changes, kind, room: { ...room } };
    for (const listener of [...this.listeners]) listener(change);
  }
}
