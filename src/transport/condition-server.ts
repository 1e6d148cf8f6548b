// conditionServer: the server-side counterpart of conditionClient. It wraps any
// ServerTransport (socket.io, the loopback) so that every peer's link gets its own
// pair of seeded LinkConditioners: what a peer sends is delayed / lost before the
// server engine sees it (`up`), what the server sends it before the inner
// transport writes it (`down`). A latency on the server then applies to every
// client, whatever page or process it runs in.

import { NetcodeError } from '../core/errors.ts';
import { deriveSeed } from '../core/rng.ts';
import type { Channel, PeerId, Scheduler, ServerTransport, ServerTransportHandler, TransportStats } from '../core/transport.ts';
import { LinkConditioner, type LinkOptions } from './conditioner.ts';
import { DelayLine } from './delay-line.ts';

/** The conditions of one peer's link: `up` = client → server, `down` = server → client. */
export interface PeerLinkOptions {
  up?: LinkOptions;
  down?: LinkOptions;
}

export interface ServerConditionerOptions extends PeerLinkOptions {
  /** Each peer's conditioners are seeded from this seed and the PeerId. */
  seed: number;
  /**
   * Conditions of one peer, asked once when it connects; a direction it leaves out (or
   * `undefined` for the whole peer) takes `up` / `down`.
   */
  forPeer?: (peer: PeerId) => PeerLinkOptions | undefined;
}

export interface ConditionedServerTransport extends ServerTransport {
  /**
   * Live change: with `peer`, that peer's link only; without, the defaults for peers
   * that connect later and every connected peer's link. An omitted direction is left as is.
   */
  setOptions(options: PeerLinkOptions, peer?: PeerId): void;
  /** The conditioners of a connected peer (their `stats`), undefined for an unknown peer. */
  link(peer: PeerId): { readonly up: LinkConditioner; readonly down: LinkConditioner } | undefined;
}

/**
 * open: both ways; closing: the server disconnected it (reported), what it sent still
 * arrives, then the inner link is closed; leaving: the peer went away, what it sent
 * still arrives, then the server is told.
 */
interface Peer {
  state: 'open' | 'closing' | 'leaving';
  readonly up: LinkConditioner;
  readonly down: LinkConditioner;
  readonly upLine: DelayLine;
  readonly downLine: DelayLine;
}

/**
 * Wrap a server transport. Channel semantics are those of `conditionClient`: reliable
 * packets are delayed in order and never dropped, unreliable ones may be lost,
 * duplicated or reordered as the options say. onConnect passes straight through.
 * Closing is graceful, as on the loopback and TCP: after `disconnect(peer)` (or `close()`)
 * the server is told at once, what it sent before still reaches the peer, then the inner
 * transport closes the link; when a peer goes away, what it sent before still reaches
 * the server, then `onDisconnect` follows.
 */
export function conditionServer(
  inner: ServerTransport,
  options: ServerConditionerOptions,
  scheduler: Scheduler,
): ConditionedServerTransport {
  return new ConditionedServer(inner, options, scheduler);
}

class ConditionedServer implements ConditionedServerTransport {
  private readonly defaults: { up: LinkOptions; down: LinkOptions };
  private readonly peers = new Map<PeerId, Peer>();
  private handler: ServerTransportHandler | null = null;
  private closed = false;
  private innerClosed = false;

  constructor(
    private readonly inner: ServerTransport,
    private readonly options: ServerConditionerOptions,
    private readonly scheduler: Scheduler,
  ) {
    this.defaults = { up: options.up ?? {}, down: options.down ?? {} };
    new LinkConditioner(this.defaults.up, 0); // validate now: a bad option fails at the call, not at the first connection
    new LinkConditioner(this.defaults.down, 0);
  }

  listen(next: ServerTransportHandler): void {
    if (this.handler !== null) throw new NetcodeError('usage', 'react-netcode: listen() called twice on a conditioned server transport; give each server its own transport.');
    if (this.closed) throw new NetcodeError('usage', 'react-netcode: listen() after close(); create a new transport.');
    this.handler = next;
    this.inner.listen({
      onConnect: (id) => this.onConnect(id, next),
      onMessage: (id, data, channel) => {
        const p = this.peers.get(id);
        if (p === undefined || p.state !== 'open') return;
        const times = p.up.schedule(this.scheduler.now(), channel);
        for (let i = 0; i < times.length; i++) p.upLine.push(times[i] as number, i === 0 ? data : data.slice(), channel);
      },
      onDisconnect: (id, reason) => this.onInnerDisconnect(id, reason, next),
      ...(next.onPeerError ? { onPeerError: (id: PeerId, reason: string) => next.onPeerError!(id, reason) } : {}),
    });
  }

