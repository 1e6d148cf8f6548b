// Client clock sync (step 2 of a client frame): from Ping/Pong round trips and the server's
// input-margin reports to the two clocks of NetworkTime, `serverTick` and `predictedTick`.
//
// Definitions (NFE users: our `predictedTick` is NFE's NetworkTime.ServerTick / InputTargetTick):
// - serverTick: the client's estimate of the tick the server is simulating now (float ticks).
// - predictedTick: the tick the client simulates and sends input for:
//   serverTick + one-way trip (RTT / 2) + slack, capped at maxPredictionMs ahead; latency beyond the
//   cap becomes input delay (inputs sampled now are for predictedTick + inputDelayTicks).
// - slack: the margin by which inputs should arrive before the server needs them; it adapts to the
//   measured jitter (default minimum 2 ticks).
// - interpolationTick (+ fraction): where remote ghosts are shown; see InterpolationTimeline.

export { ClockSync } from './clock-sync.ts';
export type { ClockSyncOptions } from './clock-sync.ts';
export { OffsetEstimator, RttEstimator } from './estimators.ts';
