// LoopbackNetwork: an in-memory client/server transport pair for tests, the demo's
// offline mode and benchmarks. Nothing moves until the harness calls deliver(), so a
// test decides exactly when each queued event reaches the other side.

import type { Channel, ClientTransport, ClientTransportHandler, PeerId, ServerTransport, ServerTransportHandler } from '../core/transport.ts';
import { NetcodeError } from '../core/errors.ts';

/** One connect() of one client: a fresh PeerId, alive until either side closes it. */
interface Link {
  readonly peer: PeerId;
  readonly handler: ClientTransportHandler;
  /** Closed by either side: nothing new can be sent on it. */
  closed: boolean;
  /**
   * Which side closed: messages it sent before closing are still delivered (a graceful close, like TCP's FIN
   * after data); messages towards it are dropped.
   */
  closedBy: 'client' | 'server' | null;
  /** pending: onConnect not delivered yet; open: the server knows the peer; done: onDisconnect delivered (or never will be). */
  server: 'pending' | 'open' | 'done';
  /** connecting: onOpen not delivered yet; done: onClose delivered. */
  client: 'connecting' | 'open' | 'done';
}

type LoopEvent =
  | { readonly kind: 'connect' | 'open'; readonly link: Link }
  | { readonly kind: 'to-server' | 'to-client'; readonly link: Link; readonly data: Uint8Array; readonly channel: Channel }
  | { readonly kind: 'server-close' | 'client-close'; readonly link: Link; readonly reason: string };

/** Send-side copies are packed into pooled slabs of this size (big messages get their own buffer). */
const SLAB_BYTES = 64 * 1024;
/** First offset used in a slab, so that even the first view has a non-zero byteOffset. */
const SLAB_START = 3;

export interface LoopbackStats {
  /** Messages delivered to a handler. */
  readonly messages: number;
  /** Bytes in those messages. */
  readonly bytes: number;
}

/**
 * An in-memory network: one server, any number of clients. Every event (connect,
 * open, message, remote close) is queued in global send order and handed over by
 * `deliver()`. The side that closes is told synchronously. Closing is graceful, like
 * TCP: what the closing side sent before closing is still delivered, then the other
 * side learns of the close; what was in flight towards the closing side is dropped.
 *
 * Delivered messages are copies taken at send time, packed one after another into a
 * shared pooled ArrayBuffer (like Node's Buffer pool): every view has a non-zero,
 * unaligned byteOffset and other messages' bytes around it, so readers that use
 * `data.buffer` without `byteOffset`/`byteLength` fail loudly in tests. Slabs are
 * never rewritten, so a receiver may keep a view.
 */
export class LoopbackNetwork {
  readonly server: ServerTransport;
  private serverHandler: ServerTransportHandler | null = null;
  private serverState: 'idle' | 'listening' | 'closed' = 'idle';
  private readonly links = new Map<PeerId, Link>();
  private nextPeer: PeerId = 1;
  private queue: LoopEvent[] = [];
  private spare: LoopEvent[] = [];
  private delivering = false;
  private slab = new ArrayBuffer(SLAB_BYTES);
  private slabOffset = SLAB_START;
  private readonly totals = { messages: 0, bytes: 0 };

  constructor() {
    this.server = {
      listen: (handler) => {
        if (this.serverState !== 'idle') throw new NetcodeError('usage', 'react-netcode: LoopbackNetwork.server.listen may be called once; create a new LoopbackNetwork for a new server.');
        this.serverHandler = handler;
        this.serverState = 'listening';
      },
      send: (peer, data, channel) => {
        const link = this.links.get(peer);
        if (link === undefined || link.closed || link.server !== 'open') return;
        this.queue.push({ kind: 'to-client', link, data: this.copy(data), channel });
      },
      disconnect: (peer, reason) => {
        const link = this.links.get(peer);
        if (link === undefined || link.closed || link.server !== 'open') return;
        this.closeFromServer(link, reason);
      },
      close: () => {
        if (this.serverState === 'closed') return;
        this.serverState = 'closed';
        for (const link of [...this.links.values()]) {
          if (link.closed) this.notifyServer(link, 'server closed'); // its onDisconnect was still in flight
          else this.closeFromServer(link, 'server closed');
        }
      },
    };
  }

