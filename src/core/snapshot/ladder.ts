// The ack ladder: a connection's acks count as baselines only once they are one of a few fixed ages (rungs,
// in encoder ticks), the rung chosen from its measured ack delay. Clients whose round trips differ a little
// then have acked the same snapshots when those count and share one encode (groups.ts), at the price of
// older baselines for the faster ones. Held acks stay pending. The wire does not change.

import type { Tick } from '../clock/tick.ts';
import { NetcodeError } from '../errors.ts';

/** Default rungs (ack ages in snapshots): one, two (acks straddling one interval), five (~250 ms at 20 Hz). */
export const DEFAULT_ACK_LADDER: readonly number[] = [1, 2, 5];
/** Snapshots in a row whose acks fit a lower rung (an ack heard at each, young enough) before a connection moves down to it. */
export const LADDER_CALM = 20;
/** An ack this many ticks old counts whatever the rung (long before its snapshot leaves the ack window). */
export const LADDER_MAX_HOLD_TICKS = 64;
const RING = 128;

/** A connection's place on the ladder (ConnectionSnapshotState extends it). */
export class LadderSeat {
  /** Index of its rung. */
  rung = 0;
  /** Measurements in a row at or below the rung below (and the largest of them). */
  calm = 0;
  calmMax = 0;
  /** Newest tick acked since the last tick began (as int32), when `heard`. */
  heardTick = 0;
  heard = false;
  /** Rung changes so far. */
  moves = 0;

  /** @internal The client acked up to `tick`. */
  hear(tick: Tick): void {
    if (!this.heard || (tick | 0) - this.heardTick > 0) this.heardTick = tick | 0;
    this.heard = true;
  }
}

export class AckLadder {
  readonly rungs: Int32Array;
  /** Ticks begun so far, and the count at which each recent tick began (by tick % RING). */
  private seq = 0;
  private tick: Tick = 0;
  private readonly seqOf = new Int32Array(RING);
  private readonly tickOf = new Int32Array(RING).fill(-1);

  constructor(rungs: readonly number[]) {
    const ok = rungs.length > 0 && rungs.every((r, i) => Number.isInteger(r) && r >= 1 && r <= 32 && (i === 0 || r > rungs[i - 1]!));
    if (!ok) throw new NetcodeError('usage', `react-netcode: snapshot ackLadder [${rungs.join(', ')}] is invalid; pass ascending integers in 1..32 (snapshots), e.g. [1, 2, 5], or false.`);
    this.rungs = Int32Array.from(rungs);
  }

  begin(tick: Tick): void {
    this.seq++;
    this.tick = tick;
    this.seqOf[tick % RING] = this.seq;
    this.tickOf[tick % RING] = tick | 0;
  }

  /** Ticks begun since `tick` began (a large number when it is unknown or too old). */
  age(tick: Tick): number {
    const i = tick % RING;
    if (this.tickOf[i] !== (tick | 0) || ((this.tick - tick) >>> 0) >= LADDER_MAX_HOLD_TICKS) return 0x7fff_ffff;
    return this.seq - this.seqOf[i]!;
  }

  /** May the ack of `tick` count now for a connection on `seat`'s rung? */
  usable(seat: LadderSeat, tick: Tick): boolean {
    return this.age(tick) >= this.rungs[seat.rung]!;
  }

  /** Measure the delay of the acks heard since the last tick: up at once to the rung that covers it, down after LADDER_CALM. */
  observe(seat: LadderSeat): void {
    if (!seat.heard) {
      seat.calm = 0; // a snapshot without an ack is not comfortably inside any rung
      return;
    }
    seat.heard = false;
    const age = this.age(seat.heardTick >>> 0);
    if (age === 0x7fff_ffff) return; // a tick not encoded lately: no measurement
    const r = this.rungs;
    if (age > r[seat.rung]!) {
      if (seat.rung < r.length - 1) this.seat(seat, age);
      seat.calm = 0;
      return;
    }
    if (seat.rung === 0 || age > r[seat.rung - 1]!) {
      seat.calm = 0;
      return;
    }
    seat.calmMax = seat.calm === 0 ? age : Math.max(seat.calmMax, age);
    if (++seat.calm >= LADDER_CALM) {
      this.seat(seat, seat.calmMax);
      seat.calm = 0;
    }
  }

  /** Put the seat on the lowest rung that covers `age` (the top one when none does). */
  private seat(seat: LadderSeat, age: number): void {
    let j = 0;
    while (j < this.rungs.length - 1 && this.rungs[j]! < age) j++;
    if (j !== seat.rung) seat.moves++;
    seat.rung = j;
  }
}
