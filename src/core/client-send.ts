// The client's sending side (stage 5 of a client frame): messages queued while a frame runs leave in
// one transport write per channel at its end (outbox.ts); outside a frame they are written at once.
// The send stage writes the frame's Input packet — which carries the snapshot ack — or a bare ack
// when no tick was predicted, and a Ping when one is due.

import { BitWriter } from './bits.ts';
import type { ClientInput } from './input/client-input.ts';
import type { MessageEncoder } from './messages.ts';
import { Outbox } from './outbox.ts';
import type { Protocol } from './protocol.ts';
import { encodeAck } from './snapshot/index.ts';
import type { Channel, ClientTransport } from './transport.ts';
import { MessageKind } from './wire.ts';

/** Traffic counters since creation: bytes and messages each way (a Batch's parts counted one by one), writes made, snapshots received. */
export interface ClientTraffic {
  bytesIn: number;
  bytesOut: number;
  messagesIn: number;
  messagesOut: number;
  writesOut: number;
  snapshotsIn: number;
  /** Unreliable messages dropped unread: more than 256 waited for one frame (a hidden page, or `update(now)` called too rarely). */
  droppedUnread: number;
}

/**
 * While paused (a hidden page runs no frames, so no send stage), a Ping at most this often, written as the
 * server's messages arrive: the server's `silenceTimeoutMs` (8 s) hears the client is still there.
 */
export const PAUSED_PING_MS = 1000;

export interface SendOptions {
  /** Ping period (default 100 ms). */
  pingIntervalMs?: number | undefined;
  /** The client's clock, read to stamp a Ping as it leaves. */
  now?: (() => number) | undefined;
}

export class ClientSender {
  readonly traffic: ClientTraffic = {
    bytesIn: 0, bytesOut: 0, messagesIn: 0, messagesOut: 0, writesOut: 0, snapshotsIn: 0, droppedUnread: 0,
  };
  /** Inside a frame: sends are queued until `flush`; outside, written at once. */
  framing = false;
  /** A snapshot arrived this frame and no Input packet carried its ack yet. */
  ackDue = false;
  private readonly out = new Outbox();
  private readonly ackWriter = new BitWriter(16);
  private lastPingAt = -Infinity;

  constructor(
    private readonly transport: ClientTransport,
    private readonly encoder: MessageEncoder,
    private readonly options: SendOptions,
  ) {}

  /**
   * Queue a message (inside a frame) or write it at once (outside): at most one write per channel per
   * frame. Its first `length` bytes (all by default) are copied at once: a writer's buffer may be passed.
   */
  send(bytes: Uint8Array, channel: Channel, length = bytes.byteLength): void {
    this.traffic.bytesOut += length;
    this.traffic.messagesOut++;
    this.out.push(bytes, channel, length);
    if (!this.framing) this.flush();
  }

  flush(): void {
    if (this.out.size > 0) this.out.flush(this.write);
  }

  /** Drop what is queued (the link it was for is gone). */
  clear(): void {
    this.out.clear();
    this.ackDue = false;
  }

  /** Stage 5: the frame's Input (with the ack) or a bare ack of `ackTick`/`ackMask`, and a Ping when due, in one write. */
  sendStage<P extends Protocol>(now: number, inputs: ClientInput<P>, ackTick: number, ackMask: number): void {
    if (inputs.committedThisFrame) {
      inputs.sendFrame();
      this.ackDue = false;
    } else if (this.ackDue) {
      const w = this.ackWriter;
      w.reset();
      w.writeBits(MessageKind.SnapshotAck, 8);
      encodeAck(w, ackTick, ackMask);
      this.send(w.buffer(), 'unreliable', w.byteLength);
      this.ackDue = false;
    }
    if (now - this.lastPingAt >= (this.options.pingIntervalMs ?? 100)) {
      this.lastPingAt = now;
      // Stamped as late as possible: the time this write leaves, not the start of the frame.
      const stamp = this.options.now?.() ?? now;
      const w = this.encoder.pingInto(stamp >= now ? stamp : now);
      this.send(w.buffer(), 'unreliable', w.byteLength); // copied into the outbox at once
    }
    this.flush();
  }

  /**
   * A message arrived at `now` while the client is paused: a Ping if the last one is PAUSED_PING_MS old. Driven by
   * arrivals, not a timer: a hidden page's network events run on time where its timers are throttled.
   */
  pausedPing(now: number): void {
    if (now - this.lastPingAt < PAUSED_PING_MS) return;
    this.lastPingAt = now;
    const w = this.encoder.pingInto(now);
    this.send(w.buffer(), 'unreliable', w.byteLength);
  }

  private readonly write = (bytes: Uint8Array, channel: Channel): void => {
    this.traffic.writesOut++;
    this.transport.send(bytes, channel);
  };
}
