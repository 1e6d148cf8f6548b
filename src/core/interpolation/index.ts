// Snapshot interpolation for remote (interpolated) ghosts: the delayed, jitter-adaptive
// InterpolationTimeline says where to look; sampleField / sampleValues / sampleFlatAt read a confirmed history there.

export { InterpolationTimeline } from './timeline.ts';
export type { InterpolationOptions } from './timeline.ts';
export { lerpField, sampleField, sampleValues, sampleFlatAt, sampleValuesAt, setSampleTime } from './sample.ts';
