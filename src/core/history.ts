// HistoryBuffer: the tick-indexed store of values (docs/architecture.md, house rule 4). A fixed-capacity
// ring keyed by Tick: input buffers are instances of it (a ghost's confirmed and predicted histories are
// the flat FlatHistory of flat-history.ts, read through the same TickHistory).
// Old ticks are evicted as newer ones arrive; lookups are wrap-safe.

import { NetcodeError } from './errors.ts';
import { isNewer, tickDiff, type Tick } from './clock/tick.ts';

/** What a tick-indexed history lets you read (HistoryBuffer, and a predicted ghost's history: `prediction.history(ghost)`). */
export interface TickHistory<T> {
  readonly capacity: number;
  readonly size: number;
  readonly newestTick: Tick | undefined;
  readonly oldestTick: Tick | undefined;
  has(tick: Tick): boolean;
  get(tick: Tick): T | undefined;
  /** Visit stored entries from oldest to newest. */
  forEach(visit: (value: T, tick: Tick) => void): void;
}

type Ring = Pick<TickHistory<unknown>, 'newestTick' | 'capacity' | 'has'>;

/** The oldest tick a tick ring still holds (a scan back from the newest over its window), or undefined when empty. */
export function oldestStored(ring: Ring): Tick | undefined {
  const newest = ring.newestTick;
  if (newest === undefined) return undefined;
  for (let back = ring.capacity - 1; back >= 0; back--) {
    const tick = (newest - back) >>> 0;
    if (ring.has(tick)) return tick;
  }
  return undefined;
}

/** The newest tick a tick ring holds at or before `tick`, or undefined (a scan back over its window). */
export function tickAtOrBefore(ring: Ring, tick: Tick): Tick | undefined {
  const newest = ring.newestTick;
  if (newest === undefined) return undefined;
  let t = isNewer(tick, newest) ? newest : tick >>> 0;
  for (let i = 0; i < ring.capacity; i++, t = (t - 1) >>> 0) {
    if (tickDiff(newest, t) >= ring.capacity) return undefined;
    if (ring.has(t)) return t;
  }
  return undefined;
}

/** The oldest tick a tick ring holds strictly after `tick`, or undefined. */
export function tickAfter(ring: Ring, tick: Tick): Tick | undefined {
  const newest = ring.newestTick;
  if (newest === undefined || !isNewer(newest, tick)) return undefined;
  const start = Math.max(1, tickDiff(newest, tick) - ring.capacity + 1);
  for (let i = start; ; i++) {
    const t = (tick + i) >>> 0;
    if (ring.has(t)) return t;
    if (t === newest) return undefined;
  }
}

export class HistoryBuffer<T> implements TickHistory<T> {
  readonly capacity: number;
  /** The tick stored in each slot, or -1 when the slot is empty (one read answers `has`). */
  private readonly ticks: Float64Array;
  private readonly values: (T | undefined)[];
  /** capacity − 1 when the capacity is a power of two (a slot is then `tick & mask`, no division), else −1. */
  private readonly mask: number;
  private newest: Tick | undefined;
  /** Times the newest tick wrapped past 2^32 (a capacity that is not a power of two counts slots on the unwrapped tick). */
  private laps = 0;
  private count = 0;

