// Deterministic frames (the `frameloop` global set to 'deterministic'): one virtual
// clock for the whole page, advanced by exactly FIXED_FRAME_MS per frame, and frames
// run by this loop instead of the browser. A frame is, in this order:
//
//   1. the VirtualScheduler advances to frame × FIXED_FRAME_MS: the servers' ticks, the
//      link conditioners' delayed packets and scene timers (`scene.every`) run at their
//      virtual due times;
//   2. every scene's `network.deliver()`;
//   3. the <NetcodeProvider clock> frames requested (engines no <NetcodeFrame/> has claimed);
//   4. every R3F root (`frameloop="never"`) is advanced with the virtual time: useFrame
//      callbacks (<NetcodeFrame now> steps its engine, visual proxies, probes) and the render;
//   5. the scenes' onFrame listeners.
//
// React commits between frames: each frame runs in a `scheduler` callback at idle
// priority, queued from a microtask after the previous frame, i.e. after every render
// and effect React (DOM and R3F share the one `scheduler` module) has queued, so a
// ghost that spawns in frame N is mounted before frame N + 1 however slow the machine is. Frames wait until every <StoryCanvas> on the
// page has its R3F root (the canvas is measured and created asynchronously), so the
// first frame, frame 0 at virtual time 0, sees the same mounted tree on every run.
// Nothing here reads wall time: the browser only paces playback (at most one frame per
// animation frame); `step(n)` runs n frames as fast as React settles.
import { unstable_IdlePriority, unstable_scheduleCallback } from 'scheduler';
import { VirtualScheduler } from 'react-netcode';
import type { FrameClock } from 'react-netcode/react';
import { storyState } from './story-state.ts';

/** Virtual milliseconds per deterministic frame (a 60 Hz display). */
export const FIXED_FRAME_MS = 1000 / 60;

export type FrameLoopMode = 'realtime' | 'deterministic';

/** What the page shows and a test reads: `window.__frameloop` in deterministic mode. */
export interface FrameLoopStatus {
  /** The last frame run (−1 before frame 0). Frame N shows virtual time N × FIXED_FRAME_MS. */
  readonly frame: number;
  /** Virtual ms of that frame. */
  readonly timeMs: number;
  /** Playback stopped (`pause()`, `step(n)` or the `pauseAt` global); `step(n)` still runs frames. */
  readonly paused: boolean;
  /** Every <StoryCanvas> has its R3F root: frames can run. */
  readonly ready: boolean;
  /** Frames requested and not run yet. */
  readonly pending: number;
}

export interface FrameLoopControl extends FrameLoopStatus {
  play(): void;
  pause(): void;
  /** Pause and run `n` more frames (as fast as React settles between them). */
  step(n: number): void;
}

declare global {
  interface Window {
    /** The deterministic frame loop of this page (absent in real-time mode). */
    __frameloop?: FrameLoopControl;
  }
}

export interface FixedFrameLoopOptions {
  /** Pause once this frame has run (0: show the first frame and wait). Default: play on. */
  pauseAt?: number | undefined;
}

/** The page's deterministic frame loop. Created by the story decorator, one per story mount. */
export class FixedFrameLoop {
  /** The virtual clock every scene on the page runs on (server, conditioners, timers). */
  readonly scheduler = new VirtualScheduler(0);
  /** For <NetcodeProvider clock>: virtual time, frames requested run at step 3 of the next frame. */
  readonly clientClock: FrameClock<number>;
  private frame = -1;
  /** Run frames up to this one (inclusive). */
  private target = 0;
  private paused = false;
  /** One-shot: cleared once reached, so play() continues past it. */
  private pauseAt: number | undefined;
  private expectedCanvases = 0;
  private readonly roots = new Set<(seconds: number) => void>();
  private readonly deliveries = new Set<() => void>();
  private readonly afterFrame = new Set<(now: number) => void>();
  private readonly requested = new Map<number, (time: number) => void>();
  private nextRequest = 1;
  private readonly listeners = new Set<() => void>();
  private scheduled = false;
  private raf = 0;
  private running = false;
  private readonly control: FrameLoopControl;

  constructor(options: FixedFrameLoopOptions = {}) {
    this.pauseAt = options.pauseAt;
    this.clientClock = {
      now: this.now,
      requestFrame: (callback) => {
        const handle = this.nextRequest++;
        this.requested.set(handle, callback);
        return handle;
      },
      cancelFrame: (handle) => void this.requested.delete(handle),
    };
    const status = (): FrameLoopStatus => this.status;
    this.control = {
      get frame() {
        return status().frame;
      },
      get timeMs() {
        return status().timeMs;
      },
      get paused() {
        return status().paused;
      },
      get ready() {
        return status().ready;
      },
      get pending() {
        return status().pending;
      },
      play: () => this.play(),
      pause: () => this.pause(),
      step: (n) => this.step(n),
    };
  }

