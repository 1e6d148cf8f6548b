// Client prediction's per-ghost state (prediction.ts): each predicted ghost's own predicted history
// (a FlatHistory, flat-history.ts), its visual correction and what it shows, and the per-ghost steps of a
// rollback: record a tick, restore a snapshot's tick, compare a prediction with the confirmed state.

import type { Field, Quat, Vec3 } from './field.ts';
import { FlatHistory } from './flat-history.ts';
import type { HistoryKernels } from './history-layout.ts';
import { readsLocal } from './prediction-check.ts';
import type { GhostRecord } from './client-ghosts.ts';
import type { Schema, SchemaCodec, Values } from './schema.ts';
import { VisualCorrection, type CorrectionOptions } from './smoothing/index.ts';
import type { Tick } from './clock/tick.ts';
import type { Misprediction } from './prediction-options.ts';

/** Per predicted ghost: its own predicted history and render state. */
export interface Predicted {
  readonly rec: GhostRecord;
  readonly codec: SchemaCodec<Schema>;
  /** The history's copies and the check whether a prediction is off by more than a field's tolerance (before the misprediction report). */
  readonly kernels: HistoryKernels;
  /** Whether `kernels.beyond` reads whether the ghost is ours (the schema has a compared nonOwner field). */
  readonly readsLocal: boolean;
  readonly history: FlatHistory;
  /** A tick of the history as values (scratch: the state frame interpolation starts from, a misprediction's report). */
  readonly previous: Values<Schema>;
  readonly correction: VisualCorrection;
  /** What to render: frame-interpolated state plus the correction. */
  readonly view: Values<Schema>;
  /** 'position' when the schema has a vec3 `position` (the transform a correction smooths), else undefined. */
  readonly position: 'position' | undefined;
  /** 'rotation' when the schema has a quat `rotation`, else undefined. */
  readonly rotation: 'rotation' | undefined;
  /** The shown transform before a resimulation (scratch of the rollback, for the correction). */
  readonly beforePos: Vec3;
  readonly beforeRot: Quat;
}

/** The state of a ghost that starts being predicted: a history of `capacity` ticks (rounded up to a power of two). */
export function createPredicted(rec: GhostRecord, capacity: number, correction: CorrectionOptions | undefined): Predicted {
  const f = rec.codec.schema as Record<string, Field<unknown>>;
  const history = new FlatHistory(rec.codec, capacity);
  return {
    rec,
    codec: rec.codec,
    kernels: history.layout.kernels,
    readsLocal: readsLocal(rec.codec),
    history,
    previous: rec.codec.defaults(),
    correction: new VisualCorrection(correction ?? {}),
    view: rec.codec.copy(rec.ghost.components as Values<Schema>, rec.codec.defaults()),
    position: f['position']?.kind === 'vec3' ? 'position' : undefined,
    rotation: f['rotation']?.kind === 'quat' ? 'rotation' : undefined,
    beforePos: { x: 0, y: 0, z: 0 },
    beforeRot: { x: 0, y: 0, z: 0, w: 1 },
  };
}

/** Record the ghost's state as the prediction of `tick` (a resimulated tick overwrites its slot). */
export function record(s: Predicted, tick: Tick): void {
  s.history.record(s.rec.ghost.components as Values<Schema>, tick);
}

/**
 * Remember what a ghost shows, then put it back at `snapTick`: its confirmed state where there is one,
 * predicted-only fields from its own history (Source's rule). The confirmed fields also go into the
 * history's slot of that tick, which then holds the state of that tick.
 */
export function restore(s: Predicted, snapTick: Tick): void {
  restoreFrom(s, snapTick, s.history.slot(snapTick), s.rec.confirmedTick === snapTick ? s.rec.latest : undefined);
}

/** restore() with the ghost's history slot (−1: none) and confirmed sample (undefined: none) of `snapTick` already looked up. */
export function restoreFrom(s: Predicted, snapTick: Tick, slot: number, confirmed: Values<Schema> | undefined): void {
  const components = keepShown(s);
  const h = s.history;
  if (slot >= 0) {
    if (confirmed) s.kernels.restore(confirmed, h.data, h.other, slot, components);
    else s.kernels.load(h.data, h.other, slot, components);
  } else if (confirmed) {
    s.codec.copy(confirmed, components, true);
    record(s, snapTick);
  }
}

/** Remember the transform the ghost shows (`beforePos`, `beforeRot`: the correction after a resimulation); returns its components. */
export function keepShown(s: Predicted): Values<Schema> {
  const shown = s.rec.ghost.components as unknown as Shown;
  if (s.position) copyVec3(shown.position, s.beforePos);
  if (s.rotation) copyQuat(shown.rotation, s.beforeRot);
  return shown as unknown as Values<Schema>;
}

/**
 * A predicted ghost's values as the transform fields (valid where `position` / `rotation` are set): read with named
 * loads, which the rollback's per-ghost passes run measurably faster than keyed ones (`components[s.position]`).
 */
export interface Shown {
  readonly position: Vec3;
  readonly rotation: Quat;
}

/**
 * Every replicated field of `predicted` further from `confirmed` than its tolerance (nonOwner fields
 * not for our own ghosts), each passed to `report` (when given: no report is built for nobody), in
 * schema order; returns how many there were.
 */
export function mispredictions(
  s: Predicted, tick: Tick, predicted: Values<Schema>, confirmed: Values<Schema>, report: ((m: Misprediction) => void) | undefined,
): number {
  // Without a report, counted by the history's kernel (generated where allowed): a float Field.distance returns is a new heap number.
  if (!report) return s.kernels.count(predicted, confirmed, s.rec.ghost.isLocal);
  let count = 0;
  const fields = s.codec.schema as Record<string, Field<unknown>>;
  const p = predicted as Record<string, unknown>;
  const c = confirmed as Record<string, unknown>;
  const keys = s.codec.keys;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const field = fields[key]!;
    if (!field.options.replicated) continue;
    if (field.options.sendTo === 'nonOwner' && s.rec.ghost.isLocal) continue;
    const distance = field.distance(p[key], c[key]);
    if (distance <= field.options.tolerance) continue;
    count++;
    report({
      ghostId: s.rec.ghost.id, type: s.rec.ghost.type, field: key, tick,
      predicted: field.copy(p[key], field.defaultValue()), confirmed: c[key], distance, tolerance: field.options.tolerance,
    });
  }
  return count;
}

function copyVec3(from: Vec3, to: Vec3): void {
  to.x = from.x;
  to.y = from.y;
  to.z = from.z;
}

function copyQuat(from: Quat, to: Quat): void {
  to.x = from.x;
  to.y = from.y;
  to.z = from.z;
  to.w = from.w;
}
