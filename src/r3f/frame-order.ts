// Where the netcode runs inside one R3F frame (docs/architecture.md, "The client frame", stage 8).
// R3F calls useFrame callbacks in ascending priority order, so the engine is stepped
// first (NETCODE_STEP_PRIORITY), then the visual proxies and debug views copy the
// values to render into their THREE objects (NETCODE_VIEW_PRIORITY), and only then do
// user callbacks at the default priority 0 run — a follow camera at priority 0 already
// sees this frame's transforms. Negative priorities never take over rendering in R3F
// (only positive ones switch off its automatic render).

import type { RootState } from '@react-three/fiber';
import { NetcodeError } from '../index.ts';

/** useFrame priority of `<NetcodeFrame/>`: steps the engine before anything else reads it. */
export const NETCODE_STEP_PRIORITY = -1000;

/** useFrame priority of `<VisualProxy>` and `<NetDebug>`: after the step, before user callbacks (priority 0). */
export const NETCODE_VIEW_PRIORITY = -900;

/**
 * Check a priority given to `<NetcodeFrame priority>`: it must be a negative number, or the
 * engine would be stepped after (or, for a positive value, instead of) R3F's own render.
 */
export function checkStepPriority(priority: number): number {
  if (!(Number.isFinite(priority) && priority < NETCODE_VIEW_PRIORITY)) {
    throw new NetcodeError(
      'usage',
      `react-netcode: <NetcodeFrame priority={${String(priority)}}> must be a finite number below ${NETCODE_VIEW_PRIORITY} (the visual proxies' priority) so the engine is stepped before anything renders it; omit it for the default ${NETCODE_STEP_PRIORITY}.`,
    );
  }
  return priority;
}

/**
 * Turns a clock reading that may jump back into a monotonic one. The engine needs a
 * monotonic time (a backwards step is a negative frame time), while a frame clock can be
 * reset or re-based (R3F restarts its clock when the frameloop mode changes), so a jump
 * back is absorbed into an offset: that frame repeats the previous time (dt = 0) and later
 * frames advance from there at the clock's rate.
 */
export class MonotonicTime {
  private offset = 0;
  private last = -Infinity;

  /** The monotonic time (ms) for clock reading `readingMs`. */
  next(readingMs: number): number {
    if (!Number.isFinite(readingMs)) {
      throw new NetcodeError('usage', `react-netcode: <NetcodeFrame> got a non-finite time (${String(readingMs)} ms); pass a now() that returns monotonic milliseconds.`);
    }
    let t = readingMs + this.offset;
    if (t < this.last) {
      this.offset += this.last - t;
      t = this.last;
    }
    this.last = t;
    return t;
  }

  /** The last time returned (−Infinity before the first). */
  get lastMs(): number {
    return this.last;
  }
}

/**
 * The R3F frame clock on the `performance.now()` time base: `clock.startTime +
 * clock.elapsedTime * 1000` is the time of this frame's `clock.getDelta()`. Plain
 * `elapsedTime * 1000` counts from the Canvas's first frame instead; the provider's own
 * loop steps with `performance.now()` until <NetcodeFrame/> claims the frame, and a
 * backwards jump at the hand-over would give the engine a negative frame time.
 */
export function frameClockMs(state: RootState): number {
  return state.clock.startTime + state.clock.elapsedTime * 1000;
}