  /** Virtual milliseconds (the time of the frame being run, or of the last one). */
  readonly now = (): number => this.scheduler.now();

  get status(): FrameLoopStatus {
    return { frame: this.frame, timeMs: this.now(), paused: this.paused, ready: this.ready, pending: Math.max(0, this.target - this.frame) };
  }

  /** Start pacing and publish `window.__frameloop`. Idempotent; `stop()` undoes it. */
  start(): void {
    if (this.running) return;
    this.running = true;
    window.__frameloop = this.control;
    const pace = (): void => {
      if (!this.running) return;
      this.raf = requestAnimationFrame(pace);
      if (!this.paused) this.request(this.frame + 1);
    };
    this.raf = requestAnimationFrame(pace);
    this.pump();
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    cancelAnimationFrame(this.raf);
    if (window.__frameloop === this.control) delete window.__frameloop;
  }

  play(): void {
    this.paused = false;
    this.notify();
  }

  pause(): void {
    this.paused = true;
    this.target = Math.min(this.target, Math.max(this.frame, 0));
    this.notify();
  }

  step(n: number): void {
    if (!(n >= 0)) return;
    this.paused = true;
    this.target = Math.max(this.target, this.frame) + Math.floor(n);
    this.notify();
    this.pump();
  }

  /** A <StoryCanvas> mounted: no frame runs until its R3F root is registered. Returns the release. */
  expectCanvas(): () => void {
    this.expectedCanvases++;
    this.notify();
    return () => {
      this.expectedCanvases--;
      this.notify();
      this.pump();
    };
  }

  /** An R3F root (`state.advance`) to advance every frame, in registration order. */
  addRoot(advance: (seconds: number) => void): () => void {
    const entry = (seconds: number): void => advance(seconds);
    this.roots.add(entry);
    this.notify();
    this.pump();
    return () => {
      this.roots.delete(entry);
      this.notify();
    };
  }

  /** A scene's `network.deliver()`, run after the clock has advanced. */
  addDelivery(deliver: () => void): () => void {
    this.deliveries.add(deliver);
    return () => void this.deliveries.delete(deliver);
  }

  /** Called at the end of every frame with its virtual time. */
  onFrame(listener: (now: number) => void): () => void {
    this.afterFrame.add(listener);
    return () => void this.afterFrame.delete(listener);
  }

  /** Status changes (a frame ran, paused, ready): for the toolbar bar. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private get ready(): boolean {
    return this.expectedCanvases > 0 && this.roots.size >= this.expectedCanvases;
  }

  /** Playback: ask for frames up to `frame`, never beyond `pauseAt`. */
  private request(frame: number): void {
    const capped = this.pauseAt === undefined ? frame : Math.min(frame, this.pauseAt);
    if (capped > this.target) this.target = capped;
    this.pump();
  }

  /**
   * Schedule the next frame after React's pending work, if one is due and the page is ready.
   * Queued from a microtask: React hands the renders a frame caused to the scheduler from
   * microtasks, and the scheduler runs its callbacks back to back in one task without
   * draining microtasks in between — queued directly, frame N + 1 would overtake them.
   */
  private pump(): void {
    if (this.scheduled || !this.running || !this.ready || this.frame >= this.target) return;
    this.scheduled = true;
    queueMicrotask(() => unstable_scheduleCallback(unstable_IdlePriority, this.next));
  }

  private readonly next = (): void => {
    this.scheduled = false;
    if (!this.running || !this.ready || this.frame >= this.target) return;
    this.runFrame();
    this.pump();
  };

  private runFrame(): void {
    const n = this.frame + 1;
    this.scheduler.advanceTo(n * FIXED_FRAME_MS);
    for (const deliver of this.deliveries) deliver();
    this.frame = n;
    storyState().frames = n;
    const now = this.now();
    const requested = [...this.requested.values()];
    this.requested.clear();
    for (const callback of requested) callback(now);
    for (const advance of this.roots) advance(now / 1000);
    for (const listener of this.afterFrame) listener(now);
    if (this.pauseAt !== undefined && n >= this.pauseAt) {
      this.pauseAt = undefined;
      this.paused = true; // playback asked for at most this frame; a step(n) in progress goes on
    }
    this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
