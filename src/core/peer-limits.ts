// What one peer may cost the server: messages and bytes per second, counted when the
// transport delivers them (before anything is queued, so a flood never grows the
// inbox), with token buckets that hold one second's worth. Excess is dropped and
// counted; a peer still over its limit after `persistMs` is closed. Also the admission
// of new peers: at most `maxPending` awaiting their Hello and `handshakesPerSecond`.

import type { PeerId } from './transport.ts';
import { MessageKind } from './wire.ts';

export interface PeerLimitOptions {
  messagesPerSecond: number;
  bytesPerSecond: number;
  /** A peer dropping messages at least once a second for this long is closed. */
  persistMs: number;
  maxPending: number;
  handshakesPerSecond: number;
}

/** Defaults far above what a real client sends (a 240 Hz client: ~250 messages and ~30 KB a second). */
export const DEFAULT_PEER_LIMITS: PeerLimitOptions = {
  messagesPerSecond: 1000,
  bytesPerSecond: 256 * 1024,
  persistMs: 2000,
  maxPending: 64,
  handshakesPerSecond: 100,
};

export type Admission = 'ok' | 'drop' | 'close';

/** Per-peer counters, readable as `server.limitStats(connection)`. */
export interface PeerLimitStats {
  /** Messages dropped because the peer was over its message or byte rate. */
  droppedMessages: number;
  droppedBytes: number;
}

class Budget implements PeerLimitStats {
  droppedMessages = 0;
  droppedBytes = 0;
  overSince = -1;
  lastDropAt = -Infinity;
  closing = false;
  constructor(
    public messages: number,
    public bytes: number,
    public at: number,
  ) {}
}

/** A token bucket holding `rate` tokens at most (one second), refilled continuously. */
class Bucket {
  tokens: number;
  at: number;
  constructor(
    private readonly rate: number,
    now: number,
  ) {
    this.tokens = rate;
    this.at = now;
  }
  refill(now: number): number {
    if (now > this.at) this.tokens = Math.min(this.rate, this.tokens + ((now - this.at) * this.rate) / 1000);
    this.at = now;
    return this.tokens;
  }
}

/** Messages a transport message carries: 1, or a Batch's entries (counted leniently; the decoder rejects a malformed Batch later). */
export function messageCount(data: Uint8Array): number {
  if (data.byteLength === 0 || data[0] !== MessageKind.Batch) return 1;
  let n = 0;
  for (let pos = 1; pos < data.byteLength; n++) {
    let length = 0;
    let mul = 1;
    for (let i = 0; i < 5 && pos < data.byteLength; i++, mul *= 128) {
      const byte = data[pos++]!;
      length += (byte & 0x7f) * mul;
      if (byte < 0x80) break;
    }
    pos += Math.max(1, length);
  }
  return Math.max(1, n);
}

export class PeerLimits {
  private readonly budgets = new Map<PeerId, Budget>();
  private readonly handshakes: Bucket;
  /** Totals over every peer. */
  readonly totals = { droppedMessages: 0, droppedBytes: 0, refusedPeers: 0, closedPeers: 0 };

  constructor(
    readonly options: PeerLimitOptions,
    now: number,
  ) {
    this.handshakes = new Bucket(options.handshakesPerSecond, now);
  }

  /** Charge one transport message of `peer`; 'drop' when over a limit, 'close' (once) when that persisted. */
  admit(peer: PeerId, data: Uint8Array, now: number): Admission {
    const o = this.options;
    let b = this.budgets.get(peer);
    if (b === undefined) this.budgets.set(peer, (b = new Budget(o.messagesPerSecond, o.bytesPerSecond, now)));
    if (b.closing) return 'drop';
    if (now > b.at) {
      const s = (now - b.at) / 1000;
      b.messages = Math.min(o.messagesPerSecond, b.messages + s * o.messagesPerSecond);
      b.bytes = Math.min(o.bytesPerSecond, b.bytes + s * o.bytesPerSecond);
      b.at = now;
    }
    const n = messageCount(data);
    if (b.messages >= n && b.bytes >= data.byteLength) {
      b.messages -= n;
      b.bytes -= data.byteLength;
      return 'ok';
    }
    b.droppedMessages += n;
    b.droppedBytes += data.byteLength;
    this.totals.droppedMessages += n;
    this.totals.droppedBytes += data.byteLength;
    if (now - b.lastDropAt > 1000) b.overSince = now; // a new episode: the last drop was over a second ago
    b.lastDropAt = now;
    if (now - b.overSince < o.persistMs) return 'drop';
    b.closing = true;
    this.totals.closedPeers++;
    return 'close';
  }

  /**
   * Whether a new peer may start a handshake now, with `pending` peers awaiting Hello and `opening` more admitted but not
   * yet connected. Consumes nothing.
   */
  canConnect(pending: number, opening: number, now: number): boolean {
    return pending + opening < this.options.maxPending && this.handshakes.refill(now) >= 1 + opening;
  }

  /** A peer connected: take a handshake token; false (refuse it) when over the pending cap or the rate. */
  connect(pending: number, now: number): boolean {
    if (pending >= this.options.maxPending || this.handshakes.refill(now) < 1) {
      this.totals.refusedPeers++;
      return false;
    }
    this.handshakes.tokens -= 1;
    return true;
  }

  stats(peer: PeerId): PeerLimitStats | undefined {
    return this.budgets.get(peer);
  }

  forget(peer: PeerId): void {
    this.budgets.delete(peer);
  }
}