  private onConnect(id: PeerId, h: ServerTransportHandler): void {
    if (this.closed) {
      this.inner.disconnect(id, 'server closed');
      return;
    }
    const own = this.options.forPeer?.(id);
    const peer: Peer = {
      state: 'open',
      up: new LinkConditioner(own?.up ?? this.defaults.up, deriveSeed(this.options.seed, 3, id)),
      down: new LinkConditioner(own?.down ?? this.defaults.down, deriveSeed(this.options.seed, 4, id)),
      upLine: new DelayLine(this.scheduler, (data, channel) => {
        const p = this.peers.get(id);
        if (p !== undefined && p.state !== 'closing') h.onMessage(id, data, channel);
      }),
      downLine: new DelayLine(this.scheduler, (data, channel) => {
        if (this.peers.get(id)?.state !== 'leaving') this.inner.send(id, data, channel);
      }),
    };
    this.peers.set(id, peer);
    h.onConnect(id);
  }

  private onInnerDisconnect(id: PeerId, reason: string, h: ServerTransportHandler): void {
    const p = this.peers.get(id);
    if (p === undefined || p.state === 'leaving') return;
    p.downLine.cancel(); // nothing more can reach it
    if (p.state === 'closing') {
      this.peers.delete(id); // we closed it and have reported it already
      p.upLine.cancel();
      this.closeInnerWhenDrained();
      return;
    }
    p.state = 'leaving';
    p.upLine.drain(() => {
      if (this.peers.get(id) !== p) return;
      this.peers.delete(id);
      h.onDisconnect(id, reason);
    });
  }

  /** After close(): the inner transport closes once every peer's link has drained and closed. */
  private closeInnerWhenDrained(): void {
    if (!this.closed || this.innerClosed || this.peers.size > 0) return;
    this.innerClosed = true;
    this.inner.close();
  }

  send(id: PeerId, data: Uint8Array, channel: Channel): void {
    const p = this.peers.get(id);
    if (p === undefined || p.state !== 'open') return;
    const times = p.down.schedule(this.scheduler.now(), channel);
    if (times.length === 0) return;
    // Held as it is until its time: the transport contract lets a transport keep `data` (the caller does not reuse it).
    for (const at of times) p.downLine.push(at, data, channel);
  }

  disconnect(id: PeerId, reason: string): void {
    const p = this.peers.get(id);
    if (p === undefined || p.state === 'closing') return;
    p.upLine.cancel(); // the server stops hearing it at once, as with the inner transport
    if (p.state === 'leaving') {
      this.peers.delete(id); // already gone underneath: the server learns it now, with its own reason
      p.downLine.cancel();
    } else {
      p.state = 'closing';
      p.downLine.drain(() => {
        if (this.peers.get(id) === p) this.inner.disconnect(id, reason); // its onDisconnect forgets the peer
      });
    }
    this.handler?.onDisconnect(id, reason);
    this.closeInnerWhenDrained();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id, p] of [...this.peers]) if (p.state !== 'closing') this.disconnect(id, 'server closed');
    this.closeInnerWhenDrained();
  }

  setOptions(next: PeerLinkOptions, id?: PeerId): void {
    if (id !== undefined) {
      const p = this.peers.get(id);
      if (next.up !== undefined) p?.up.setOptions(next.up);
      if (next.down !== undefined) p?.down.setOptions(next.down);
      return;
    }
    if (next.up !== undefined) this.defaults.up = next.up;
    if (next.down !== undefined) this.defaults.down = next.down;
    for (const p of this.peers.values()) {
      if (next.up !== undefined) p.up.setOptions(next.up);
      if (next.down !== undefined) p.down.setOptions(next.down);
    }
  }

  link(id: PeerId): { readonly up: LinkConditioner; readonly down: LinkConditioner } | undefined {
    const p = this.peers.get(id);
    return p === undefined ? undefined : { up: p.up, down: p.down };
  }

  peerStats(id: PeerId): TransportStats | undefined {
    return this.inner.peerStats?.(id);
  }

  /** The inner transport's datagram size (WebRTC: the server's snapshot budget follows it). */
  get maxDatagramBytes(): number | undefined {
    return this.inner.maxDatagramBytes;
  }
}
