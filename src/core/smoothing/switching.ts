// Prediction switching (render stage + mode control): a ghost moves between predicted and
// interpolated modes at runtime, chosen by distance with hysteresis (NFE's PredictionSwitching
// sample), and the switch is hidden by blending the shown transform into the new mode's over time.

import { NetcodeError } from '../errors.ts';
import type { Schema, SchemaCodec, Values } from '../schema.ts';
import { blendValues } from './frame-interpolation.ts';

export type PredictionMode = 'predicted' | 'interpolated';

export interface SwitchingOptions {
  /** A ghost closer than this to the player becomes predicted. */
  radius: number;
  /**
   * It returns to interpolated only beyond radius + margin. Make the margin larger than the distance
   * a ghost moves during a transition plus the predicted-vs-interpolated time gap (NFE suggests
   * 1.2–1.5 × speed × transition), or ghosts near the boundary flip back and forth.
   */
  margin: number;
  /** Blend duration of a switch in ms (default 250, inside NFE's advised 0.1–0.5 s). */
  transitionMs?: number;
}

export const DEFAULT_TRANSITION_MS = 250;

/**
 * Hysteresis: the mode a ghost at `distance` should have given its `current` mode. Interpolated
 * ghosts switch in when distance < radius; predicted ghosts switch out when distance > radius + margin;
 * in between the current mode is kept, so a ghost wobbling less than `margin` switches at most once.
 */
export function desiredMode(current: PredictionMode, distance: number, options: Readonly<SwitchingOptions>): PredictionMode {
  const { radius, margin } = options;
  if (!(radius >= 0) || !(margin >= 0)) {
    throw new NetcodeError('usage', `react-netcode: prediction switching needs radius >= 0 and margin >= 0, got radius ${String(radius)}, margin ${String(margin)}.`);
  }
  if (current === 'interpolated') return distance < radius ? 'predicted' : 'interpolated';
  return distance > radius + margin ? 'interpolated' : 'predicted';
}

/**
 * Hides a mode switch for one ghost. `start(shown, now)` freezes the values shown at the switch;
 * each frame `apply(target, now, out)` writes from → target blended by smoothstep(elapsed /
 * transitionMs) (s = u²(3 − 2u): it leaves `from` and reaches `target` with zero velocity, so neither
 * end of the blend kinks), per field via lerpField with the field's smoothing (clamp fields and
 * discrete kinds show the target at once; a gap beyond maxSmoothingDistance snaps). `target` is
 * the new mode's live transform, so it keeps moving during the blend. Once elapsed ≥ transitionMs,
 * out is exactly target and the transition ends.
 */
export class ModeTransition<S extends Schema> {
  readonly codec: SchemaCodec<S>;
  readonly transitionMs: number;
  private readonly from: Values<S>;
  private startMs = 0;
  private running = false;

  constructor(codec: SchemaCodec<S>, options: Readonly<Pick<SwitchingOptions, 'transitionMs'>> = {}) {
    const ms = options.transitionMs ?? DEFAULT_TRANSITION_MS;
    if (!(ms >= 0 && ms < Infinity)) {
      throw new NetcodeError('usage', `react-netcode: transitionMs ${String(ms)} is invalid; pass a finite number of milliseconds >= 0 (0 switches without blending).`);
    }
    this.codec = codec;
    this.transitionMs = ms;
    this.from = codec.defaults();
  }

  /** True while blending. */
  get active(): boolean {
    return this.running;
  }

  /**
   * Begin a transition from `fromValues`: what is rendered now (pass the last `out` when a transition
   * is already running, so a switch back mid-blend continues from the shown transform). Copied.
   */
  start(fromValues: Values<S>, nowMs: number): void {
    this.codec.copy(fromValues, this.from);
    this.startMs = nowMs;
    this.running = this.transitionMs > 0;
  }

  /** Stop blending; the next apply shows the target. */
  cancel(): void {
    this.running = false;
  }

  /**
   * Write the shown values for `nowMs` into `out` (may be `targetValues`). Returns true while blending,
   * false once done (out = target exactly). A clock before the start holds `from`.
   */
  apply(targetValues: Values<S>, nowMs: number, out: Values<S>): boolean {
    if (this.running) {
      const elapsed = nowMs - this.startMs;
      if (elapsed < this.transitionMs) {
        const u = elapsed > 0 ? elapsed / this.transitionMs : 0;
        blendValues(this.codec, this.from, targetValues, u * u * (3 - 2 * u), out);
        return true;
      }
      this.running = false;
    }
    if (out !== targetValues) this.codec.copy(targetValues, out);
    return false;
  }
}
