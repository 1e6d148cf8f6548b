// The Transport interface: the only way the engines talk to the network. A
// transport moves opaque binary messages on two channels. Implementations: the
// in-memory loopback (src/transport), socket.io (src/socket-io), and decorators
// such as the LinkConditioner that wrap any of them.

/**
 * `reliable`: ordered, never dropped (TCP-like). `unreliable`: may be lost, duplicated or reordered
 * (UDP-like), but never dropped silently on an idle link: on a reliable transport (socket.io) it is
 * delivered, or dropped — and counted in `stats` — only while the link does not keep up.
 */
export type Channel = 'reliable' | 'unreliable';

/** Counters a transport keeps about what it could not deliver. */
export interface TransportStats {
  /** Unreliable messages dropped by the transport because the link did not keep up (backpressure). */
  unreliableDropped: number;
  /** Which path carries the unreliable channel now (WebRTC transport: 'webrtc' once its data channel is open, else 'socket.io'). */
  unreliablePath?: 'webrtc' | 'socket.io';
  /** The largest message that fits one packet on the unreliable path (WebRTC: 1100 B); larger ones take the reliable path. */
  maxDatagramBytes?: number;
  /** Why the unreliable channel stays on (or fell back to) socket.io, when it does. */
  fallbackReason?: string;
  /** WebRTC: messages received / sent over the data channel (the rest went over socket.io). */
  datagramsIn?: number;
  datagramsOut?: number;
  /** WebRTC: ms from the reliable link opening to the data channel opening, or to the fallback. */
  unreliableSetupMs?: number;
  /** Unreliable messages larger than `maxDatagramBytes` that were sent over the fallback path instead. */
  unreliableOversize?: number;
}

/** Server-side identifier of one transport-level peer (not the netcode networkId). */
export type PeerId = number;

/**
 * Callbacks a client transport reports to. Messages may be Node Buffers from a pool (non-zero byteOffset): read them through their view,
 * never `.buffer` alone.
 */
export interface ClientTransportHandler {
  onOpen(): void;
  onMessage(data: Uint8Array, channel: Channel): void;
  /** The link closed (by either side or by failure). Called at most once per `connect`. */
  onClose(reason: string): void;
  /**
   * Optional: the transport is closing the link for what the server sent (`reason`: a payload that is not binary, a
   * malformed frame). The session ends with closeCode `'protocol-error'` (no resume: the link did not drop, the server
   * speaks something else), as it does on a message that does not decode. `onClose` follows.
   */
  onServerError?(reason: string): void;
  /**
   * Optional: an attempt to open the link failed and the transport tries again (its own retries of a first connect);
   * `reason` says where it tried, why it failed and for how long it keeps trying. The engine logs the first of each
   * `connect()` as a warning, so a wrong URL is told at once rather than when the attempts run out.
   */
  onRetry?(reason: string): void;
}

/** What a `connect` is for: `resume`, an attempt to resume a dropped session (the engine retries it on its own schedule). */
export interface ConnectIntent {
  readonly resume: boolean;
}

export interface ClientTransport {
  /**
   * Open the link; the handler receives everything from now on. Calling it again after close reconnects. With `intent.resume`
   * the engine is resuming a dropped session and retries on its own schedule (`reconnectDelaysMs`): a transport that retries
   * connections of its own tries once (a wrapper passes `intent` on).
   */
  connect(handler: ClientTransportHandler, intent?: ConnectIntent): void;
  /** Send a message. The transport may keep a reference to `data` until sent: pass a buffer you do not reuse. Ignored when not open. */
  send(data: Uint8Array, channel: Channel): void;
  /** Close the link. `onClose` fires with `reason`. */
  close(reason: string): void;
  /** What the transport dropped (optional; socket.io and the conditioner keep it). */
  readonly stats?: TransportStats | undefined;
  /** The largest unreliable message that fits one packet (optional; WebRTC: 1100). */
  readonly maxDatagramBytes?: number | undefined;
  /**
   * Optional: what starts a new session over this transport, said in the reason of a session that could not be
   * resumed (`'lost'`). Default: "call connect() to start a new session"; `seatedTransport`'s: matchmake again.
   */
  readonly newSessionAdvice?: string | undefined;
}

export interface ServerTransportHandler {
  /**
   * Optional, for transports that can refuse a connection before accepting it (socket.io does,
   * in engine.io's `allowRequest`): whether the server takes a new peer now. `opening` = peers
   * this transport admitted that have not reached `onConnect` yet.
   */
  canConnect?(opening: number): boolean;
  onConnect(peer: PeerId): void;
  onMessage(peer: PeerId, data: Uint8Array, channel: Channel): void;
  /** Called at most once per peer. */
  onDisconnect(peer: PeerId, reason: string): void;
  /**
   * Optional: the transport is closing `peer` for what it sent (`reason`: a message over its size limit, a payload that is
   * not binary, a malformed packet); the server logs it, rate-limited, and ends that peer's session for good (no resume
   * grace), as it does on its own protocol errors. `onDisconnect` follows.
   */
  onPeerError?(peer: PeerId, reason: string): void;
}

export interface ServerTransport {
  /** Start accepting peers. */
  listen(handler: ServerTransportHandler): void;
  /** Send to one peer; ignored when the peer is gone. Same buffer ownership rule as the client. */
  send(peer: PeerId, data: Uint8Array, channel: Channel): void;
  /** Drop one peer; its `onDisconnect` fires with `reason`. */
  disconnect(peer: PeerId, reason: string): void;
  /** Stop accepting and drop every peer. */
  close(): void;
  /** What the transport dropped for one peer (optional; undefined for an unknown peer). */
  peerStats?(peer: PeerId): TransportStats | undefined;
  /**
   * The largest unreliable message that fits one packet (optional; WebRTC: 1100): the server's default
   * snapshot budget is capped to it.
   */
  readonly maxDatagramBytes?: number | undefined;
}

/**
 * Time and timers, injected so that the same code runs on a virtual clock in tests
 * and on the real clock in production. `now()` is monotonic milliseconds.
 */
export interface Scheduler {
  now(): number;
  /** Run `fn` once at or after `now() + delayMs`. Tasks due at the same time run in the order they were scheduled. */
  setTimeout(fn: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export type TimerHandle = { readonly __timer: unique symbol } | number | object;
