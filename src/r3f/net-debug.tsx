// <NetDebug>: a netcode overlay for the R3F scene (render stage, debug only). For each
// ghost with a vec3 position it draws, in distinct colours (NET_DEBUG_COLORS), the
// predicted path (recent ticks of client.prediction.history), the confirmed server
// samples (ghosts.record(id).history) and the rendered, smoothed position
// (client.view). The ghost list follows the store's ghostsVersion, so React
// re-renders only on spawn, despawn or a mode change; the geometry updates per frame.

import { useMemo, useSyncExternalStore } from 'react';
import { NetcodeError, type Ghost } from '../index.ts';
import { useNetcodeContext } from '../react/context.ts';
import { useInCanvas } from './in-canvas.ts';
import { GhostDebug } from './ghost-debug.tsx';

export interface NetDebugProps {
  /** Ghosts to draw (default: every ghost in the client world that has the position field). */
  ghosts?: readonly Ghost[];
  /** The vec3 field drawn (default 'position'); ghosts whose type lacks it are skipped. */
  positionField?: string;
  /** Most vertices per ghost in the predicted path and in the confirmed samples (default 64 = about 1 s at 60 Hz). */
  trail?: number;
  /** Point size of the samples in world units (default 0.1; the rendered point is 1.5× as big). */
  pointSize?: number;
  /**
   * Show the overlay (default true). Hidden, its per-ghost objects are unmounted and nothing is refilled per
   * frame: keep it mounted behind a toggle at no cost; shown again, it draws at once from the engine's histories.
   */
  visible?: boolean;
}

/**
 * Debug overlay of prediction and interpolation. Put it inside the Canvas next to
 * `<NetcodeFrame/>`:
 *
 * ```tsx
 * <NetDebug visible={showNet} trail={64} />
 * ```
 *
 * Blue line: where this client predicted the ghost, tick by tick. Orange points: what the
 * server confirmed. Magenta point: where the ghost is drawn now. A gap between blue and
 * orange is the prediction lead (RTT); a blue line that jumps is a misprediction, and the
 * magenta point sliding back onto it is the VisualCorrection decaying.
 */
export function NetDebug({ ghosts, positionField = 'position', trail = 64, pointSize = 0.1, visible = true }: NetDebugProps) {
  const { client, store } = useNetcodeContext('<NetDebug>');
  useInCanvas('<NetDebug>', 'it draws in the 3D scene (the DOM panel is <NetGraph> from react-netcode/react)');
  if (!(Number.isInteger(trail) && trail >= 2)) {
    throw new NetcodeError('usage', `react-netcode: <NetDebug trail={${String(trail)}}> must be an integer >= 2 (vertices per ghost); omit it for 64.`);
  }
  if (!(pointSize > 0)) {
    throw new NetcodeError('usage', `react-netcode: <NetDebug pointSize={${String(pointSize)}}> must be a number > 0 (world units); omit it for 0.1.`);
  }
  // UI rate: the list is rebuilt when ghosts spawn, despawn or change mode, never per frame.
  const version = useSyncExternalStore(store.subscribe, () => store.getState().ghostsVersion);
  const shown = useMemo(() => {
    const list = ghosts ?? [...client.world.all()];
    return list.filter((g) => client.protocol.ghostByName.get(g.type)?.codec.schema[positionField]?.kind === 'vec3');
    // `version` (a dependency below) is the signal that client.world changed.
  }, [ghosts, client, positionField, version]);

  return (
    <group name="net-debug" visible={visible}>
      {/* Hidden: nothing mounted, so nothing is refilled per frame (the histories are the engine's: shown again at once). */}
      {visible && shown.map((g) => (
        <GhostDebug key={g.handle} ghost={g} positionField={positionField} capacity={trail} pointSize={pointSize} />
      ))}
    </group>
  );
}
