// Client side of the input pipeline: the app writes `current` each frame and calls
// `press` for events; the engine `commit`s it once per predicted tick (sanitized and
// quantized exactly as the server will see it), predicts with `tickInput`, and sends
// the newest few committed ticks in every Input packet (packet.ts).

import { NetcodeError } from '../errors.ts';
import type { FieldValue } from '../field.ts';
import type { Schema, SchemaCodec, SchemaKey, Values } from '../schema.ts';
import { tickDiff, type Tick } from '../clock/tick.ts';
import { eventDelta, inputLayout, neutralInto, toTickInput } from './events.ts';
import { quantizeInput, sanitizeInput } from './sanitize.ts';
import { InputStore } from './store.ts';

/** Default ticks of input history kept (about 2 s at 60 Hz). */
export const DEFAULT_INPUT_CAPACITY = 128;

/** Keys of number-valued fields; `press` further checks at run time that the field is a `field.event()`. */
export type NumericInputKey<S extends Schema> = { [K in SchemaKey<S>]: FieldValue<S[K]> extends number ? K : never }[SchemaKey<S>];

export class InputBuffer<S extends Schema> {
  /** The live input: write it every frame (events through `press`). */
  readonly current: Values<S>;
  /**
   * Fields that `commit` had to fix (NaN, out of range, more presses than an event's maxPerTick...) since creation: a sign
   * of a bug in the app's input code.
   */
  clamped = 0;
  private readonly store: InputStore<S>;

  constructor(
    readonly codec: SchemaCodec<S>,
    capacity = DEFAULT_INPUT_CAPACITY,
  ) {
    this.store = new InputStore(codec, capacity);
    this.current = codec.defaults();
  }

  get capacity(): number {
    return this.store.capacity;
  }

  /** The newest committed tick, or undefined. */
  get newestTick(): Tick | undefined {
    return this.store.newestTick;
  }

  /** Count `n` presses of an event field (its uint32 running count wraps). */
  press(name: NumericInputKey<S>, n = 1): void {
    const field = this.codec.schema[name];
    if (field?.kind !== 'event') throw new NetcodeError('usage', `react-netcode: press("${String(name)}") needs a field.event() input field; set other fields on \`current\` instead.`);
    if (!Number.isInteger(n) || n < 0) throw new NetcodeError('usage', `react-netcode: press("${String(name)}", ${n}) needs a whole number of presses >= 0.`);
    const v = this.current as Record<string, unknown>;
    v[name] = ((v[name] as number) + n) >>> 0;
  }

  /**
   * Snapshot `current` as the input of `tick` and return the stored values: sanitized,
   * rounded as the wire rounds them, sanitized again (so the server, which sanitizes
   * what it decodes, gets the very same values). Committing a tick again replaces it.
   * The returned object is pooled: valid until the tick leaves the buffer.
   * @internal
   */
  commit(tick: Tick): Values<S> {
    const entry = this.store.entryFor(tick);
    const values = this.codec.copy(this.current, entry.values);
    this.clamped += sanitizeInput(this.codec, values);
    quantizeInput(this.codec, values);
    sanitizeInput(this.codec, values);
    if (!this.store.put(entry)) {
      throw new NetcodeError('usage', `react-netcode: cannot commit input for tick ${tick}: it is ${this.capacity} or more ticks older than the newest committed tick ${String(this.newestTick)}; commit ticks in order.`);
    }
    // Presses over an event's maxPerTick: prediction (tickInput) and the server drop them alike.
    const before = this.store.before(tick) as Record<string, unknown>;
    const v = values as Record<string, unknown>;
    const events = inputLayout(this.codec).events;
    for (let i = 0; i < events.length; i++) {
      const { key, maxPerTick } = events[i]!;
      if (eventDelta(v[key] as number, before[key] as number) > maxPerTick) this.clamped++;
    }
    return values;
  }

  /** The committed input of `tick` (running counts), or undefined. */
  get(tick: Tick): Values<S> | undefined {
    return this.store.get(tick);
  }

  has(tick: Tick): boolean {
    return this.store.has(tick);
  }

  /**
   * The input systems see for `tick` during prediction, written into `out`: events as
   * presses since the newest committed tick before it (0 counts before the first), like
   * the server's queue. Throws when `tick` was not committed.
   * @internal
   */
  tickInput(tick: Tick, out: Values<S>): Values<S> {
    const current = this.store.get(tick);
    if (current === undefined) throw new NetcodeError('usage', `react-netcode: no input committed for tick ${tick}; commit(tick) before simulating it.`);
    return toTickInput(this.codec, current, this.store.before(tick), out);
  }

  /**
   * The input prediction uses for `tick`, written into `out`: its committed input (as `tickInput`);
   * for a tick never committed (skipped after a stall), what the server runs a tick without input
   * with — the newest earlier input repeated for at most `maxRepeatTicks` ticks, then neutral —
   * with no presses. Undefined before any input was committed.
   * @internal
   */
  predictedInput(tick: Tick, maxRepeatTicks: number, out: Values<S>): Values<S> | undefined {
    if (this.store.has(tick)) return this.tickInput(tick, out);
    const entry = this.store.atOrBefore(tick);
    if (entry === undefined) return undefined;
    toTickInput(this.codec, entry.values, entry.values, out); // the same counts: no presses
    return tickDiff(tick, entry.tick) <= maxRepeatTicks ? out : neutralInto(this.codec, out);
  }

  /**
   * Reset every non-event field of `current` to its default (e.g. when the page is
   * hidden or focus is lost), keeping event running counts: presses already counted are
   * neither replayed nor lost.
   */
  neutral(): void {
    neutralInto(this.codec, this.current);
  }

  /** @internal Forget every committed tick and restart event counts at 0 (a new connection: the server's queue starts at 0 too). */
  reset(): void {
    this.store.clear();
    this.codec.copy(inputLayout(this.codec).defaults as Values<S>, this.current);
  }
}
