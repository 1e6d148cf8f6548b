// Input events and the per-tick view systems read. A `field.event()` travels as a
// uint32 running count; the input a system sees for tick t carries, per event field,
// the presses in t: count(t) − count(t − 1). Shared by the client buffer and server queue.

import { DEFAULT_MAX_PRESSES_PER_TICK, type Field } from '../field.ts';
import type { Schema, SchemaCodec, Values } from '../schema.ts';
import { sanitizeInput } from './sanitize.ts';

type Loose = Record<string, unknown>;

export interface InputFieldEntry {
  readonly key: string;
  readonly field: Field<unknown>;
  /** A `field.event()` running count. */
  readonly event: boolean;
  /** Events: the most presses one tick's input carries (`field.event({ maxPerTick })`). */
  readonly maxPerTick: number;
}

/** A schema's fields split once for the per-tick paths (cached per codec). */
export interface InputLayout {
  readonly all: readonly InputFieldEntry[];
  /** Fields on the wire (options.replicated), in declaration order. */
  readonly wire: readonly InputFieldEntry[];
  readonly events: readonly InputFieldEntry[];
  readonly values: readonly InputFieldEntry[];
  /** Schema defaults, sanitized (a default below a field's `min` reads as the min), never handed out: the source of `neutral` values. */
  readonly defaults: Loose;
}

const layouts = new WeakMap<object, InputLayout>();

export function inputLayout<S extends Schema>(codec: SchemaCodec<S>): InputLayout {
  let layout = layouts.get(codec);
  if (layout === undefined) {
    const all = codec.keys.map((key): InputFieldEntry => {
      const field = codec.schema[key] as Field<unknown>;
      return { key, field, event: field.kind === 'event', maxPerTick: field.maxPerTick ?? DEFAULT_MAX_PRESSES_PER_TICK };
    });
    layout = {
      all,
      wire: all.filter((e) => e.field.options.replicated),
      events: all.filter((e) => e.event),
      values: all.filter((e) => !e.event),
      defaults: codec.defaults() as Loose,
    };
    layouts.set(codec, layout);
    // A neutral input obeys the bounds like any other (sanitizeInput reads the layout set above).
    sanitizeInput(codec, layout.defaults as Values<S>);
  }
  return layout;
}

/** A fresh neutral input: the schema defaults, sanitized — what systems see without an input. */
export function neutralInput<S extends Schema>(codec: SchemaCodec<S>): Values<S> {
  return codec.copy(inputLayout(codec).defaults as Values<S>, codec.defaults());
}

/**
 * Presses between two running counts: `current − previous` modulo 2^32, so a count
 * that wrapped past 2^32 − 1 still yields its small difference. A count that went
 * backwards (a difference of 2^31 or more, which no client produces) yields 0.
 */
export function eventDelta(current: number, previous: number): number {
  const d = (current - previous) | 0;
  return d > 0 ? d : 0;
}

/** Copy only the event running counts of `from` into `to`. */
export function copyEvents<S extends Schema>(codec: SchemaCodec<S>, from: Values<S>, to: Values<S>): Values<S> {
  const f = from as Loose;
  const t = to as Loose;
  const events = inputLayout(codec).events;
  // By index: no iterator where V8 has not optimized the caller.
  for (let i = 0; i < events.length; i++) t[events[i]!.key] = f[events[i]!.key];
  return to;
}

/**
 * Reset every non-event field of `values` to its default in place and keep the event
 * running counts, so a neutral input neither invents nor loses a press.
 */
export function neutralInto<S extends Schema>(codec: SchemaCodec<S>, values: Values<S>): Values<S> {
  const layout = inputLayout(codec);
  const v = values as Loose;
  for (const { key, field } of layout.values) v[key] = field.copy(layout.defaults[key], v[key]);
  return values;
}

/**
 * Write into `out` the input as systems see it for one tick: every event field becomes
 * the number of presses in this tick, `eventDelta(current, previous)` capped at the
 * field's `maxPerTick` (each capped field adds 1 to `counter.clamped`), and every other
 * field is copied from `current`. Without a `previous` (no earlier input known) the
 * tick counts 0 presses, i.e. `previous` is taken to equal `current`. The buffer and
 * queue always pass a previous (their counts start at 0). `out` may alias either input.
 */
export function toTickInput<S extends Schema>(
  codec: SchemaCodec<S>,
  current: Values<S>,
  previous: Values<S> | undefined,
  out: Values<S>,
  counter?: { clamped: number },
): Values<S> {
  const layout = inputLayout(codec);
  const c = current as Loose;
  const p = previous as Loose | undefined;
  const o = out as Loose;
  // Events first: when `out` is `previous`, each count is read before it is replaced.
  for (const { key, maxPerTick } of layout.events) {
    const d = p === undefined ? 0 : eventDelta(c[key] as number, p[key] as number);
    if (d > maxPerTick && counter !== undefined) counter.clamped++;
    o[key] = d > maxPerTick ? maxPerTick : d;
  }
  if (out !== current) for (const { key, field } of layout.values) o[key] = field.copy(c[key], o[key]);
  return out;
}

