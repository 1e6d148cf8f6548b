// Visual smoothing for predicted ghosts (render stage, never simulation): frame interpolation
// between ticks, decaying misprediction offsets, and blended prediction-mode switches.

export { DEFAULT_CORRECTION_OPTIONS, VisualCorrection } from './correction.ts';
export type { CorrectionOptions, CorrectionResult } from './correction.ts';
export { blendValues, FrameInterpolator, frameInterpolate, frameInterpolateAtFraction, setFrameFraction } from './frame-interpolation.ts';
export { DEFAULT_TRANSITION_MS, desiredMode, ModeTransition } from './switching.ts';
export type { PredictionMode, SwitchingOptions } from './switching.ts';
