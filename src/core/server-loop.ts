// The server's fixed-step loop on a Scheduler, and its "fell behind" warning. The loop
// wakes when the next step is due, yields once to the transport after a stall (so the
// inputs that arrived meanwhile are read before the backlog is caught up), and never
// stops on an error. The warning tells a slow simulation from a starved process.

import type { FixedStepAccumulator } from './clock/accumulator.ts';
import type { TickStats } from './stats.ts';
import type { Scheduler, TimerHandle } from './transport.ts';
import { watchOnce } from './watch.ts';

/** A loop turn this late after the previous one yields once to the transport before ticking. */
const STALL_YIELD_MS = 50;
/** The "fell behind" warning is logged at most this often. */
const BEHIND_WARNING_INTERVAL_MS = 5000;
/** Tick times below this many samples say nothing about a p99 (it is the slowest one: a cold first tick). */
const MIN_P99_SAMPLES = 100;
/** A stall that begins this soon after start() is blamed on startup work. */
const STARTUP_MS = 1000;

/** A server that has not begun to run (no start(), tick() or update(now) that ticked) this long after it was created warns once. */
export const RUN_WATCH_MS = 5000;

/** Warns once, RUN_WATCH_MS after the call, unless the returned function (the server began to run, or closed) is called first. */
export function watchFirstRun(warn: (message: string) => void): () => void {
  return watchOnce(RUN_WATCH_MS, () =>
    warn(
      `react-netcode: this server was created ${RUN_WATCH_MS / 1000} s ago and has not run: until it does, its transport refuses ` +
        "(socket.io) or holds every client, which stays 'connecting'. Call server.start() (created with { scheduler: realTimeScheduler }), " +
        'or drive server.update(now) or server.tick() yourself.',
    ));
}

export class ServerLoop {
  private handle: TimerHandle | undefined;
  private stopped = true;
  /** When start() ran (scheduler time), for the startup hint. */
  startedAt: number | undefined;

  constructor(
    private readonly scheduler: Scheduler,
    /** One turn: run the due ticks at `now`; errors it throws are handed to `onError` and the loop goes on. */
    private readonly turn: (now: number) => void,
    private readonly nextDelayMs: () => number,
    private readonly onError: (error: unknown) => void,
  ) {}

  get running(): boolean {
    return this.handle !== undefined;
  }

  start(): void {
    if (this.handle !== undefined) return;
    this.startedAt = this.scheduler.now();
    let lastTurn: number | undefined;
    let yielded = false;
    const run = (): void => {
      const now = this.scheduler.now();
      if (!yielded && lastTurn !== undefined && now - lastTurn > STALL_YIELD_MS) {
        yielded = true;
        this.handle = this.scheduler.setTimeout(run, 0);
        return;
      }
      yielded = false;
      lastTurn = now;
      try {
        this.turn(now);
      } catch (error) {
        this.onError(error);
      } finally {
        if (!this.stopped) this.handle = this.scheduler.setTimeout(run, Math.max(1, this.nextDelayMs()));
      }
    };
    this.stopped = false;
    run();
  }

  stop(): void {
    this.stopped = true;
    if (this.handle !== undefined) this.scheduler.clearTimeout(this.handle);
    this.handle = undefined;
  }
}

/** Decides when the accumulator's overruns deserve a warning, and words it. */
export class BehindWarning {
  private lastOverruns = 0;
  private lastUpdateAt: number | undefined;
  private lastWarningAt = -Infinity;

  constructor(
    private readonly acc: FixedStepAccumulator,
    private readonly tickStats: () => TickStats,
    private readonly protocol: { readonly stepMs: number; readonly tickRate: number },
  ) {}

  /** Call after each update(now); returns the warning to log, if one is due. */
  check(now: number, startedAt: number | undefined): string | undefined {
    const gap = this.lastUpdateAt === undefined ? 0 : now - this.lastUpdateAt;
    this.lastUpdateAt = now;
    if (this.acc.overruns === this.lastOverruns) return undefined;
    this.lastOverruns = this.acc.overruns;
    if (now - this.lastWarningAt < BEHIND_WARNING_INTERVAL_MS) return undefined;
    this.lastWarningAt = now;
    return this.message(gap, startedAt !== undefined && now - gap - startedAt < STARTUP_MS);
  }

  /** The p99 counts only over enough ticks: right after start() it is the one cold first tick. */
  private message(gapMs: number, atStartup: boolean): string {
    const s = this.tickStats();
    const step = this.protocol.stepMs;
    const head = `react-netcode: server tick loop fell behind; dropped ${this.acc.droppedSteps} ticks so far (${this.acc.overruns} overruns).`;
    const times = `ticks take ${s.meanMs.toFixed(2)} ms on average (p99 ${s.p99Ms.toFixed(2)} ms over ${Math.min(s.ticks, 600)} ticks) of a ${step.toFixed(2)} ms budget`;
    if (s.meanMs >= step / 2 || (s.ticks >= MIN_P99_SAMPLES && s.p99Ms >= step)) {
      return `${head} The simulation is too slow for tickRate ${this.protocol.tickRate}: ${times}. Make the systems cheaper, lower tickRate, or spread rooms over more processes.`;
    }
    const startup = atStartup ? ' It began right after start(): call start() once the startup work (loading assets, WASM init, builds) is done.' : '';
    return (
      `${head} The process was starved or its timer fired late: the loop did not run for ${Math.round(gapMs)} ms while ${times}. ` +
      `Look for blocking work on the event loop (synchronous I/O, long GC pauses) or an overloaded host, not the simulation.${startup}`
    );
  }
}
