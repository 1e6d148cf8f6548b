// FlatHistory: the tick-indexed history of a ghost's values in flat storage (layout and kernels in
// history-layout.ts): a predicted ghost's own history (prediction-state.ts) and every ghost's confirmed
// history (client-ghosts.ts). One Float64Array per ghost, so that a rollback's restore and a frame's
// interpolation read a few contiguous cache lines per ghost instead of a graph of sample and vector objects
// scattered over the heap.

import { NetcodeError } from './errors.ts';
import { oldestStored, type TickHistory } from './history.ts';
import { historyLayout, type HistoryLayout } from './history-layout.ts';
import type { Schema, SchemaCodec, Values } from './schema.ts';
import { isNewer, tickDiff, type Tick } from './clock/tick.ts';

/**
 * A ring of `capacity` ticks (the capacity asked for, rounded up to a power of two, so that a tick's slot is
 * `tick & (capacity − 1)` across the wrap). Storing a tick newer than the newest evicts the ticks that fall out
 * of the window (newest − capacity, newest]. As a TickHistory (tests and debug views) it materializes values:
 * `get` builds a new object, `forEach` passes one object reused between calls.
 */
export class FlatHistory implements TickHistory<Values<Schema>> {
  readonly capacity: number;
  readonly layout: HistoryLayout;
  /** Per slot, `layout.width` doubles: its tick (−1 when empty), then its numeric values. */
  readonly data: Float64Array;
  /** The other values, `layout.others` per slot. */
  readonly other: unknown[];
  private readonly mask: number;
  private readonly width: number;
  private newest: Tick | undefined;
  private count = 0;
  private scratch: Values<Schema> | undefined;

  constructor(
    private readonly codec: SchemaCodec<Schema>,
    capacity: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 2 ** 30) {
      throw new NetcodeError('usage', `react-netcode: a ghost's history must hold an integer number of ticks in 1..2^30 (got ${capacity}).`);
    }
    this.capacity = 2 ** Math.ceil(Math.log2(capacity));
    this.mask = this.capacity - 1;
    this.layout = historyLayout(codec);
    this.width = this.layout.width;
    this.data = new Float64Array(this.capacity * this.width);
    this.other = new Array<unknown>(this.capacity * this.layout.others).fill(undefined);
    this.clear();
  }

  get size(): number {
    return this.count;
  }

  get newestTick(): Tick | undefined {
    return this.newest;
  }

  get oldestTick(): Tick | undefined {
    return oldestStored(this);
  }

  /** The slot holding `tick`, or −1. */
  slot(tick: Tick): number {
    const s = tick & this.mask;
    return this.data[s * this.width] === tick >>> 0 ? s : -1;
  }

  has(tick: Tick): boolean {
    return this.slot(tick) >= 0;
  }

  /**
   * The newest stored tick at or before `tick`, or undefined: history.ts `tickAtOrBefore` with the slot's tick read
   * in place (per ghost and frame in sampling: no call per tick looked at); test/core/flat-history.test.ts compares them.
   */
  tickAtOrBefore(tick: Tick): Tick | undefined {
    const newest = this.newest;
    if (newest === undefined) return undefined;
    const { data, mask, width, capacity } = this;
    let t = isNewer(tick, newest) ? newest : tick >>> 0;
    for (let i = 0; i < capacity; i++, t = (t - 1) >>> 0) {
      if (tickDiff(newest, t) >= capacity) return undefined;
      if (data[(t & mask) * width] === t) return t;
    }
    return undefined;
  }

  /** The oldest stored tick strictly after `tick`, or undefined: history.ts `tickAfter`, read in place as tickAtOrBefore. */
  tickAfter(tick: Tick): Tick | undefined {
    const newest = this.newest;
    if (newest === undefined || !isNewer(newest, tick)) return undefined;
    const { data, mask, width } = this;
    const start = Math.max(1, tickDiff(newest, tick) - this.capacity + 1);
    for (let i = start; ; i++) {
      const t = (tick + i) >>> 0;
      if (data[(t & mask) * width] === t) return t;
      if (t === newest) return undefined;
    }
  }

  /**
   * The slot for `tick`, claimed for it: its own slot when stored (to be overwritten), else a free one;
   * a tick newer than the newest evicts the ticks that leave the window. −1 for a tick older than the window.
   */
  claim(tick: Tick): number {
    tick = tick >>> 0;
    const newest = this.newest;
    if (newest !== undefined && tickDiff(newest, tick) >= this.capacity) return -1;
    if (newest === undefined || isNewer(tick, newest)) {
      if (newest !== undefined) {
        const gap = Math.min(tickDiff(tick, newest), this.capacity);
        for (let i = 1; i <= gap; i++) this.clearSlot((newest + i) & this.mask);
      }
      this.newest = tick;
    }
    const s = tick & this.mask;
    const at = s * this.width;
    if (this.data[at] === -1) this.count++;
    this.data[at] = tick;
    return s;
  }

  /** Record `values` as the state of `tick` (false: older than the window, nothing stored). */
  record(values: Values<Schema>, tick: Tick): boolean {
    const s = this.claim(tick);
    if (s < 0) return false;
    this.layout.kernels.store(values, this.data, this.other, s);
    return true;
  }

  /** Write the state of `tick` into `out` (vectors into its objects); false when `tick` is not stored. */
  read(tick: Tick, out: Values<Schema>): boolean {
    const s = this.slot(tick);
    if (s < 0) return false;
    this.layout.kernels.load(this.data, this.other, s, out);
    return true;
  }

  /** The state of `tick` as a new object (tests and debug views), or undefined. */
  get(tick: Tick): Values<Schema> | undefined {
    const out = this.codec.defaults();
    return this.read(tick, out) ? out : undefined;
  }

  /** The slot of the newest tick stored before the newest one (usually newest − 1), or −1. */
  beforeNewestSlot(): number {
    const newest = this.newest;
    if (newest === undefined) return -1;
    const before = newest === 0 ? 0xffffffff : newest - 1;
    const s = this.slot(before);
    if (s >= 0) return s;
    for (let back = 2; back < this.capacity; back++) {
      const t = (newest - back) >>> 0;
      const older = this.slot(t);
      if (older >= 0) return older;
    }
    return -1;
  }

  /** Visit the stored ticks from oldest to newest; the value passed is one object reused between calls (copy what you keep). */
  forEach(visit: (value: Values<Schema>, tick: Tick) => void): void {
    if (this.newest === undefined) return;
    const value = (this.scratch ??= this.codec.defaults());
    for (let back = this.capacity - 1; back >= 0; back--) {
      const tick = (this.newest - back) >>> 0;
      if (this.read(tick, value)) visit(value, tick);
    }
  }

  clear(): void {
    for (let at = 0; at < this.data.length; at += this.width) this.data[at] = -1;
    if (this.other.length > 0) this.other.fill(undefined);
    this.newest = undefined;
    this.count = 0;
  }

  private clearSlot(s: number): void {
    const at = s * this.width;
    if (this.data[at] === -1) return;
    this.count--;
    this.data[at] = -1;
  }
}
