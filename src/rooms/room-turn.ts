// One turn over many rooms on one clock: every room runs its due ticks at the same `now`, in an
// order that rotates each turn (no room is always last). The room server's loop runs its rooms
// with it, and so does each room worker (src/rooms/worker-host.ts) for the rooms it was given.

/** What a turn needs of a room: its NetServer's update and when its next tick is due. */
export interface TurnRoom {
  readonly id: string;
  readonly server: { update(now: number): void; readonly msUntilNextTick: number };
}

export class RoomTurn<R extends TurnRoom> {
  private order: R[] = [];
  private turn = 0;

  constructor(private readonly failed: (room: R, error: unknown, now: number) => void) {}

  get rooms(): readonly R[] {
    return this.order;
  }

  add(room: R): void {
    this.order = [...this.order, room];
  }

  remove(room: R): void {
    this.order = this.order.filter((r) => r !== room);
  }

  /** Every room's due ticks at `now`, starting one room later than last turn. */
  run(now: number): void {
    const order = this.order;
    const n = order.length;
    const start = n === 0 ? 0 : this.turn++ % n;
    for (let i = 0; i < n; i++) {
      const room = order[(start + i) % n]!;
      try {
        room.server.update(now); // contained inside per stage; this guards the other rooms of the turn
      } catch (error) {
        this.failed(room, error, now);
      }
    }
  }

  /** How long until the earliest room's next tick, at most `maxMs`. */
  msUntilNext(maxMs: number): number {
    let ms = maxMs;
    for (const room of this.order) ms = Math.min(ms, room.server.msUntilNextTick);
    return ms;
  }
}
