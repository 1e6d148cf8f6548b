// Client prediction's per-ghost state (prediction.ts): each predicted ghost's own predicted history,
// its visual correction and what it shows, and the per-ghost steps of a rollback: record a tick,
// restore a snapshot's tick, find the state frame interpolation starts from.

import type { Field, Quat, Vec3 } from './field.ts';
import { HistoryBuffer } from './history.ts';
import { beyondTolerance, readsLocal, type BeyondTolerance } from './prediction-check.ts';
import type { GhostRecord } from './client-ghosts.ts';
import type { Schema, SchemaCodec, Values } from './schema.ts';
import { VisualCorrection, type CorrectionOptions } from './smoothing/index.ts';
import type { Tick } from './clock/tick.ts';
import type { Misprediction } from './prediction-options.ts';

/** Per predicted ghost: its own predicted history and render state. */
export interface Predicted {
  readonly rec: GhostRecord;
  readonly codec: SchemaCodec<Schema>;
  /** Whether a prediction is off by more than a field's tolerance (the cheap check before the misprediction report). */
  readonly beyond: BeyondTolerance;
  /** Whether `beyond` reads whether the ghost is ours (the schema has a compared nonOwner field). */
  readonly readsLocal: boolean;
  readonly history: HistoryBuffer<Values<Schema>>;
  readonly pool: Values<Schema>[];
  readonly correction: VisualCorrection;
  /** What to render: frame-interpolated state plus the correction. */
  readonly view: Values<Schema>;
  readonly position: string | undefined;
  readonly rotation: string | undefined;
  /** The shown transform before a resimulation (scratch of the rollback, for the correction). */
  readonly beforePos: Vec3;
  readonly beforeRot: Quat;
}

/** The state of a ghost that starts being predicted: a history of `capacity` ticks, its samples pooled. */
export function createPredicted(rec: GhostRecord, capacity: number, correction: CorrectionOptions | undefined): Predicted {
  const pool: Values<Schema>[] = [];
  const f = rec.codec.schema as Record<string, Field<unknown>>;
  return {
    rec,
    codec: rec.codec,
    beyond: beyondTolerance(rec.codec),
    readsLocal: readsLocal(rec.codec),
    pool,
    history: new HistoryBuffer<Values<Schema>>(capacity, (v) => pool.push(v)),
    correction: new VisualCorrection(correction ?? {}),
    view: rec.codec.copy(rec.ghost.components as Values<Schema>, rec.codec.defaults()),
    position: f['position']?.kind === 'vec3' ? 'position' : undefined,
    rotation: f['rotation']?.kind === 'quat' ? 'rotation' : undefined,
    beforePos: { x: 0, y: 0, z: 0 },
    beforeRot: { x: 0, y: 0, z: 0, w: 1 },
  };
}

/** Record the ghost's state as the prediction of `tick` (a resimulated tick overwrites its sample in place). */
export function record(s: Predicted, tick: Tick): void {
  const stored = s.history.get(tick);
  if (stored !== undefined) {
    s.codec.copy(s.rec.ghost.components as Values<Schema>, stored);
    return;
  }
  const slot = s.pool.pop() ?? s.codec.defaults();
  s.codec.copy(s.rec.ghost.components as Values<Schema>, slot);
  s.history.set(tick, slot);
}

/**
 * Remember what a ghost shows, then put it back at `snapTick`: its confirmed state where there is one,
 * predicted-only fields from its own history (Source's rule). Two copies: the confirmed fields into the
 * predicted sample, which then is the state of that tick, and that sample into the components.
 */
export function restore(s: Predicted, snapTick: Tick): void {
  restoreFrom(s, snapTick, s.history.get(snapTick), s.rec.confirmedTick === snapTick ? s.rec.history.get(snapTick) : undefined);
}

/** restore() with the ghost's predicted and confirmed samples of `snapTick` already looked up (undefined: none). */
export function restoreFrom(
  s: Predicted, snapTick: Tick, predicted: Values<Schema> | undefined, confirmed: Values<Schema> | undefined,
): void {
  const shown = s.rec.ghost.components as Record<string, unknown>;
  if (s.position) copyVec3(shown[s.position] as Vec3, s.beforePos);
  if (s.rotation) copyQuat(shown[s.rotation] as Quat, s.beforeRot);
  const components = shown as Values<Schema>;
  if (predicted) {
    if (confirmed) s.codec.copy(confirmed, predicted, true);
    s.codec.copy(predicted, components);
  } else if (confirmed) {
    s.codec.copy(confirmed, components, true);
    record(s, snapTick);
  }
}

/**
 * Every replicated field of `predicted` further from `confirmed` than its tolerance (nonOwner fields
 * not for our own ghosts), each passed to `report` (when given: no report is built for nobody), in
 * schema order; returns how many there were.
 */
export function mispredictions(
  s: Predicted, tick: Tick, predicted: Values<Schema>, confirmed: Values<Schema>, report: ((m: Misprediction) => void) | undefined,
): number {
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
    if (report) report({
      ghostId: s.rec.ghost.id, type: s.rec.ghost.type, field: key, tick,
      predicted: p[key], confirmed: c[key], distance, tolerance: field.options.tolerance,
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
