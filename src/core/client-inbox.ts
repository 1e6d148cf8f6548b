// What the client's transport reported since the last frame, in order, for the session's next
// `receive` (client-session.ts): the link's open, its messages (each timestamped at its arrival),
// a protocol error the transport found in what the server sent, and its close. Unreliable messages
// that pile up (no frames) are dropped unread past a cap.

import type { Channel } from './transport.ts';

/** What the transport reported, in order; `at` is the arrival time on the client's clock (NaN: unknown). */
export type Inbound =
  | { kind: 'open' }
  | { kind: 'message'; data: Uint8Array; channel: Channel; at: number }
  | { kind: 'close'; reason: string; at: number }
  /** The transport is closing the link for what the server sent (ClientTransportHandler.onServerError). */
  | { kind: 'server-error'; reason: string };

/**
 * Most unreliable messages (snapshots, Pongs) that wait for the next `receive`: about 4 s of a
 * 60 Hz snapshot stream and its Pongs, 8 s at 20 Hz, far beyond any frame a player sits through. A hidden page
 * (no animation frames) or an app that calls `update(now)` rarely would otherwise keep every
 * snapshot of minutes and decode them all in one frame; the oldest are dropped unread instead
 * (as if lost: nothing acks them), counted in `traffic.droppedUnread`. Reliable messages all wait.
 */
export const MAX_QUEUED_UNRELIABLE = 256;

export class ClientInbox {
  private events: Inbound[] = [];
  /** Unreliable messages in `events`. */
  private queuedUnreliable = 0;

  /** `dropped(count, at)`: `count` unreliable messages were dropped unread, the last arriving at `at`. */
  constructor(private readonly dropped: (count: number, at: number) => void) {}

  /** Events waiting for the next frame. */
  get size(): number {
    return this.events.length;
  }

  push(event: Inbound): void {
    this.events.push(event);
  }

  /** A message; past MAX_QUEUED_UNRELIABLE unreliable ones, the oldest half of them goes. */
  message(data: Uint8Array, channel: Channel, at: number): void {
    this.events.push({ kind: 'message', data, channel, at });
    if (channel !== 'unreliable' || ++this.queuedUnreliable <= MAX_QUEUED_UNRELIABLE) return;
    let drop = this.queuedUnreliable - MAX_QUEUED_UNRELIABLE / 2;
    this.queuedUnreliable -= drop;
    this.dropped(drop, at);
    this.events = this.events.filter((e) => !(e.kind === 'message' && e.channel === 'unreliable' && drop-- > 0));
  }

  /** What waited, in order; the inbox is empty after. */
  take(): Inbound[] {
    const batch = this.events;
    this.clear();
    return batch;
  }

  clear(): void {
    this.events = [];
    this.queuedUnreliable = 0;
  }
}
