// Snapshot interpolation for remote (interpolated) ghosts: the delayed, jitter-adaptive
// InterpolationTimeline says where to look; sampleField / sampleValues read ConfirmedHistory there.

export { InterpolationTimeline } from './timeline.ts';
export type { InterpolationOptions } from './timeline.ts';
export { lerpField, sampleField, sampleValues, sampleValuesAt, setSampleTime } from './sample.ts';
