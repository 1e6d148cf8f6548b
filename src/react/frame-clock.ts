// The provider's time source and frame scheduler. The engine reads `now()` for
// every step it runs itself and asks `requestFrame` for the next one; tests inject
// a manual clock and drive frames by hand, browsers get performance.now +
// requestAnimationFrame. Nothing else in react-netcode/react reads wall time.
import { NetcodeError } from '../core/errors.ts';

/**
 * Monotonic time and a frame scheduler, injected into `<NetcodeProvider clock>`.
 * `H` is the handle type `requestFrame` returns (a number for requestAnimationFrame).
 */
export interface FrameClock<H = unknown> {
  /** Monotonic milliseconds (the same time base for every step of one provider). */
  now(): number;
  /** Run `callback` once at the next frame; returns a handle for `cancelFrame`. */
  requestFrame(callback: (time: number) => void): H;
  /** Cancel a frame requested and not yet run. */
  cancelFrame(handle: H): void;
}

/** Frame period used when the environment has no requestAnimationFrame (e.g. a worker). */
const FALLBACK_FRAME_MS = 1000 / 60;

/**
 * The default clock: `performance.now()` and `requestAnimationFrame`, falling back
 * to a 60 Hz `setTimeout` where there is no animation frame (workers, old runtimes).
 */
export function defaultFrameClock(): FrameClock {
  const perf = globalThis.performance;
  if (perf === undefined) {
    throw new NetcodeError('usage', 'react-netcode: no performance.now() in this environment; pass <NetcodeProvider clock={{ now, requestFrame, cancelFrame }}>.');
  }
  const now = (): number => perf.now();
  const raf = globalThis.requestAnimationFrame;
  const caf = globalThis.cancelAnimationFrame;
  if (typeof raf === 'function' && typeof caf === 'function') {
    return {
      now,
      requestFrame: (callback) => raf(callback),
      cancelFrame: (handle) => caf(handle as number),
    };
  }
  return {
    now,
    requestFrame: (callback) => setTimeout(() => callback(now()), FALLBACK_FRAME_MS),
    cancelFrame: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  };
}
