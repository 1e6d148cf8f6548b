// Public entry `react-netcode`: what a game uses — the protocol and its fields, systems, the
// server and the client, ticks, predicted-spawn ids, errors, the loopback transport and the link
// conditioner, and the types of everything these hand out. The engines' building blocks (codecs,
// buffers, timelines, the prediction and ghost hosts) are in `react-netcode/internals`; React,
// R3F, Rapier and socket.io live in their own subpath entries.

// Protocol, fields, RPCs.
export { defineProtocol, ghost, isSnapshotTick, rpc } from './core/protocol.ts';
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
export { field } from './core/field.ts';
export type { EventOptions, Field, FieldOptions, FieldValue, Quat, SendTo, Smoothing, Vec2, Vec3 } from './core/field.ts';
export type { Schema, Values } from './core/schema.ts';

// Systems and the world they run on.
export { defineSystems, system, SystemError } from './core/system.ts';
export type { SpawnOptions, SystemContext, SystemDef, SystemFn, SystemStage, SystemWhere } from './core/system.ts';
export type { Ghost, GhostMode, GhostNames, GhostValues, World } from './core/world.ts';
export type { Rng } from './core/rng.ts';

// The server.
export { createServer } from './create-server.ts';
export type { NetServer } from './core/server.ts';
export type { JoinDecision, ServerEvents, ServerOptions } from './core/server.ts';
export type { Connection, ConnectionState, ConnectionStats } from './core/connection.ts';
export type { Relevancy } from './core/server-ghosts.ts';
export type { ServerInputStats } from './core/input/index.ts';
export type { TickStats } from './core/stats.ts';

// The client and the handles it exposes (client.events, .ghosts, .prediction, .spawns, .clock, .input, .time).
export { createClient } from './core/client.ts';
export type { ClientEvents, ClientOptions, ClientState, ClientStatus, NetClient } from './core/client.ts';
export type { CloseCode } from './core/close-code.ts';
export type { ClientTraffic } from './core/client-send.ts';
export type { Emitter, Listenable } from './core/emitter.ts';
export type { ClientGhosts, ClientGhostOptions, GhostEvents, GhostRecord } from './core/client-ghosts.ts';
export type { ClientPrediction, Misprediction, PredictionEvents, PredictionOptions, PredictionStats, RollbackPolicy } from './core/prediction.ts';
export type { TickHistory } from './core/history.ts';
export type { PredictionSwitchingOptions } from './core/smoothing/mode-switcher.ts';
export type { CorrectionOptions } from './core/smoothing/index.ts';
export type { Correction, CorrectionCause } from './core/corrections.ts';
export type { PredictedSpawns, PredictedSpawnOptions } from './core/predicted-spawns.ts';
export type { ClockSync, ClockSyncOptions } from './core/clock/index.ts';
export type { InputBuffer } from './core/input/index.ts';
export type { NetworkTime } from './core/clock/network-time.ts';

// Predicted spawning.
export { spawnId, spawnIdClassifier, spawnIdOwner, tickWindowClassifier } from './core/spawning.ts';
export type { PredictedSpawnInfo, SpawnCandidate, SpawnClassifier } from './core/spawning.ts';

// Ticks.
export { isNewer, isNewerOrEqual, newestTick, oldestTick, tickAdd, tickDiff, toTick } from './core/clock/tick.ts';
export type { Tick } from './core/clock/tick.ts';

// Errors and logging.
export { isNetcodeError, NetcodeError, WireError } from './core/errors.ts';
export type { NetcodeErrorCode } from './core/errors.ts';
export { consoleLogger } from './core/emitter.ts';
export type { Logger, LogLevel } from './core/emitter.ts';

// Transports: the interface a transport implements, the in-memory loopback, the link conditioner, the schedulers.
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
export { LoopbackNetwork } from './transport/loopback.ts';
export { conditionClient } from './transport/conditioner.ts';
export type { ConditionedClientTransport, ConditionerOptions, LinkConditioner, LinkOptions, LinkStats } from './transport/conditioner.ts';
export { conditionServer } from './transport/condition-server.ts';
export type { ConditionedServerTransport, PeerLinkOptions, ServerConditionerOptions } from './transport/condition-server.ts';
export { realTimeScheduler, VirtualScheduler } from './transport/scheduler.ts';
export { systemsFingerprint } from './core/build-check.ts';
export type { BuildIdentity } from './core/build-check.ts';
export type { FieldFor, RequiredField } from './core/field.ts';
export type { GhostInit, RequiredKeys, SpawnArgs } from './core/world.ts';
export type { PredictingClient } from './core/client.ts';
export { pressSpawnIds } from './core/spawning.ts';
export type { EventKey } from './core/system.ts';
export { DEFAULT_DEBUG_HANDLE_NAME } from './core/debug-handle.ts';
export type { DebugCorrection, DebugGhost, DebugHandle } from './core/debug-handle.ts';
export { leaveOnPageHide, PAGE_CLOSED_REASON } from './core/page-hide.ts';
export type { PageEvents } from './core/page-hide.ts';
