// Server side of the input pipeline, one queue per connection: stores each tick's
// input once (sanitized), rejects late and duplicate copies, and answers "which input
// does tick t run with": its own, else the last one repeated for a few ticks, else
// neutral. Event counts are never invented or lost, so each press runs exactly once.

import { NetcodeError } from '../errors.ts';
import type { Schema, SchemaCodec, Values } from '../schema.ts';
import { isNewer, tickDiff, type Tick } from '../clock/tick.ts';
import { copyEvents, neutralInto, toTickInput } from './events.ts';
import type { DecodedInputPacket } from './packet.ts';
import { sanitizeInput } from './sanitize.ts';
import { InputStore } from './store.ts';

export interface ServerInputQueueOptions {
  /** Ticks of input kept (default 128). */
  capacity?: number;
  /** After the newest received input, repeat it for at most this many ticks, then go neutral (default 8). */
  maxRepeatTicks?: number;
  /** Inputs this many ticks or more ahead of the server are dropped as early (default and most: capacity − maxRepeatTicks − 2). */
  maxLeadTicks?: number;
  /** Run sanitizeInput on every stored input (default true; off when the inputs come from `decodeInputPacket`, which sanitized them). */
  sanitize?: boolean;
}

export interface ServerInputStats {
  /** Inputs stored (first copy of a tick, in time). */
  received: number;
  /** Copies of a tick already stored (redundancy: most copies are these, in time or not). */
  duplicates: number;
  /** Inputs for a tick the server had already simulated without them: dropped; their presses count at the next received tick. */
  late: number;
  /** Inputs too far ahead of the server (maxLeadTicks or more): dropped, and they do not move the reported margin. */
  early: number;
  /** Ticks simulated without their own input (counted from the first received input on) … */
  missing: number;
  /** … of which ran with the last input repeated … */
  repeated: number;
  /** … and the rest with a neutral input. */
  neutral: number;
  /**
   * Fields sanitizeInput changed (NaN, out of range) and ticks whose presses of an event exceeded its maxPerTick: a buggy
   * or hostile client.
   */
  clamped: number;
}

export type InputReceipt = 'stored' | 'duplicate' | 'late' | 'early';

/** Buckets of `ServerInputQueue.arrivals`: bucket i = stored i ticks before its tick ran (the last: that or more). */
export const ARRIVAL_BUCKETS = 64;

export class ServerInputQueue<S extends Schema> {
  readonly stats: ServerInputStats = { received: 0, duplicates: 0, late: 0, early: 0, missing: 0, repeated: 0, neutral: 0, clamped: 0 };
  readonly maxRepeatTicks: number;
  /**
   * Ticks before its tick ran that the latest input arrived (negative = late); 0 before any. For a
   * packet: the smallest margin of the inputs it brought first (stored, or late) — the oldest tick a
   * client frame committed, which is the one that risks coming late when a frame spans several ticks.
   */
  marginTicks = 0;
  /**
   * How early each stored input arrived: bucket i counts inputs stored when their tick was i ticks
   * ahead of the tick the server simulates next (0 = just in time; the last bucket: 63 or more).
   * Late inputs are not here (they are `stats.late`).
   */
  readonly arrivals = new Uint32Array(ARRIVAL_BUCKETS);
  /** The connection is suspended (its link dropped; it may resume): ticks without input are not counted missing. */
  suspended = false;
  /** The client said it is paused (a hidden page): ticks without input are not counted missing. */
  paused = false;
  private readonly store: InputStore<S>;
  private readonly sanitize: boolean;
  private readonly maxLead: number;
  private readonly neutralValues: Values<S>;
  private readonly previous: Values<S>;
  private lastSimulated: Tick | undefined;
  private newestSeen: Tick | undefined;
  /** The oldest tick any input was received for: the client's inputs start there (it predicts ahead of the server). */
  private oldestSeen: Tick | undefined;

  constructor(
    readonly codec: SchemaCodec<S>,
    options: ServerInputQueueOptions = {},
  ) {
    const capacity = options.capacity ?? 128;
    const repeat = options.maxRepeatTicks ?? 8;
    if (!Number.isInteger(repeat) || repeat < 0) throw new NetcodeError('usage', `react-netcode: maxRepeatTicks must be an integer >= 0, got ${String(repeat)}.`);
    if (!Number.isInteger(capacity) || capacity < repeat + 4) throw new NetcodeError('usage', `react-netcode: input queue capacity must be an integer >= maxRepeatTicks + 4 (${repeat + 4}), got ${String(capacity)}.`);
    this.store = new InputStore(codec, capacity);
    this.maxRepeatTicks = repeat;
    const lead = options.maxLeadTicks ?? capacity - repeat - 2;
    if (!Number.isInteger(lead) || lead < 1) throw new NetcodeError('usage', `react-netcode: maxLeadTicks must be an integer >= 1, got ${String(lead)}.`);
    this.maxLead = Math.min(lead, capacity - repeat - 2);
    this.sanitize = options.sanitize ?? true;
    this.neutralValues = codec.defaults();
    this.previous = codec.defaults();
  }

