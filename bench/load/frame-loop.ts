// Load harness, client side: a frame loop like a browser's, for one headless client.
// Frames come at `fps` (each interval scaled by 1 ± `jitter`, uniformly, seeded); a
// late frame is not made up with a burst (as requestAnimationFrame skips frames);
// `pause(ms)` stalls this client's frames for a while (its process and the other
// clients keep running: a blocked tab, not a blocked machine). Every gap longer than asked
// for is recorded on the shared wallNow() clock, so a run can tell which stalls —
// injected or inflicted by a loaded machine — coincide with what went wrong.
import { performance } from 'node:perf_hooks';
import { createRng, type Rng } from '../../src/core/rng.ts';
import { GapRecorder, wallNow } from './measure.ts';

export interface FrameLoopOptions {
  fps: number;
  /** Each frame interval is scaled by a uniform factor in [1 − jitter, 1 + jitter] (0 ≤ jitter < 1; default 0). */
  jitter?: number;
  /** Seed of the jitter (default 1). */
  seed?: number;
  /** Gaps longer than asked for by more than this are recorded (ms, default 8). */
  stallFloorMs?: number;
}

export class FrameLoop {
  readonly fps: number;
  readonly gaps: GapRecorder;
  frames = 0;
  private readonly jitter: number;
  private pauseUntil = 0;
  private readonly rng: Rng;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private due = 0;
  private asked = 0;

  constructor(options: FrameLoopOptions) {
    const jitter = options.jitter ?? 0;
    if (!(options.fps > 0 && options.fps <= 1000)) throw new Error(`react-netcode: FrameLoop fps must be in (0, 1000], got ${options.fps}.`);
    if (!(jitter >= 0 && jitter < 1)) throw new Error(`react-netcode: FrameLoop jitter must be in [0, 1), got ${jitter}.`);
    this.fps = options.fps;
    this.jitter = jitter;
    this.rng = createRng(options.seed ?? 1);
    this.gaps = new GapRecorder(options.stallFloorMs ?? 8);
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Call `onFrame(now)` (performance.now() ms) once per frame until `stop()`. */
  start(onFrame: (now: number) => void): void {
    if (this.timer !== undefined) throw new Error('react-netcode: FrameLoop already started; stop() it first.');
    this.due = performance.now();
    const frame = (): void => {
      const now = performance.now();
      if (now < this.pauseUntil) {
        this.timer = setTimeout(frame, this.pauseUntil - now);
        return;
      }
      this.gaps.note(wallNow(), this.asked);
      this.frames++;
      onFrame(now);
      const interval = (1000 / this.fps) * (1 + this.jitter * (2 * this.rng.next() - 1));
      this.due += interval;
      if (this.due < now - interval) this.due = now; // too far behind: skip frames, do not burst
      const after = performance.now();
      this.asked = Math.max(0, this.due - after) + (after - now);
      if (this.timer !== undefined) this.timer = setTimeout(frame, Math.max(0, this.due - after));
    };
    this.timer = setTimeout(frame, 0);
  }

  /** No frames for the next `durationMs` (a stall; it is recorded in `gaps` like any other). */
  pause(durationMs: number): void {
    this.pauseUntil = Math.max(this.pauseUntil, performance.now() + durationMs);
    this.due = Math.max(this.due, this.pauseUntil);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
