// <GhostDebug>: the debug view of one ghost, used by <NetDebug> (render stage, debug
// only). Its three objects — predicted path, confirmed samples, rendered position —
// are allocated once and refilled in useFrame at NETCODE_VIEW_PRIORITY, after the
// engine step, from the engine's histories; nothing is allocated per frame.

import { useFrame } from '@react-three/fiber';
import { useEffect, useMemo } from 'react';
import type { Ghost, Vec3 } from '../index.ts';
import { useNetcodeContext } from '../react/context.ts';
import { createDebugObjects, disposeDebugObjects, HistoryFiller, placePoint } from './debug-objects.ts';
import { NETCODE_VIEW_PRIORITY } from './frame-order.ts';

export interface GhostDebugProps {
  ghost: Ghost;
  /** The vec3 field drawn (already checked to be one by the caller). */
  positionField: string;
  /** Most vertices in the predicted path and in the confirmed samples. */
  capacity: number;
  /** Point size of the confirmed samples (the rendered point is 1.5× as big). */
  pointSize: number;
}

/** Draws one ghost's predicted path, confirmed samples and rendered position. */
export function GhostDebug({ ghost, positionField, capacity, pointSize }: GhostDebugProps) {
  const { client } = useNetcodeContext('<NetDebug>');
  const objects = useMemo(() => createDebugObjects(capacity, pointSize), [capacity, pointSize]);
  const fillers = useMemo(() => ({ predicted: new HistoryFiller(), confirmed: new HistoryFiller() }), []);
  useEffect(() => () => disposeDebugObjects(objects), [objects]);

  useFrame(() => {
    if (!ghost.alive) return;
    // Predicted path: only a predicted ghost has one (empty while it is interpolated).
    const predicted = ghost.mode === 'predicted' ? client.prediction?.history(ghost) : undefined;
    fillers.predicted.fill(objects.predicted.geometry, predicted, positionField);
    fillers.confirmed.fill(objects.confirmed.geometry, client.ghosts.record(ghost.id)?.history, positionField);
    placePoint(objects.rendered.geometry, client.view(ghost)[positionField] as Vec3 | undefined);
  }, NETCODE_VIEW_PRIORITY);

  return (
    <group name={`net-debug-${ghost.id}`}>
      <primitive object={objects.predicted} />
      <primitive object={objects.confirmed} />
      <primitive object={objects.rendered} />
    </group>
  );
}
