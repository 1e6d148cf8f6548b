// What a predicted ghost shows (prediction.ts): per render frame its state frame-interpolated between its
// last two predicted ticks plus its visual correction; after a resimulation or a restart, whether the
// shown transform moved and, when it did, the correction that smooths the jump.

import type { Quat, Vec3 } from './field.ts';
import type { Predicted, Shown } from './prediction-state.ts';
import type { Schema, Values } from './schema.ts';
import { frameInterpolateAtFraction, setFrameFraction } from './smoothing/index.ts';

/**
 * Whether a rollback left the shown transform exactly where it was (the resimulation predicted the same): no
 * correction to make, which is what VisualCorrection.onCorrection would find (a zero error is ignored), without the call.
 */
export function unmoved(s: Predicted): boolean {
  const shown = s.rec.ghost.components as unknown as Shown;
  const p = shown.position;
  const b = s.beforePos;
  if (p.x !== b.x || p.y !== b.y || p.z !== b.z) return false;
  if (s.rotation === undefined) return true;
  const r = shown.rotation;
  const q = s.beforeRot;
  return r.x === q.x && r.y === q.y && r.z === q.z && r.w === q.w;
}

/**
 * The ghost's shown transform moved from `before` (a resimulation or a restart): hand the jump to its visual
 * correction. Returns false when the correction ignored it (below its minimum).
 */
export function correct(s: Predicted, before: Vec3, beforeRot: Quat | undefined): boolean {
  const shown = s.rec.ghost.components as unknown as Shown;
  return s.correction.onCorrection(before, shown.position, beforeRot, s.rotation ? shown.rotation : undefined) !== 'ignored';
}

/**
 * Per render frame: frame-interpolate each predicted ghost between its last two ticks and add its
 * correction. The state before the last tick is read from the ghost's predicted history (the newest
 * tick recorded before its newest one: ticks a stall skipped are not recorded), so nothing is copied
 * per tick for it. A ghost with one recorded tick (prediction just started or restarted) shows its state.
 */
export function renderPredicted(states: Iterable<Predicted>, fraction: number, dtMs: number): void {
  setFrameFraction(fraction); // once: a float passed per ghost would be a heap number per ghost
  for (const s of states) {
    const components = s.rec.ghost.components as Values<Schema>;
    const h = s.history;
    const before = h.beforeNewestSlot();
    if (before >= 0) {
      s.kernels.load(h.data, h.other, before, s.previous);
      frameInterpolateAtFraction(s.codec, s.previous, components, s.view);
    } else s.codec.copy(components, s.view);
    s.correction.update(dtMs);
    if (s.position) {
      const view = s.view as unknown as Shown;
      const rot = s.rotation ? view.rotation : undefined;
      s.correction.apply(view.position, view.position, rot, rot);
    }
  }
}
