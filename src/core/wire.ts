// Wire format constants, in one place (docs/architecture.md, house rule 9). Every message starts with
// one byte giving its kind; the rest is a bit stream (LSB first within each byte,
// see bits.ts). Changing anything here changes the protocol hash's VERSION.

/** Bumped whenever the framing below changes; part of the handshake hash. */
export const WIRE_VERSION = 7;

/** First byte of every message. */
export const MessageKind = {
  /**
   * client → server, reliable: u32 protocol hash, u8 wire version, then (only when the version matches)
   * u32 resume token (0 = none), varuint networkId to resume (0 = none), u32 shared-systems fingerprint,
   * string build id (≤ MAX_BUILD_ID_LENGTH, '' = none). A server reads the hash and version first, so a
   * client of another version is refused with a mismatch, not a protocol error.
   */
  Hello: 1,
  /**
   * server → client, reliable: varuint networkId, u32 resume token, u32 server tick, bool resumed, u32 world seed,
   * u32 shared-systems fingerprint, string build id (the server's, for the client's own check).
   */
  Welcome: 2,
  /** server → client, reliable: string reason. The server closes after it. */
  Refuse: 3,
  /** client → server, reliable: the protocol's join payload. */
  Join: 4,
  /** server → client, reliable: join accepted (connection is now in game). */
  Joined: 5,
  /** server → client, reliable: string reason; the connection stays connected and may join again. */
  JoinRefused: 6,
  /** either way, reliable: varuint rpc index, then the RPC's payload. */
  Rpc: 7,
  /** either way, reliable: string reason; the sender closes after it. */
  Close: 8,
  /** server → client, unreliable: one snapshot; body layout in snapshot/format.ts. */
  Snapshot: 9,
  /** client → server, unreliable: u32 newest received snapshot tick + u32 mask of the 32 before it (bit i = tick - 1 - i). */
  SnapshotAck: 10,
  /**
   * client → server, unreliable: u32 newest tick, u8 count (1..32; clients send 4), then the inputs of
   * ticks newest, newest − 1, …: the first as every replicated input field in schema order; each older
   * one as 1 bit "same as the newer input", else per field 1 bit "same" or the field's value; then
   * u32 interpolation tick, u16 interpolation fraction × 65535, u32 snapshot ack tick + u32 ack mask
   * (as SnapshotAck). Codec and limits: input/packet.ts.
   */
  Input: 11,
  /** client → server, unreliable: u32 client time (ms, wrapping). */
  Ping: 12,
  /**
   * server → client, unreliable: u32 echoed client time, u32 server tick, u16 fraction × 65535, i16 input
   * margin × 16 (ticks), then u16 late and u16 missing: this connection's running counts of inputs that
   * arrived after their tick was simulated and of ticks simulated without their input (both mod 2^16).
   */
  Pong: 13,
  /**
   * either way, on the channel of what it carries: everything one frame (client) or one tick (server)
   * sends to one peer on one channel, in one transport write. Repeated to the end: varuint byte length
   * (≥ 1), then one whole message of that length (any kind but Batch). Codec: outbox.ts.
   */
  Batch: 14,
  /**
   * client → room server, reliable, the first message of every link to a room server (src/rooms):
   * string seat token (at most MAX_SEAT_TOKEN_LENGTH) from the matchmaker. The room server routes
   * the link to the seat's room and drops the message, so the engines never see it; a plain server
   * refuses it, saying that it is no room server.
   */
  Seat: 15,
  /**
   * client → server, reliable: bool paused — the app paused the client (setPaused: a hidden page) or it runs again.
   * Sent when that changes, and after each Welcome while paused (a new connection, or a resumed one, starts unpaused).
   * While paused, the ticks the server runs without its input are not counted missing and not warned about.
   */
  Pause: 16,
  /**
   * either way, reliable: a transport's own signalling, never an engine message — the WebRTC
   * transport's offer, answer, refusal or bye (src/webrtc/signal.ts): this kind byte, then UTF-8
   * JSON. The transports that use it take it out of the stream; an engine that receives one (a
   * WebRTC client on a plain socket.io server) ignores it, so the client waits for its data channel,
   * times out and stays on socket.io.
   */
  Signal: 254,
} as const;
export type MessageKind = (typeof MessageKind)[keyof typeof MessageKind];

