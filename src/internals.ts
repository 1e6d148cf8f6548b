// Entry `react-netcode/internals`: the engines' building blocks — bit packing, schema codecs,
// snapshot codec, history and input buffers, clock sync, interpolation timeline, prediction and
// ghost hosts, smoothing, the system runner, the wire constants. The project's tests, benchmarks
// and stories use them; a game needs none of them (the root entry has what it uses) and their
// shape may change in any release.

export { BitReader, BitWriter } from './core/bits.ts';
export { compileSchema } from './core/schema.ts';
export type { Schema, SchemaCodec, Values } from './core/schema.ts';
export { fnv1a32 } from './core/protocol.ts';
export { DEFAULT_MAX_PRESSES_PER_TICK } from './core/field.ts';
export { DEFAULT_RPC_MAX_BYTES, MAX_MESSAGE_BYTES, MessageKind, WIRE_VERSION } from './core/wire.ts';
export { createRng, deriveSeed, Rng } from './core/rng.ts';
export { Emitter } from './core/emitter.ts';
export { HistoryBuffer } from './core/history.ts';
export type { TickHistory } from './core/history.ts';
export { FixedStepAccumulator } from './core/clock/accumulator.ts';
export type { AccumulatorOptions } from './core/clock/accumulator.ts';
export { ClockSync } from './core/clock/index.ts';
export { eventDelta, InputBuffer, sanitizeInput, ServerInputQueue } from './core/input/index.ts';
export { Connection } from './core/connection.ts';
export { NetClient } from './core/client.ts';
export { NetServer } from './core/server.ts';
export { EngineWorld, Ghost } from './core/world.ts';
export type { World, WorldOptions } from './core/world.ts';
export { SystemRunner } from './core/system.ts';
export type { RunFlags, SystemHooks } from './core/system.ts';
export { SnapshotDecoder, SnapshotEncoder, maxWaitSnapshots } from './core/snapshot/index.ts';
export type { DecodedSnapshot, SnapshotGhost } from './core/snapshot/index.ts';
export { InterpolationTimeline, lerpField, sampleField, sampleValues } from './core/interpolation/index.ts';
export type { InterpolationOptions } from './core/interpolation/index.ts';
export { ClientGhosts } from './core/client-ghosts.ts';
export { ClientPrediction } from './core/prediction.ts';
export { PredictedSpawns } from './core/predicted-spawns.ts';
export { blendValues, desiredMode, frameInterpolate, FrameInterpolator, ModeTransition, VisualCorrection } from './core/smoothing/index.ts';
export type { CorrectionResult, PredictionMode, SwitchingOptions } from './core/smoothing/index.ts';
export { LinkConditioner } from './transport/conditioner.ts';
