// Fixed-step accumulator: turns an injected monotonic clock into whole simulation
// ticks. Used by the server loop. After a stall each advance returns a bounded burst
// of ticks and keeps a bounded backlog for the next ones; time beyond the backlog bound
// is dropped and counted as an overrun, so a frozen process never triggers an unbounded
// burst of ticks.

import { NetcodeError } from '../errors.ts';

export interface AccumulatorOptions {
  /** Length of one tick in milliseconds (1000 / tickRate). */
  stepMs: number;
  /** Most ticks one `advance` may return. Default 8. */
  maxStepsPerAdvance?: number;
  /**
   * Most ticks kept due after a stall (≥ maxStepsPerAdvance): the backlog beyond maxStepsPerAdvance
   * is returned by the next advances; beyond this bound it is dropped. Default maxStepsPerAdvance
   * (nothing carried over).
   */
  maxBacklogSteps?: number;
  /** Initial time scale (1 = real time). Clients nudge it within 0.9–1.1 for clock sync. */
  timeScale?: number;
}

export class FixedStepAccumulator {
  readonly stepMs: number;
  readonly maxStepsPerAdvance: number;
  readonly maxBacklogSteps: number;
  /** Multiplies elapsed time. Clamped to (0, 4]. */
  timeScale: number;
  /** How many times catch-up was clamped (ticks were dropped). */
  overruns = 0;
  /** Total ticks dropped by clamping. */
  droppedSteps = 0;
  /** NaN until the first advance (a float field that also holds undefined is a new heap number per write). */
  private last = NaN;
  private accumulated = 0;

  constructor(options: AccumulatorOptions) {
    if (!(options.stepMs > 0) || !Number.isFinite(options.stepMs)) {
      throw new NetcodeError('usage', `react-netcode: stepMs must be a positive number of milliseconds (got ${options.stepMs}); pass 1000 / tickRate.`);
    }
    this.stepMs = options.stepMs;
    this.maxStepsPerAdvance = Math.max(1, Math.floor(options.maxStepsPerAdvance ?? 8));
    this.maxBacklogSteps = Math.max(this.maxStepsPerAdvance, Math.floor(options.maxBacklogSteps ?? this.maxStepsPerAdvance));
    this.timeScale = options.timeScale ?? 1;
  }

  /**
   * Feed the current monotonic time (ms); returns how many whole ticks to simulate now.
   * The first call only starts the clock and returns 0. A clock that goes backwards adds nothing.
   */
  advance(now: number): number {
    if (Number.isNaN(this.last)) {
      this.last = now;
      return 0;
    }
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    const scale = Math.min(4, Math.max(1e-6, this.timeScale));
    this.accumulated += elapsed * scale;
    // The epsilon absorbs float error: 1000 ms of 1000/60 ms steps is 60 ticks, not 59.999….
    let steps = Math.floor(this.accumulated / this.stepMs + 1e-9);
    if (steps > this.maxBacklogSteps) {
      // Beyond the backlog bound: that much time is gone for good (only the fraction of a tick stays).
      this.overruns++;
      this.droppedSteps += steps - this.maxBacklogSteps;
      this.accumulated = Math.max(0, this.accumulated % this.stepMs) + this.maxBacklogSteps * this.stepMs;
      steps = this.maxBacklogSteps;
    }
    if (steps > this.maxStepsPerAdvance) steps = this.maxStepsPerAdvance; // the rest stays due
    this.accumulated = Math.max(0, this.accumulated - steps * this.stepMs);
    return steps;
  }

  /** Progress towards the next tick in [0, 1): used to interpolate between the last two ticks when rendering. */
  get fraction(): number {
    return Math.min(0.999999, this.accumulated / this.stepMs);
  }

  /** Whole ticks due now and not yet returned (a backlog being caught up). */
  get backlog(): number {
    return Math.floor(this.accumulated / this.stepMs + 1e-9);
  }

  /** Milliseconds until the next tick is due at the current scale (for scheduling a timer). */
  msUntilNextStep(): number {
    const scale = Math.min(4, Math.max(1e-6, this.timeScale));
    return Math.max(0, (this.stepMs - this.accumulated) / scale);
  }

  /** Forget the clock (e.g. after the page was hidden): the next `advance` restarts it. */
  reset(): void {
    this.last = NaN;
    this.accumulated = 0;
  }

  /** Add (or remove, if negative) time directly, e.g. to jump the clock after a large sync error. */
  shift(ms: number): void {
    this.accumulated = Math.max(0, this.accumulated + ms);
  }
}
