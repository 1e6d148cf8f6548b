// Public entry `react-netcode`: the framework-free core (protocol, codecs, time,
// history, server and client engines), the loopback transport and the link
// conditioner. React, R3F, Rapier and socket.io live in their own subpath entries.

export { FixedStepAccumulator } from './core/clock/accumulator.ts';
export type { AccumulatorOptions } from './core/clock/accumulator.ts';
export { BitReader, BitWriter } from './core/bits.ts';
export { createClient, NetClient } from './core/client.ts';
export type { ClientEvents, ClientOptions, ClientState, ClientStatus } from './core/client.ts';
export type { Correction, CorrectionCause } from './core/corrections.ts';
export type { NetworkTime } from './core/clock/network-time.ts';
export { ClientPrediction } from './core/prediction.ts';
export type { Misprediction, PredictionEvents, PredictionOptions, PredictionStats, RollbackPolicy } from './core/prediction.ts';
export type { PredictionSwitchingOptions } from './core/smoothing/mode-switcher.ts';
export { ClockSync } from './core/clock/index.ts';
export type { ClockSyncOptions } from './core/clock/index.ts';
export { eventDelta, InputBuffer, sanitizeInput, ServerInputQueue } from './core/input/index.ts';
export type { ServerInputStats } from './core/input/index.ts';
export { Connection } from './core/connection.ts';
export type { ConnectionState, ConnectionStats } from './core/connection.ts';
export { consoleLogger, Emitter } from './core/emitter.ts';
export type { Logger, LogLevel } from './core/emitter.ts';
export { isNetcodeError, NetcodeError, WireError } from './core/errors.ts';
export type { NetcodeErrorCode } from './core/errors.ts';
export { DEFAULT_MAX_PRESSES_PER_TICK, field } from './core/field.ts';
export type { EventOptions, Field, FieldOptions, FieldValue, Quat, SendTo, Smoothing, Vec2, Vec3 } from './core/field.ts';
export { HistoryBuffer } from './core/history.ts';
export { defineProtocol, fnv1a32, ghost, isSnapshotTick, rpc } from './core/protocol.ts';
export type {
  GhostOptions,
  GhostType,
  InputSchema,
  InputValues,
  JoinPayload,
  Protocol,
  ProtocolDefinition,
  RpcDef,
  RpcDirection,
  RpcNames,
  RpcOptions,
  RpcPayload,
  SupportedMode,
} from './core/protocol.ts';
export { createRng, deriveSeed, Rng } from './core/rng.ts';
export { compileSchema } from './core/schema.ts';
export type { Schema, SchemaCodec, Values } from './core/schema.ts';
export { NetServer } from './core/server.ts';
export type { JoinDecision, ServerEvents, ServerOptions } from './core/server.ts';
export type { Relevancy } from './core/server-ghosts.ts';
export { ClientGhosts } from './core/client-ghosts.ts';
export type { ClientGhostOptions, GhostEvents, GhostRecord } from './core/client-ghosts.ts';
export { Ghost, World } from './core/world.ts';
export type { GhostMode, GhostNames, GhostValues, WorldOptions } from './core/world.ts';
export { defineSystems, system, SystemError, SystemRunner } from './core/system.ts';
export type { RunFlags, SpawnOptions, SystemContext, SystemDef, SystemFn, SystemHooks, SystemStage, SystemWhere } from './core/system.ts';
export { InterpolationTimeline, lerpField, sampleField, sampleValues } from './core/interpolation/index.ts';
export type { InterpolationOptions } from './core/interpolation/index.ts';
export type { TickStats } from './core/stats.ts';
export { isNewer, isNewerOrEqual, newestTick, oldestTick, tickAdd, tickDiff, toTick } from './core/clock/tick.ts';
export type { Tick } from './core/clock/tick.ts';
export type {
  Channel,
  ClientTransport,
  ClientTransportHandler,
  PeerId,
  Scheduler,
  ServerTransport,
  ServerTransportHandler,
  TimerHandle,
  TransportStats,
} from './core/transport.ts';
export { DEFAULT_RPC_MAX_BYTES, MAX_MESSAGE_BYTES, MessageKind, WIRE_VERSION } from './core/wire.ts';
export { conditionClient, LinkConditioner } from './transport/conditioner.ts';
export type { ConditionedClientTransport, ConditionerOptions, LinkOptions, LinkStats } from './transport/conditioner.ts';
export { conditionServer } from './transport/condition-server.ts';
export type { ConditionedServerTransport, PeerLinkOptions, ServerConditionerOptions } from './transport/condition-server.ts';
export { LoopbackNetwork } from './transport/loopback.ts';
export { realTimeScheduler, VirtualScheduler } from './transport/scheduler.ts';

import { createServer as createCoreServer, type NetServer as Server, type ServerOptions as Options } from './core/server.ts';
import type { Protocol as AnyProtocol } from './core/protocol.ts';
import { realTimeScheduler as defaultScheduler } from './transport/scheduler.ts';

const tokenWord = new Uint32Array(1);
/** An unpredictable uint32 (Web Crypto, in Node ≥ 19 and every browser) for resume tokens. */
function secureRandomUint32(): number {
  return globalThis.crypto.getRandomValues(tokenWord)[0]!;
}

/**
 * Create the authoritative server. `start()` runs it on the real monotonic clock unless you pass
 * another `scheduler`; resume tokens come from Web Crypto unless you pass `randomUint32`.
 */
export function createServer<P extends AnyProtocol>(options: Options<P>): Server<P> {
  return createCoreServer({ scheduler: defaultScheduler, randomUint32: secureRandomUint32, ...options });
}
export { SnapshotDecoder, SnapshotEncoder, maxWaitSnapshots } from './core/snapshot/index.ts';
export type { DecodedSnapshot, SnapshotGhost } from './core/snapshot/index.ts';
export { blendValues, desiredMode, frameInterpolate, FrameInterpolator, ModeTransition, VisualCorrection } from './core/smoothing/index.ts';
export type { CorrectionOptions, CorrectionResult, PredictionMode, SwitchingOptions } from './core/smoothing/index.ts';
export { spawnId, spawnIdClassifier, spawnIdOwner, tickWindowClassifier } from './core/spawning.ts';
export type { PredictedSpawnInfo, SpawnCandidate, SpawnClassifier } from './core/spawning.ts';
export { PredictedSpawns } from './core/predicted-spawns.ts';
export type { PredictedSpawnOptions } from './core/predicted-spawns.ts';
export { systemsFingerprint } from './core/build-check.ts';
export type { BuildIdentity } from './core/build-check.ts';
export type { FieldFor, RequiredField } from './core/field.ts';
export type { GhostInit, RequiredKeys, SpawnArgs } from './core/world.ts';
export type { PredictingClient } from './core/client.ts';
export { pressSpawnIds } from './core/spawning.ts';
export type { EventKey } from './core/system.ts';
export { DEFAULT_DEBUG_HANDLE_NAME } from './core/debug-handle.ts';
export type { DebugGhost, DebugHandle } from './core/debug-handle.ts';
export { leaveOnPageHide, PAGE_CLOSED_REASON } from './core/page-hide.ts';
export type { PageEvents } from './core/page-hide.ts';