/**
 * Kinds that travel only on the reliable channel: the server refuses them on the unreliable
 * one (they must arrive once and in order). The unreliable kinds may also travel reliably.
 */
export const RELIABLE_ONLY_KINDS: ReadonlySet<number> = new Set([
  MessageKind.Hello,
  MessageKind.Welcome,
  MessageKind.Refuse,
  MessageKind.Join,
  MessageKind.Joined,
  MessageKind.JoinRefused,
  MessageKind.Rpc,
  MessageKind.Close,
  MessageKind.Seat,
  MessageKind.Pause,
  MessageKind.Signal,
]);

/** Names of the message kinds, for error messages and reports. */
export const MESSAGE_KIND_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(MessageKind).map(([name, kind]) => [kind, name]),
);

/** Largest message accepted on any channel; a bigger one closes the connection. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** Default cap on one RPC payload (bytes), overridable per RPC. */
export const DEFAULT_RPC_MAX_BYTES = 1024;
/** Longest close/refuse reason sent on the wire (UTF-16 code units). */
export const MAX_REASON_LENGTH = 256;
/** Longest seat token in a Seat message (UTF-16 code units). */
export const MAX_SEAT_TOKEN_LENGTH = 128;
/** Longest app build id (`buildId` option) sent in Hello and Welcome (UTF-16 code units). */
export const MAX_BUILD_ID_LENGTH = 64;

// ---------------------------------------------------------------------------
// Codec limits (bits.ts, field.ts, schema.ts). Changing any of these changes the
// encoding of fields, so it changes the wire too.

/** Initial BitWriter capacity in bytes (it grows by doubling). */
export const DEFAULT_WRITER_CAPACITY = 1536;
/** A varuint is at most 5 groups of 7 bits (uint32). */
export const MAX_VARUINT_GROUPS = 5;
/** Bits per smallest-three quaternion component: default and allowed range. */
export const DEFAULT_QUAT_BITS = 12;
export const MIN_QUAT_BITS = 4;
export const MAX_QUAT_BITS = 16;
/** A decoded quaternion whose three small components' squares sum above 1 + this is rejected. */
export const QUAT_SUM_EPSILON = 1e-6;
/** Worst-case UTF-8 bytes per UTF-16 code unit (a surrogate pair is 2 units, 4 bytes). */
export const MAX_UTF8_BYTES_PER_UNIT = 3;

// ---------------------------------------------------------------------------
// Snapshots (snapshot/format.ts documents the message layout). Changing any of
// these changes the snapshot encoding, so it changes the wire too.

/** Default byte budget of one snapshot message (kind byte included): about one MTU. */
export const DEFAULT_SNAPSHOT_BUDGET_BYTES = 1200;
/** Smallest accepted snapshot budget. */
export const MIN_SNAPSHOT_BUDGET_BYTES = 64;
/** Bytes before the bit stream: kind byte + u16 CRC-16/CCITT-FALSE of everything after it. */
export const SNAPSHOT_PREFIX_BYTES = 3;
/**
 * Baseline history per ghost, in sends (not ticks): the server keeps the last N
 * quantized states of each ghost, a client the last N it received; a record may
 * only name a baseline still among them (older → encoded against the type's defaults).
 */
export const SNAPSHOT_GHOST_HISTORY = 33;
/**
 * Widths of the prefix-coded unsigned integers used throughout a snapshot (ids,
 * counts, baseline ages, zigzag deltas): bucket i is i one-bits, then (below the
 * last bucket) a zero bit, then SNAPSHOT_CODE_WIDTHS[i] bits of (value − start of bucket i).
 * 0 costs 1 bit, 1..4 cost 4, 5..20 cost 7, 21..148 cost 11, ...
 */
export const SNAPSHOT_CODE_WIDTHS: readonly number[] = [0, 2, 4, 7, 10, 14, 20, 32];
