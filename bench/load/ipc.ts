// Load harness: the JSON protocol between the harness and its server process
// (server-process.ts is the child, server-control.ts the parent). The parent sends
// numbered requests; the child answers each with a reply of the same id, or an
// error. Everything is plain JSON (Node's IPC channel serializes it).
import type { CcuSystem, RoomSamples } from './ccu/rooms.ts';
import type { FloodFigures } from './flood/flood-server.ts';
import type { ServerTally } from './fuzz/report.ts';
import type { Gap } from './measure.ts';
import type { Traffic } from './wire.ts';

/** Run react-netcode's NetServer over its socket.io transport. */
export interface NetcodeServerConfig {
  mode: 'netcode';
  /** Library checkout to load (default: this repository). */
  root?: string;
  /** Server loop gaps longer than this beyond the tick step are recorded as stalls (ms, default 8). */
  stallFloorMs?: number;
}

/** Run a bare socket.io server that emits `downBytes` payloads to each client `downHz` times a second. */
export interface RawServerConfig {
  mode: 'raw';
  downBytes: number;
  downHz: number;
  stallFloorMs?: number;
}

/** Run the protocol fuzzer's target: the fuzz game, limits raised for its reconnects, tick() watched (bench/load/fuzz/fuzz-server.ts). */
export interface FuzzServerConfig {
  mode: 'fuzz';
  stallFloorMs?: number;
}

/** Run the flood bench's server: the fuzz game with the default limits, or the handshake limits off (bench/load/flood/flood-server.ts). */
export interface FloodServerConfig {
  mode: 'flood';
  limitsOff: boolean;
  stallFloorMs?: number;
}

/** Run the ccu bench's server: `rooms` rooms of `players` seats of react-netcode or the Colyseus peer (bench/load/ccu/rooms.ts). */
export interface CcuServerConfig {
  mode: 'ccu';
  system: CcuSystem;
  rooms: number;
  players: number;
  /** The core the process is pinned to (for its busy time), if pinned. */
  cpu?: number;
  /** Write a CPU profile of the measured window here (.cpuprofile). */
  profile?: string;
  stallFloorMs?: number;
}

export type ServerConfig = NetcodeServerConfig | RawServerConfig | FuzzServerConfig | FloodServerConfig | CcuServerConfig;

export type Request =
  | { type: 'start'; config: ServerConfig }
  /** Start the measured window: counters are reported as deltas from here. */
  | { type: 'mark' }
  /** Stop sending (raw mode: the emit loop ends, so what was sent can all arrive). */
  | { type: 'quiesce' }
  | { type: 'report' }
  | { type: 'stop' }
  | { type: 'exit' };

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** A tick the server ran for a connection without its input. */
export interface MissingTick {
  tick: number;
  /** wallNow() when the server ran it. */
  at: number;
}

/** One netcode connection, measured since the mark. */
export interface ConnectionReport {
  networkId: number;
  peer: number;
  /** ServerInputQueue counters since the mark (received, late, missing …). */
  inputs: Record<string, number>;
  /** Input arrival histogram since the mark (bucket i: stored i ticks before its tick ran); null when the library has none. */
  arrivals: number[] | null;
  missingTicks: MissingTick[];
  /** Ticks run in the window while it was in game, and those of them before any input had arrived from it (not counted as `missing`). */
  ticks: number;
  ticksBeforeAnyInput: number;
  /** Snapshot ticks written to this connection since the mark. */
  snapshotTicks: number[];
  out: Traffic;
  in: Traffic;
  /** Unreliable messages the transport dropped under backpressure (null: not counted by this library). */
  unreliableDropped: number | null;
  /** Its player ghost on the server now. */
  player: { x: number; y: number; z: number; jumps: number } | null;
}

/** One raw socket.io client, as the raw server saw it since the mark. */
export interface RawPeerReport {
  client: string;
  /** Payloads received from it / emitted to it since it connected (for loss: compare with the other side's totals). */
  receivedTotal: number;
  sentTotal: number;
  /** The same and their bytes since the mark (for rates). */
  received: number;
  sent: number;
  bytesIn: number;
  bytesOut: number;
}

export interface ServerReport {
  mode: ServerConfig['mode'];
  /** wallNow() of the mark and of this report, in the server process. */
  markAt: number;
  at: number;
  tickRate: number;
  /** Server loop stalls since the mark, and the largest excess over the step (ms). */
  stalls: Gap[];
  maxStallMs: number;
  /** TCP bytes of every socket of the HTTP server since the mark (socket.io and WebSocket framing included). */
  wire: { bytesRead: number; bytesWritten: number };
  /** Warnings and errors the server logged since the mark. */
  warnings: string[];
  connections: ConnectionReport[];
  raw: RawPeerReport[];
  /** Fuzz mode: what the server guard counted (escapes, lost ticks, out-of-bounds values …). */
  fuzz?: ServerTally;
  /** Flood mode: tick times, RSS, pending peers and descriptors over the window. */
  flood?: FloodFigures;
  /** Ccu mode: the process's CPU time and each room's samples over the window. */
  ccu?: CcuFigures;
}

export interface CcuFigures {
  system: CcuSystem;
  /** User + system CPU time of the server process over the window (µs), and the window (ms). */
  cpuMicros: number;
  wallMs: number;
  rooms: RoomSamples[];
  rssBytes: number;
  /** Busy share of the pinned core over the window, every process's (%); null when not pinned. */
  coreBusyPct: number | null;
}
