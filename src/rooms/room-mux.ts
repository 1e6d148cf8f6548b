// The multiplexed transport: one real ServerTransport (one socket.io server, one port) shared by
// every room of a process. A new link is held until its first message, the Seat (seat.ts); the
// gate turns the seat into a room, and from then on the link's messages go to that room's
// RoomTransport — a ServerTransport of its own, which the room's NetServer listens on.
// Links without a valid seat are told why (a Refuse) and dropped: the limits on links that have
// not reached a room (how many at once, how long, what they may send) live here.

import { BitReader } from '../core/bits.ts';
import { MessageEncoder } from '../core/messages.ts';
import { LINGER_MS } from '../core/server-sessions.ts';
import type { Channel, PeerId, ServerTransport, ServerTransportHandler, TransportStats } from '../core/transport.ts';
import { MessageKind } from '../core/wire.ts';
import type { MaybePromise } from './directory.ts';
import { decodeSeat } from './seat.ts';

/** Where the mux routes a link once its seat named a room. */
export interface RoomLink {
  connect(peer: PeerId): void;
  deliver(peer: PeerId, data: Uint8Array, channel: Channel): void;
  lost(peer: PeerId, reason: string): void;
  /** The transport is closing `peer` for what it sent (`lost` follows): the room's server ends its session (no resume) and logs it. */
  violation(peer: PeerId, reason: string): void;
}

/** One room's view of the shared transport: only its own peers, told about by the mux. */
export class RoomTransport implements ServerTransport, RoomLink {
  private handler: ServerTransportHandler | null = null;
  readonly peers = new Set<PeerId>();

  constructor(private readonly real: ServerTransport) {}

  listen(handler: ServerTransportHandler): void {
    this.handler = handler;
  }

  send(peer: PeerId, data: Uint8Array, channel: Channel): void {
    if (this.peers.has(peer)) this.real.send(peer, data, channel);
  }

  disconnect(peer: PeerId, reason: string): void {
    if (this.peers.has(peer)) this.real.disconnect(peer, reason);
  }

  close(): void {
    for (const peer of [...this.peers]) this.real.disconnect(peer, 'react-netcode: the room was closed; matchmake again to play on.');
    this.handler = null;
  }

  peerStats(peer: PeerId): TransportStats | undefined {
    return this.peers.has(peer) ? this.real.peerStats?.(peer) : undefined;
  }

  /** The mux routed `peer` here. */
  connect(peer: PeerId): void {
    this.peers.add(peer);
    this.handler?.onConnect(peer);
  }

  deliver(peer: PeerId, data: Uint8Array, channel: Channel): void {
    this.handler?.onMessage(peer, data, channel);
  }

  lost(peer: PeerId, reason: string): void {
    if (this.peers.delete(peer)) this.handler?.onDisconnect(peer, reason);
  }

  violation(peer: PeerId, reason: string): void {
    if (this.peers.has(peer)) this.handler?.onPeerError?.(peer, reason);
  }
}

/** What a seat turns into: the room to route the link to, or the reason to refuse it. */
export type SeatVerdict = { readonly room: RoomLink } | { readonly refuse: string };

export interface SeatGate {
  /** A link presented `token`. */
  admit(token: string, peer: PeerId): MaybePromise<SeatVerdict>;
  /** A link that was routed with `token` is gone. */
  gone(token: string, peer: PeerId): void;
}

export interface RoomMuxOptions {
  /** Monotonic ms. */
  now(): number;
  /** A link that has not presented a seat after this long is refused (default 10,000 ms). */
  seatTimeoutMs: number;
  /** Links at once that have not reached a room; more are turned away (default 64). */
  maxPendingPeers: number;
  /** The transport closed a link that has not reached a room for what it sent (an oversize or malformed message): to be logged. */
  peerError?: (peer: PeerId, reason: string) => void;
}

/** Messages a link may send after its Seat while the seat is being looked up (the Hello, a Join, pings). */
const MAX_QUEUED = 16;

const NO_SEAT =
  'react-netcode: this server runs rooms: the first message must be a seat. Get one from the matchmaker ' +
  '(joinOrCreate, create, join) and connect with seatedTransport(transport, seat).';

interface Pending {
  readonly since: number;
  /** Messages after the Seat, while it is looked up (null until the Seat came). */
  queue: Array<readonly [Uint8Array, Channel]> | null;
  token: string | undefined;
}

export class RoomMux {
  private readonly routed = new Map<PeerId, { readonly room: RoomLink; readonly token: string }>();
  private readonly pending = new Map<PeerId, Pending>();
  private readonly refusing = new Map<PeerId, number>();
  private readonly encoder = new MessageEncoder();
  private readonly reader = new BitReader();
  /** Links refused (no seat, bad seat, timeout, too many at once). */
  refused = 0;

