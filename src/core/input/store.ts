// The pooled, tick-indexed input history under both the client InputBuffer and the
// server's per-connection queue: a HistoryBuffer of reusable entries, plus the event
// counts of the newest evicted entry so "the counts before tick t" survive eviction.

import { NetcodeError } from '../errors.ts';
import { HistoryBuffer } from '../history.ts';
import type { Schema, SchemaCodec, Values } from '../schema.ts';
import { isNewer, type Tick } from '../clock/tick.ts';
import { copyEvents } from './events.ts';

export interface InputEntry<S extends Schema> {
  tick: Tick;
  readonly values: Values<S>;
}

export class InputStore<S extends Schema> {
  private readonly history: HistoryBuffer<InputEntry<S>>;
  /**
   * Free entries: the first `pooled` of `pool`, written by index (push and pop on an array that
   * empties and refills let V8 shrink and regrow its storage, a new backing store per refill).
   */
  private readonly pool: (InputEntry<S> | undefined)[] = [];
  private pooled = 0;
  /** Event counts before every stored tick: those of the newest evicted entry, else 0 (counts start at 0). */
  private readonly floor: Values<S>;
  private floorTick: Tick | undefined;

  constructor(
    private readonly codec: SchemaCodec<S>,
    capacity: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 2) throw new NetcodeError('usage', `react-netcode: input history capacity must be an integer >= 2, got ${String(capacity)}; the default is 128 ticks.`);
    this.history = new HistoryBuffer<InputEntry<S>>(capacity, (e) => this.evicted(e));
    this.floor = codec.defaults();
  }

  get capacity(): number {
    return this.history.capacity;
  }

  get newestTick(): Tick | undefined {
    return this.history.newestTick;
  }

  get size(): number {
    return this.history.size;
  }

  /** The entry stored at `tick`, or a pooled one to fill and `put` (its values are stale). */
  entryFor(tick: Tick): InputEntry<S> {
    const entry = this.history.get(tick) ?? this.#take() ?? { tick, values: this.codec.defaults() };
    entry.tick = tick >>> 0;
    return entry;
  }

  /** Store `entry` at its tick; false (and the entry goes back to the pool) when the tick is older than the window. */
  put(entry: InputEntry<S>): boolean {
    if (this.history.set(entry.tick, entry)) return true;
    this.#give(entry);
    return false;
  }

  has(tick: Tick): boolean {
    return this.history.has(tick);
  }

  get(tick: Tick): Values<S> | undefined {
    return this.history.get(tick)?.values;
  }

  /** The newest entry at or before `tick`, or undefined. */
  atOrBefore(tick: Tick): InputEntry<S> | undefined {
    const t = this.history.tickAtOrBefore(tick);
    return t === undefined ? undefined : this.history.get(t);
  }

  /** Values whose event counts are those in force before `tick`: the newest stored before it, else the floor. */
  before(tick: Tick): Values<S> {
    return this.atOrBefore((tick - 1) >>> 0)?.values ?? this.floor;
  }

  /** Forget everything; counts start again at 0. */
  clear(): void {
    this.history.clear();
    this.floorTick = undefined;
    copyEvents(this.codec, this.codec.defaults(), this.floor);
  }

  #take(): InputEntry<S> | undefined {
    if (this.pooled === 0) return undefined;
    const e = this.pool[--this.pooled];
    this.pool[this.pooled] = undefined;
    return e;
  }

  #give(entry: InputEntry<S>): void {
    this.pool[this.pooled++] = entry;
  }

  private evicted(entry: InputEntry<S>): void {
    if (this.floorTick === undefined || isNewer(entry.tick, this.floorTick)) {
      copyEvents(this.codec, entry.values, this.floor);
      this.floorTick = entry.tick;
    }
    this.#give(entry);
  }
}
