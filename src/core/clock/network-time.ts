// NetworkTime: NFE's per-frame view of the client's clocks, filled from the clock
// sync (serverTick, predictedTick), the interpolation timeline and the prediction
// loop. One object per client, updated in place each frame (no allocation).

import type { ClockSync } from './index.ts';
import type { InterpolationTimeline } from '../interpolation/index.ts';
import type { Tick } from './tick.ts';

/**
 * `serverTick`: the client's estimate of the tick the server simulates now.
 * `predictedTick`: the tick the client simulates and sends input for (serverTick +
 * one-way trip + slack; NFE's NetworkTime.ServerTick). `interpolationTick` + fraction:
 * where remote ghosts are shown.
 */
export interface NetworkTime {
  readonly serverTick: number;
  readonly predictedTick: Tick;
  /** Progress towards the next predicted tick (frame interpolation of predicted ghosts). */
  readonly predictedFraction: number;
  readonly interpolationTick: Tick;
  readonly interpolationFraction: number;
  /** Outside systems: true. Inside shared systems use ctx.isFirstTimeFullyPredictingTick. */
  readonly isFirstTimeFullyPredictingTick: boolean;
  readonly isResimulating: boolean;
  readonly rttMs: number;
  readonly jitterMs: number;
  readonly timeScale: number;
  readonly inputDelayTicks: number;
}

/** NetworkTime as the client engine fills it (games get the read-only `client.time`). */
export type MutableNetworkTime = { -readonly [K in keyof NetworkTime]: NetworkTime[K] };

export function createNetworkTime(): MutableNetworkTime {
  return {
    serverTick: 0,
    predictedTick: 0,
    predictedFraction: 0,
    interpolationTick: 0,
    interpolationFraction: 0,
    isFirstTimeFullyPredictingTick: true,
    isResimulating: false,
    rttMs: 0,
    jitterMs: 0,
    timeScale: 1,
    inputDelayTicks: 0,
  };
}

export function updateNetworkTime(
  t: MutableNetworkTime, clock: ClockSync, timeline: InterpolationTimeline, lastPredicted: Tick | undefined, resimulating: boolean,
): void {
  t.serverTick = clock.serverTick;
  t.predictedTick = lastPredicted ?? clock.predictedTick;
  t.predictedFraction = clock.predictedFraction;
  t.interpolationTick = timeline.tick;
  t.interpolationFraction = timeline.fraction;
  t.isFirstTimeFullyPredictingTick = !resimulating;
  t.isResimulating = resimulating;
  t.rttMs = clock.rttMs;
  t.jitterMs = clock.jitterMs;
  t.timeScale = clock.timeScale;
  t.inputDelayTicks = clock.inputDelayTicks;
}
