// Client prediction's options, events and stats (prediction.ts).

import type { Tick } from './clock/tick.ts';
import type { CorrectionOptions } from './smoothing/index.ts';

export type RollbackPolicy = 'always' | 'check';

/** Default deepest rollback: 2 s of 60 Hz ticks, within the 128 ticks of input the client keeps. */
export const DEFAULT_MAX_ROLLBACK_TICKS = 120;

export interface PredictionOptions {
  /** 'always' resimulates on every new snapshot; 'check' only when a field is beyond its tolerance (default 'check'). */
  rollback?: RollbackPolicy;
  /**
   * Deepest rollback in ticks (default 120: 2 s at 60 Hz, the ticks of input a client keeps); beyond
   * it a ghost snaps to its confirmed state without resimulation. Deep rollbacks happen only after a
   * stall (the server's or the client's), when prediction ran far ahead of the newest snapshot.
   */
  maxRollbackTicks?: number;
  /** Error smoothing options (default 100 ms, 1 mm minimum, 2 m teleport). */
  correction?: CorrectionOptions;
  /** Log every misprediction (Source's cl_showerror). Default false. */
  logMispredictions?: boolean;
  /**
   * Most ticks one frame simulates for real (default 30: half a second at 60 Hz, so frame rates
   * down to 2 fps never fall behind). When a frame is due more (a stall), the oldest due ticks are
   * skipped: not simulated and no input is committed for them, so a press made during the stall is
   * carried into the first simulated tick (InputEvents are running counts) and simulated once.
   */
  maxTicksPerFrame?: number;
}

/** One field that differed beyond its tolerance at a confirmed tick (Source's cl_pdump idea). */
export interface Misprediction {
  ghostId: number;
  type: string;
  field: string;
  tick: Tick;
  predicted: unknown;
  confirmed: unknown;
  distance: number;
  tolerance: number;
}

/** A correction of the shown transform (> the correction's minDistance), before its cause is known. */
export interface CorrectionRecord {
  ghostId: number;
  type: string;
  /** True when the local client owns the ghost (it is driven by our input). */
  local: boolean;
  /** The snapshot tick the resimulation started from. */
  tick: Tick;
  /** The previous snapshot tick prediction was checked at: the misprediction arose in (fromTick, tick]. */
  fromTick: Tick;
  /** How far the shown position moved (m). */
  distance: number;
}

export type PredictionEvents = {
  misprediction: (m: Misprediction) => void;
  /** The shown transform of a predicted ghost was corrected after a resimulation. */
  correction: (c: CorrectionRecord) => void;
  /** A ghost's confirmed tick was more than maxRollbackTicks behind: it snapped without resimulation. */
  rollbackCapped: (ghostId: number, depth: number) => void;
};

export interface PredictionStats {
  /** Rollbacks performed (resimulations started). */
  rollbacks: number;
  /** Snapshots whose check found nothing to correct (no resimulation). */
  skipped: number;
  resimulatedTicks: number;
  /** Ticks simulated to bring a ghost from its confirmed state up to the predicted tick when its prediction starts (not a correction). */
  catchUpTicks: number;
  /** Corrections applied to the shown transform (smoothed or snapped). */
  corrections: number;
  mispredictions: number;
  /** Ticks a frame skipped because more were due than maxTicksPerFrame (stalls). */
  skippedTicks: number;
  /** Frames in which prediction held because it was maxRollbackTicks past the newest snapshot (snapshots stopped). */
  heldFrames: number;
}
