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

/** One peer's queue, and whether the tick's end already has it to write. */
interface Queue {
  readonly box: Outbox;
  listed: boolean;
}

export class ServerOutbox {
  readonly stats: OutboxStats = { writes: 0, messages: 0 };
  private readonly boxes = new Map<PeerId, Queue>();
  /** Peers with messages queued this tick, in order (an array kept across ticks: a Set's clear() reallocates its table). */
  private readonly dirty: PeerId[] = [];
  private dirtyCount = 0;
  private batching = false;

  constructor(private readonly transport: ServerTransport) {}

  /** Start queueing (the tick begins). */
  begin(): void {
    this.batching = true;
  }

  /** Write every queued message and stop queueing (the tick ends). */
  end(): void {
    this.batching = false;
    for (let i = 0; i < this.dirtyCount; i++) this.write(this.dirty[i]!);
    this.dirtyCount = 0;
  }

  /** Queue (or, outside a tick, write) a copy of the first `length` bytes of `bytes` for `peer`: the caller may reuse its buffer. */
  send(peer: PeerId, bytes: Uint8Array, channel: Channel, length = bytes.byteLength): void {
    let queue = this.boxes.get(peer);
    if (queue === undefined) this.boxes.set(peer, (queue = { box: new Outbox(), listed: false }));
    queue.box.push(bytes, channel, length);
    if (!this.batching) this.write(peer);
    else if (!queue.listed) {
      queue.listed = true;
      this.dirty[this.dirtyCount++] = peer;
    }
  }

  /** Write what is queued for `peer`, then drop it. */
  disconnect(peer: PeerId, reason: string): void {
    this.write(peer);
    this.forget(peer);
    this.transport.disconnect(peer, reason);
  }

  /** The peer is gone: drop its queue. */
  forget(peer: PeerId): void {
    this.boxes.delete(peer); // a listed peer's write at the tick's end then finds no box
  }

  private writingTo: PeerId = 0;
  private readonly writeOne = (bytes: Uint8Array, channel: Channel, messages: number): void => {
    this.stats.writes++;
    this.stats.messages += messages;
    this.transport.send(this.writingTo, bytes, channel);
  };

  private write(peer: PeerId): void {
    const queue = this.boxes.get(peer);
    if (queue === undefined) return;
    queue.listed = false;
    if (queue.box.size === 0) return;
    this.writingTo = peer;
    queue.box.flush(this.writeOne);
  }
}