  constructor(
    private readonly real: ServerTransport,
    private readonly gate: SeatGate,
    private readonly options: RoomMuxOptions,
  ) {}

  get pendingPeers(): number {
    return this.pending.size;
  }

  get routedPeers(): number {
    return this.routed.size;
  }

  listen(): void {
    this.real.listen(this.handler);
  }

  close(): void {
    this.real.close();
  }

  private readonly handler: ServerTransportHandler = {
    canConnect: (opening) => this.pending.size + opening < this.options.maxPendingPeers,
    onConnect: (peer) => {
      if (this.pending.size >= this.options.maxPendingPeers) return this.refuse(peer, 'react-netcode: the server is busy (too many links waiting for their seat); try again shortly.');
      this.pending.set(peer, { since: this.options.now(), queue: null, token: undefined });
    },
    onMessage: (peer, data, channel) => {
      const routed = this.routed.get(peer);
      if (routed !== undefined) return routed.room.deliver(peer, data, channel);
      const p = this.pending.get(peer);
      if (p === undefined) return; // refused, or unknown
      if (p.queue !== null) {
        if (p.queue.length >= MAX_QUEUED) return this.refuse(peer, 'react-netcode: too many messages before the seat was checked; reconnect.');
        p.queue.push([data, channel]);
        return;
      }
      const token = channel === 'reliable' ? decodeSeat(data, this.reader) : undefined;
      if (token === undefined) return this.refuse(peer, NO_SEAT);
      p.queue = [];
      p.token = token;
      const verdict = this.gate.admit(token, peer);
      if (!(verdict instanceof Promise)) return this.settle(peer, token, verdict);
      verdict.then(
        (v) => this.settle(peer, token, v),
        () => this.settle(peer, token, { refuse: 'react-netcode: the room directory could not be reached to check this seat; retry in a moment.' }),
      );
    },
    onPeerError: (peer, reason) => {
      const routed = this.routed.get(peer);
      if (routed !== undefined) routed.room.violation(peer, reason); // its room's server logs it and ends the session
      else this.options.peerError?.(peer, reason);
    },
    onDisconnect: (peer, reason) => {
      this.pending.delete(peer);
      this.refusing.delete(peer);
      const routed = this.routed.get(peer);
      if (routed === undefined) return;
      this.routed.delete(peer);
      routed.room.lost(peer, reason);
      this.gate.gone(routed.token, peer);
    },
  };

  private settle(peer: PeerId, token: string, verdict: SeatVerdict): void {
    const p = this.pending.get(peer);
    if (p === undefined) {
      if ('room' in verdict) this.gate.gone(token, peer); // the link went away while its seat was looked up
      return;
    }
    this.pending.delete(peer);
    if ('refuse' in verdict) return this.refuse(peer, verdict.refuse);
    this.routed.set(peer, { room: verdict.room, token });
    verdict.room.connect(peer);
    for (const [data, channel] of p.queue ?? []) verdict.room.deliver(peer, data, channel);
  }

  /**
   * Take a routed link away from its room (whose thread is gone, or which is closing): tell it
   * `reason` (a Close, the client's close reason) and drop it after a linger.
   */
  evict(peer: PeerId, reason: string): void {
    const routed = this.routed.get(peer);
    if (routed === undefined) return;
    this.routed.delete(peer);
    this.gate.gone(routed.token, peer);
    this.real.send(peer, this.encoder.reason(MessageKind.Close, reason), 'reliable');
    this.refusing.set(peer, this.options.now() + LINGER_MS);
  }

  /** Tell the link why (a Refuse, which the client engine reports as its close reason), drop it after a linger. */
  private refuse(peer: PeerId, reason: string): void {
    this.pending.delete(peer);
    this.refused++;
    this.real.send(peer, this.encoder.reason(MessageKind.Refuse, reason), 'reliable');
    this.refusing.set(peer, this.options.now() + LINGER_MS);
  }

  tokenOf(peer: PeerId): string | undefined {
    return this.routed.get(peer)?.token ?? this.pending.get(peer)?.token;
  }

  /** Timeouts: links without a seat in time, refused links past their linger. */
  expire(now: number): void {
    for (const [peer, p] of this.pending) {
      if (p.queue === null && now - p.since >= this.options.seatTimeoutMs) this.refuse(peer, `react-netcode: no seat within ${this.options.seatTimeoutMs} ms; connect with seatedTransport(transport, seat).`);
    }
    for (const [peer, until] of this.refusing) {
      if (now < until) continue;
      this.refusing.delete(peer);
      this.real.disconnect(peer, 'refused');
    }
  }
}
