// The server's send stage: a ServerTransport facade that, while a tick runs,
// queues every message per peer and writes each peer's queue at the end of the
// tick — at most one write per channel per peer per tick (a Batch when a tick
// sends a peer more than one message: its Pongs and its snapshot, say). Outside a
// tick (an RPC sent from an HTTP handler, a kick from a timer) a message is
// written at once. Disconnecting a peer writes what is queued for it first.

import { Outbox } from './outbox.ts';
import type { Channel, PeerId, ServerTransport } from './transport.ts';

export interface OutboxStats {
  /** Transport writes made (one per peer and channel per tick at most, while batching). */
  writes: number;
  /** Messages those writes carried. */
  messages: number;
}

export class ServerOutbox {
  readonly stats: OutboxStats = { writes: 0, messages: 0 };
  private readonly boxes = new Map<PeerId, Outbox>();
  private readonly dirty = new Set<PeerId>();
  private batching = false;

  constructor(private readonly transport: ServerTransport) {}

  /** Start queueing (the tick begins). */
  begin(): void {
    this.batching = true;
  }

  /** Write every queued message and stop queueing (the tick ends). */
  end(): void {
    this.batching = false;
    for (const peer of this.dirty) this.write(peer);
    this.dirty.clear();
  }

  /** Queue (or, outside a tick, write) a copy of `bytes` for `peer`: the caller may reuse its buffer. */
  send(peer: PeerId, bytes: Uint8Array, channel: Channel): void {
    let box = this.boxes.get(peer);
    if (box === undefined) this.boxes.set(peer, (box = new Outbox()));
    box.push(bytes, channel);
    if (this.batching) this.dirty.add(peer);
    else this.write(peer);
  }

  /** Write what is queued for `peer`, then drop it. */
  disconnect(peer: PeerId, reason: string): void {
    this.write(peer);
    this.forget(peer);
    this.transport.disconnect(peer, reason);
  }

  /** The peer is gone: drop its queue. */
  forget(peer: PeerId): void {
    this.boxes.delete(peer);
    this.dirty.delete(peer);
  }

  private writingTo: PeerId = 0;
  private readonly writeOne = (bytes: Uint8Array, channel: Channel, messages: number): void => {
    this.stats.writes++;
    this.stats.messages += messages;
    this.transport.send(this.writingTo, bytes, channel);
  };

  private write(peer: PeerId): void {
    const box = this.boxes.get(peer);
    if (box === undefined || box.size === 0) return;
    this.writingTo = peer;
    box.flush(this.writeOne);
  }
}
