// The server's arrival stage: what the transport reports between ticks (connects,
// messages, disconnects) is queued here for the next tick's receive stage — after the
// per-peer limits (peer-limits.ts) had their say, so a flood is dropped as it arrives
// and never grows the queue. A peer refused at connect gets a Refuse and is dropped.

import type { Channel, PeerId, ServerTransportHandler } from './transport.ts';
import { PeerLimits, type PeerLimitOptions } from './peer-limits.ts';

export type Inbound =
  | { kind: 'connect'; peer: PeerId }
  | { kind: 'message'; peer: PeerId; data: Uint8Array; channel: Channel }
  | { kind: 'disconnect'; peer: PeerId; reason: string }
  /** The peer stayed over its message or byte rate past the grace: close it. */
  | { kind: 'limit'; peer: PeerId }
  /** The transport is closing the peer for what it sent (its `onDisconnect` follows): its session ends, no resume. */
  | { kind: 'violation'; peer: PeerId; reason: string };

export interface InboxHooks {
  /** Monotonic ms (the server's clock). */
  now(): number;
  /** Peers awaiting Hello (connected, not queued). */
  pendingPeers(): number;
  /** Tell a peer why and drop it (before the server knows it). */
  refuse(peer: PeerId, reason: string): void;
  /** A message of `peer` was dropped by the limits (count it on its connection). */
  dropped(peer: PeerId, bytes: number): void;
  /** The transport asked whether to take a new connection and was told no (it turns it away, e.g. HTTP 403): the server logs it. */
  turnedAway(reason: string): void;
  /** The transport is closing `peer` for what it sent: the server logs it. */
  peerError(peer: PeerId, reason: string): void;
}

export class ServerInbox {
  private events: Inbound[] = [];
  private queuedConnects = 0;
  readonly limits: PeerLimits;

  constructor(
    options: PeerLimitOptions,
    private readonly hooks: InboxHooks,
  ) {
    this.limits = new PeerLimits(options, hooks.now());
  }

  /** What the transport calls (NetServer passes it to `transport.listen`). */
  readonly handler: ServerTransportHandler = {
    canConnect: (opening) => {
      const ok = this.limits.canConnect(this.hooks.pendingPeers() + this.queuedConnects, opening, this.hooks.now());
      if (!ok) {
        this.limits.totals.refusedPeers++; // turned away before it connects: counted here, as onConnect's refusals are
        this.hooks.turnedAway(this.busy());
      }
      return ok;
    },
    onConnect: (peer) => {
      if (!this.limits.connect(this.hooks.pendingPeers() + this.queuedConnects, this.hooks.now())) {
        this.hooks.refuse(peer, this.busy());
        return;
      }
      this.queuedConnects++;
      this.events.push({ kind: 'connect', peer });
    },
    onMessage: (peer, data, channel) => {
      const verdict = this.limits.admit(peer, data, this.hooks.now());
      if (verdict === 'ok') this.events.push({ kind: 'message', peer, data, channel });
      else {
        this.hooks.dropped(peer, data.byteLength);
        if (verdict === 'close') this.events.push({ kind: 'limit', peer });
      }
    },
    onDisconnect: (peer, reason) => this.events.push({ kind: 'disconnect', peer, reason }),
    onPeerError: (peer, reason) => {
      this.hooks.peerError(peer, reason);
      this.events.push({ kind: 'violation', peer, reason });
    },
  };

  private busy(): string {
    const o = this.limits.options;
    return (
      `react-netcode: the server is busy (more than ${o.maxPending} handshakes pending or ${o.handshakesPerSecond} new connections a second); try again shortly ` +
      '(the server options maxPendingPeers and maxHandshakesPerSecond set these limits).'
    );
  }

  /** Everything queued since the last call, in arrival order (handlers may queue more meanwhile: they wait for the next call). */
  take(): Inbound[] {
    const batch = this.events;
    this.events = [];
    this.queuedConnects = 0;
    return batch;
  }
}