  /** The newest stored input tick, or undefined. */
  get newestTick(): Tick | undefined {
    return this.store.newestTick;
  }

  /** The newest stored input (running counts), or undefined. */
  get newestValues(): Values<S> | undefined {
    const t = this.store.newestTick;
    return t === undefined ? undefined : this.store.get(t);
  }

  /**
   * Offer the input of `tick` (its values are copied). `currentServerTick` is the tick
   * the server simulates next: a first copy for an older tick, or for a tick already
   * passed to `tickInput`, is late and dropped, so a simulated tick's input never changes.
   * `clamped`: fields already sanitized upstream (decodeInputPacket), counted when stored.
   */
  receive(tick: Tick, values: Values<S>, currentServerTick: Tick, clamped = 0): InputReceipt {
    tick >>>= 0;
    const s = this.stats;
    // Ahead of what any client clock allows: dropped before it can move the newest tick seen or the margin.
    if (tickDiff(tick, currentServerTick) >= this.maxLead) {
      s.early++;
      return 'early';
    }
    if (this.newestSeen === undefined || isNewer(tick, this.newestSeen)) this.newestSeen = tick;
    if (this.oldestSeen === undefined || isNewer(this.oldestSeen, tick)) this.oldestSeen = tick;
    if (this.store.has(tick)) {
      s.duplicates++;
      return 'duplicate';
    }
    const margin = tickDiff(tick, currentServerTick);
    if (isNewer(currentServerTick, tick) || (this.lastSimulated !== undefined && !isNewer(tick, this.lastSimulated))) {
      s.late++;
      this.marginTicks = Math.min(margin, -1); // it arrived after its tick ran
      return 'late';
    }
    this.marginTicks = margin;
    const entry = this.store.entryFor(tick);
    this.codec.copy(values, entry.values);
    s.clamped += clamped;
    if (this.sanitize) s.clamped += sanitizeInput(this.codec, entry.values);
    this.store.put(entry); // always fits: the tick is within maxLead of the server, which trails the newest by < capacity
    s.received++;
    this.arrivals[Math.min(ARRIVAL_BUCKETS - 1, tickDiff(tick, currentServerTick))]!++;
    return 'stored';
  }

  /** Offer every input of a decoded packet; returns how many were stored. */
  receivePacket(packet: DecodedInputPacket<S>, currentServerTick: Tick): number {
    let stored = 0;
    let min = Infinity;
    for (let i = packet.count - 1; i >= 0; i--) {
      const input = packet.inputs[i]!;
      const receipt = this.receive(input.tick, input.values, currentServerTick, input.clamped);
      if (receipt === 'stored') stored++;
      if (receipt === 'stored' || receipt === 'late') min = Math.min(min, this.marginTicks);
    }
    if (min !== Infinity) this.marginTicks = min;
    return stored;
  }

  /**
   * The input `tick` runs with, as running counts: its own; else the newest earlier one,
   * repeated for at most `maxRepeatTicks` ticks after it; else neutral (defaults with
   * that input's event counts, 0 before any input). A neutral result is a shared
   * scratch object, valid until the next call.
   */
  inputFor(tick: Tick): Values<S> {
    const entry = this.store.atOrBefore(tick);
    if (entry !== undefined && tickDiff(tick, entry.tick) <= this.maxRepeatTicks) return entry.values;
    copyEvents(this.codec, entry?.values ?? this.store.before(tick), this.neutralValues);
    return neutralInto(this.codec, this.neutralValues);
  }

  /**
   * What systems get for `tick`, written into `out`: `inputFor(tick)` with every event
   * as presses since `inputFor(tick − 1)`. Call once per simulated tick, in order: it
   * marks `tick` simulated (later copies are late) and counts missing/repeated/neutral.
   */
  tickInput(tick: Tick, out: Values<S>): Values<S> {
    tick >>>= 0;
    copyEvents(this.codec, this.inputFor((tick - 1) >>> 0), this.previous);
    const current = this.inputFor(tick);
    if (this.lastSimulated === undefined || isNewer(tick, this.lastSimulated)) {
      this.lastSimulated = tick;
      // Ticks before the client's first input are not missing: it starts its inputs at its predicted tick, ahead of ours.
      if (!this.suspended && !this.paused && !this.store.has(tick) && this.oldestSeen !== undefined && !isNewer(this.oldestSeen, tick)) {
        this.stats.missing++;
        if (current === this.neutralValues) this.stats.neutral++;
        else this.stats.repeated++;
      }
    }
    return toTickInput(this.codec, current, this.previous, out, this.stats);
  }

  /** Forget every input and counter state (a new connection's client starts its counts at 0). */
  reset(): void {
    this.store.clear();
    this.lastSimulated = undefined;
    this.newestSeen = undefined;
    this.oldestSeen = undefined;
    this.marginTicks = 0;
  }
}