  /** A new client transport attached to this network. */
  createClient(): ClientTransport {
    let link: Link | null = null;
    return {
      connect: (handler) => {
        if (link !== null && !link.closed) throw new NetcodeError('usage', 'react-netcode: loopback client is already connected; close() it before connecting again.');
        link = { peer: this.nextPeer++, handler, closed: false, closedBy: null, server: 'pending', client: 'connecting' };
        this.links.set(link.peer, link);
        this.queue.push({ kind: 'connect', link }, { kind: 'open', link });
      },
      send: (data, channel) => {
        if (link === null || link.closed || link.client !== 'open') return;
        this.queue.push({ kind: 'to-server', link, data: this.copy(data), channel });
      },
      close: (reason) => {
        if (link === null || link.closed) return;
        link.closed = true;
        link.closedBy = 'client';
        if (link.server === 'open') this.queue.push({ kind: 'server-close', link, reason });
        else this.notifyServer(link, reason); // the server never saw it: nothing to tell
        this.notifyClient(link, reason);
      },
    };
  }

  /** Events waiting for `deliver()`, including messages a close has made void (dropped when reached). */
  get pending(): number {
    return this.queue.length;
  }

  /** Delivered totals. */
  get stats(): LoopbackStats {
    return this.totals;
  }

  /**
   * Hand over, in global send order, every event queued before this call. Events
   * queued by handlers meanwhile wait for the next call. Returns how many events
   * reached a handler (dropped ones are not counted).
   */
  deliver(): number {
    if (this.delivering) throw new NetcodeError('usage', 'react-netcode: LoopbackNetwork.deliver called from inside a handler; call it from the test loop.');
    const batch = this.queue;
    this.queue = this.spare;
    this.delivering = true;
    let delivered = 0;
    let i = 0;
    try {
      while (i < batch.length) if (this.dispatch(batch[i++] as LoopEvent)) delivered++;
    } finally {
      this.delivering = false;
      if (i < batch.length) this.queue = batch.slice(i).concat(this.queue); // a handler threw: keep the rest
      batch.length = 0;
      this.spare = batch;
    }
    return delivered;
  }

  private dispatch(event: LoopEvent): boolean {
    const link = event.link;
    switch (event.kind) {
      case 'connect': {
        if (link.closed) return false;
        const handler = this.serverHandler;
        if (handler === null || this.serverState !== 'listening') {
          link.closed = true;
          this.notifyServer(link, 'refused');
          return this.notifyClient(link, 'react-netcode: loopback server is not listening');
        }
        link.server = 'open';
        handler.onConnect(link.peer);
        return true;
      }
      case 'open':
        if (link.closed) return false;
        link.client = 'open';
        link.handler.onOpen();
        return true;
      case 'to-server':
        if (link.closedBy === 'server' || link.server !== 'open' || this.serverHandler === null) return false;
        this.count(event.data);
        this.serverHandler.onMessage(link.peer, event.data, event.channel);
        return true;
      case 'to-client':
        if (link.closedBy === 'client' || link.client === 'done') return false;
        this.count(event.data);
        link.handler.onMessage(event.data, event.channel);
        return true;
      case 'server-close':
        return this.notifyServer(link, event.reason);
      case 'client-close':
        return this.notifyClient(link, event.reason);
    }
  }

  private closeFromServer(link: Link, reason: string): void {
    link.closed = true;
    link.closedBy = 'server';
    this.queue.push({ kind: 'client-close', link, reason });
    this.notifyServer(link, reason);
  }

  /** Tell the server a peer is gone, at most once, and only if it was told of the peer. */
  private notifyServer(link: Link, reason: string): boolean {
    if (link.server === 'done') return false;
    const known = link.server === 'open';
    link.server = 'done';
    this.links.delete(link.peer);
    if (!known || this.serverHandler === null) return false;
    this.serverHandler.onDisconnect(link.peer, reason);
    return true;
  }

  /** Tell the client its link closed, at most once per connect. */
  private notifyClient(link: Link, reason: string): boolean {
    if (link.client === 'done') return false;
    link.client = 'done';
    link.handler.onClose(reason);
    return true;
  }

  private count(data: Uint8Array): void {
    this.totals.messages++;
    this.totals.bytes += data.byteLength;
  }

  /** Copy `data` into the pooled slab (see the class comment). */
  private copy(data: Uint8Array): Uint8Array {
    const n = data.byteLength;
    if (n > SLAB_BYTES / 4) {
      const own = new Uint8Array(n + SLAB_START);
      own.set(data, SLAB_START);
      return own.subarray(SLAB_START);
    }
    if (this.slabOffset + n > SLAB_BYTES) {
      this.slab = new ArrayBuffer(SLAB_BYTES);
      this.slabOffset = SLAB_START;
    }
    const view = new Uint8Array(this.slab, this.slabOffset, n);
    view.set(data);
    this.slabOffset += n;
    return view;
  }
}