  /** `onEvict` receives every value that leaves the buffer (eviction, delete, clear, overwrite), e.g. to pool it. */
  constructor(
    capacity: number,
    private readonly onEvict?: (value: T) => void,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new NetcodeError('usage', `react-netcode: HistoryBuffer capacity must be a positive integer (got ${capacity}).`);
    }
    this.capacity = capacity;
    this.mask = capacity <= 2 ** 30 && (capacity & (capacity - 1)) === 0 ? capacity - 1 : -1;
    this.ticks = new Float64Array(capacity).fill(-1);
    this.values = new Array<T | undefined>(capacity).fill(undefined);
  }

  get size(): number {
    return this.count;
  }

  /** The newest tick stored, or undefined when empty. */
  get newestTick(): Tick | undefined {
    return this.newest;
  }

  /** The oldest tick still stored, or undefined when empty. */
  get oldestTick(): Tick | undefined {
    return oldestStored(this);
  }

  private slot(tick: Tick): number {
    if (this.mask >= 0) return tick & this.mask; // 2^32 is a multiple of the capacity: the wrap keeps the slots in order
    if (this.newest === undefined) return tick % this.capacity;
    // Divide the tick counted past the wrap, so that the ticks of one window never share a slot.
    const unwrapped = this.laps * 4294967296 + this.newest - tickDiff(this.newest, tick);
    const s = unwrapped % this.capacity;
    return s < 0 ? s + this.capacity : s;
  }

  /**
   * Store `value` at `tick`. Storing a tick newer than the newest evicts every tick that
   * falls out of the window (newest - capacity, newest]. A tick older than the window is ignored (returns false).
   */
  set(tick: Tick, value: T): boolean {
    tick = tick >>> 0;
    if (this.newest !== undefined && tickDiff(this.newest, tick) >= this.capacity) return false;
    if (this.newest === undefined || isNewer(tick, this.newest)) {
      if (this.newest !== undefined) {
        const gap = Math.min(tickDiff(tick, this.newest), this.capacity);
        for (let i = 1; i <= gap; i++) this.clearSlot(this.slot((this.newest + i) >>> 0));
        if (tick < this.newest) this.laps++; // newer but smaller: the tick wrapped
      }
      this.newest = tick;
    }
    const s = this.slot(tick);
    if (this.ticks[s] === -1) this.count++;
    else if (this.onEvict && this.values[s] !== value) this.onEvict(this.values[s] as T);
    this.ticks[s] = tick;
    this.values[s] = value;
    return true;
  }

  has(tick: Tick): boolean {
    tick = tick >>> 0;
    return this.ticks[this.slot(tick)] === tick;
  }

  /** The value stored at exactly `tick`, or undefined. */
  get(tick: Tick): T | undefined {
    tick = tick >>> 0;
    const s = this.slot(tick);
    return this.ticks[s] === tick ? this.values[s] : undefined;
  }

  /**
   * The value stored at the newest tick before the newest one (usually newest − 1), or undefined.
   * Per frame and ghost (frame interpolation): no tick number crosses a call, so none is boxed.
   */
  beforeNewest(): T | undefined {
    const newest = this.newest;
    if (newest === undefined) return undefined;
    const before = newest === 0 ? 0xffffffff : newest - 1;
    const s = this.slot(before);
    if (this.ticks[s] === before) return this.values[s];
    const older = this.tickAtOrBefore(before);
    return older === undefined ? undefined : this.get(older);
  }

  /** The newest stored tick at or before `tick`, or undefined. */
  tickAtOrBefore(tick: Tick): Tick | undefined {
    return tickAtOrBefore(this, tick);
  }

  /** The oldest stored tick strictly after `tick`, or undefined. */
  tickAfter(tick: Tick): Tick | undefined {
    return tickAfter(this, tick);
  }

  /** Remove `tick` if stored. */
  delete(tick: Tick): void {
    if (this.has(tick)) this.clearSlot(this.slot(tick >>> 0));
  }

  /** Evict every tick strictly older than `tick`. */
  evictBefore(tick: Tick): void {
    if (this.newest === undefined) return;
    for (let s = 0; s < this.capacity; s++) {
      const stored = this.ticks[s]!;
      if (stored !== -1 && isNewer(tick, stored)) this.clearSlot(s);
    }
  }

  clear(): void {
    if (this.onEvict) for (let s = 0; s < this.capacity; s++) if (this.ticks[s] !== -1) this.onEvict(this.values[s] as T);
    this.ticks.fill(-1);
    this.values.fill(undefined);
    this.newest = undefined;
    this.laps = 0;
    this.count = 0;
  }

  /** Visit stored entries from oldest to newest. */
  forEach(visit: (value: T, tick: Tick) => void): void {
    if (this.newest === undefined) return;
    for (let back = this.capacity - 1; back >= 0; back--) {
      const tick = (this.newest - back) >>> 0;
      if (this.has(tick)) visit(this.values[this.slot(tick)] as T, tick);
    }
  }

  private clearSlot(s: number): void {
    if (this.ticks[s] !== -1) {
      this.count--;
      this.onEvict?.(this.values[s] as T);
    }
    this.ticks[s] = -1;
    this.values[s] = undefined;
  }
}
