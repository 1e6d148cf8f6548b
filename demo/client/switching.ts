// Prediction switching for balls: those near the local player are predicted (so
// kicks and pushes show at once and collide with the predicted player), the others
// interpolated. The library's distance switching does it — radius + margin
// hysteresis, a 250 ms blend of the shown transform on each switch — limited with
// `types: ['ball']`, so other players and their grenades stay interpolated.
import type { NetClient, Vec3 } from 'react-netcode';
import type { DemoProtocol } from '../shared/protocol.ts';

export interface BallSwitching {
  /** Balls closer than this to the local player are predicted … */
  radius: number;
  /** … and interpolated again beyond radius + margin. */
  margin: number;
}

export const BALL_SWITCHING: Readonly<BallSwitching> = Object.freeze({ radius: 6, margin: 2 });
export const BALL_TRANSITION_MS = 250;

/**
 * Turn on distance switching for balls around `center()` (the local player's shown
 * position; undefined pauses switching). The client applies it once per frame.
 * Returns the function that turns it off.
 */
export function switchBallsAround(client: NetClient<DemoProtocol>, center: () => Vec3 | undefined, options: Readonly<BallSwitching> = BALL_SWITCHING): () => void {
  client.setPredictionSwitching({ types: ['ball'], radius: options.radius, margin: options.margin, transitionMs: BALL_TRANSITION_MS, center });
  return () => client.setPredictionSwitching(undefined);
}

/**
 * The network panel's "prediction" toggle. Off: the local player is interpolated like
 * every remote ghost (its moves show a round trip plus the interpolation delay late, and
 * its grenades are no longer predicted: they arrive from snapshots, black), and the
 * balls go back to interpolated (ball switching is turned off by the caller). On: the
 * local player is predicted again. Both switches blend over the transition.
 */
export function setLocalPrediction(client: NetClient<DemoProtocol>, on: boolean): void {
  for (const p of client.world.query('player')) if (p.isLocal) client.setGhostMode(p, on ? 'predicted' : 'interpolated');
  if (!on) for (const b of client.world.query('ball')) client.setGhostMode(b, 'interpolated');
}

/** The ball-switching settings the scene uses: the defaults, changed by the tuning panel once it is loaded (TuningPanel.tsx). */
export interface BallSettings extends BallSwitching {
  /** Colour balls by their mode (lime predicted, white just switched). */
  tint: boolean;
}

let ballSettings: Readonly<BallSettings> = Object.freeze({ ...BALL_SWITCHING, tint: true });
const listeners = new Set<() => void>();

export const getBallSettings = (): Readonly<BallSettings> => ballSettings;

export function setBallSettings(next: Readonly<BallSettings>): void {
  if (next.radius === ballSettings.radius && next.margin === ballSettings.margin && next.tint === ballSettings.tint) return;
  ballSettings = Object.freeze({ ...next });
  for (const l of listeners) l();
}

/** For useSyncExternalStore. */
export function subscribeBallSettings(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
