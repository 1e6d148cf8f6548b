// LinkConditioner: seeded simulation of a bad network (latency, jitter, loss,
// duplication, reordering, TCP-style retransmits) and `conditionClient`, the
// decorator that applies it to any ClientTransport on a virtual or real clock.

import type { Channel, ClientTransport, Scheduler } from '../core/transport.ts';
import { NetcodeError } from '../core/errors.ts';
import { Rng, deriveSeed } from '../core/rng.ts';
import { DelayLine } from './delay-line.ts';

/** Conditions of one direction of a link. */
export interface LinkOptions {
  /** One-way base delay in ms. Default 0. */
  latencyMs?: number;
  /** Delay = latency + uniform(-jitter, +jitter), never below 0. Default 0. */
  jitterMs?: number;
  /**
   * 0..1. Unreliable: dropped. Reliable: delayed by `retransmitMs` per lost attempt, and every later reliable
   * packet waits behind it (head-of-line blocking).
   */
  loss?: number;
  /** 0..1, unreliable only: a second copy with its own independent delay. */
  duplicate?: number;
  /** 0..1, unreliable only: held back an extra `reorderDelayMs` so later packets overtake it. */
  reorder?: number;
  /** Default max(20, 2 * jitterMs). */
  reorderDelayMs?: number;
  /** Reliable retransmit delay after a loss. Default max(200, 2 * latencyMs + 4 * jitterMs). */
  retransmitMs?: number;
}

export interface LinkStats {
  /** Packets passed to `schedule`. */
  readonly sent: number;
  /** Unreliable packets lost. */
  readonly dropped: number;
  /** Unreliable packets delivered twice. */
  readonly duplicated: number;
  /** Unreliable packets held back to be overtaken. */
  readonly reordered: number;
  /** Reliable retransmissions (one lost reliable packet may be retransmitted more than once). */
  readonly retransmitted: number;
}

/** A reliable packet is retransmitted at most this many times (so loss = 1 still terminates). */
const MAX_RETRANSMITS = 8;

/**
 * Decides when (and how many times) each packet of one direction arrives. Pure
 * bookkeeping on a seeded RNG: the same seed and call sequence give the same
 * schedule. Works with any clock; `conditionClient` turns the times into timers.
 */
export class LinkConditioner {
  private readonly rng: Rng;
  private readonly out: number[] = [];
  private readonly counts = { sent: 0, dropped: 0, duplicated: 0, reordered: 0, retransmitted: 0 };
  private lastReliable = -Infinity;
  private latency = 0;
  private jitter = 0;
  private loss = 0;
  private duplicate = 0;
  private reorder = 0;
  private reorderDelay = 20;
  private retransmit = 200;

  constructor(options: LinkOptions, seed: number) {
    this.rng = new Rng(seed);
    this.setOptions(options);
  }

  /** Replace the options (omitted fields return to their defaults). Reliable ordering carries over. */
  setOptions(options: LinkOptions): void {
    const latency = nonNegative(options.latencyMs, 0, 'latencyMs');
    const jitter = nonNegative(options.jitterMs, 0, 'jitterMs');
    this.loss = probability(options.loss, 'loss');
    this.duplicate = probability(options.duplicate, 'duplicate');
    this.reorder = probability(options.reorder, 'reorder');
    this.reorderDelay = nonNegative(options.reorderDelayMs, Math.max(20, 2 * jitter), 'reorderDelayMs');
    this.retransmit = nonNegative(options.retransmitMs, Math.max(200, 2 * latency + 4 * jitter), 'retransmitMs');
    this.latency = latency;
    this.jitter = jitter;
  }

  get stats(): LinkStats {
    return this.counts;
  }

  /**
   * Delivery times for one packet sent at `now` on `channel`: [] if lost, [t]
   * normally, [t1, t2] if duplicated. Reliable times never decrease across calls.
   * The returned array is reused: read it before the next call.
   */
  schedule(now: number, channel: Channel): readonly number[] {
    // Written by index and cut to length: `length = 0` would drop the array's storage at every packet.
    const out = this.out;
    let n = 0;
    this.counts.sent++;
    if (channel === 'reliable') {
      let t = now + this.delay();
      for (let n = 0; n < MAX_RETRANSMITS && this.rng.chance(this.loss); n++) {
        t += this.retransmit;
        this.counts.retransmitted++;
      }
      if (t < this.lastReliable) t = this.lastReliable; // in order: wait behind earlier packets
      this.lastReliable = t;
      out[n++] = t;
      out.length = n;
      return out;
    }
    if (this.rng.chance(this.loss)) {
      this.counts.dropped++;
      out.length = 0;
      return out;
    }
    let t = now + this.delay();
    if (this.rng.chance(this.reorder)) {
      t += this.reorderDelay;
      this.counts.reordered++;
    }
    out[n++] = t;
    if (this.rng.chance(this.duplicate)) {
      out[n++] = now + this.delay();
      this.counts.duplicated++;
    }
    out.length = n;
    return out;
  }

  private delay(): number {
    if (this.jitter === 0) return this.latency;
    const d = this.latency + this.rng.range(-this.jitter, this.jitter);
    return d > 0 ? d : 0;
  }
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value >= 0) || !Number.isFinite(value)) throw new NetcodeError('usage', `react-netcode: LinkOptions.${name} must be a finite number >= 0, got ${value}.`);
  return value;
}

function probability(value: number | undefined, name: string): number {
  if (value === undefined) return 0;
  if (!(value >= 0 && value <= 1)) throw new NetcodeError('usage', `react-netcode: LinkOptions.${name} must be between 0 and 1, got ${value}.`);
  return value;
}

export interface ConditionerOptions {
  seed: number;
  /** Client → server. */
  up?: LinkOptions;
  /** Server → client. */
  down?: LinkOptions;
}

export interface ConditionedClientTransport extends ClientTransport {
  /** Live change of either direction (e.g. a preset picker); an omitted direction is left as is. */
  setOptions(options: { up?: LinkOptions; down?: LinkOptions }): void;
  readonly up: LinkConditioner;
  readonly down: LinkConditioner;
}

/**
 * Wrap a client transport: outgoing messages are delayed/dropped by the `up`
 * conditioner before `inner.send`, incoming ones by `down` before the handler.
 * onOpen passes straight through. On `close()` by this side the reliable packets
 * still delayed are sent at once, in order (they were on the wire), then the link
 * closes; every other packet not yet delivered (either way, or on a close by the
 * other side) is cancelled, so nothing arrives after onClose.
 */
export function conditionClient(inner: ClientTransport, options: ConditionerOptions, scheduler: Scheduler): ConditionedClientTransport {
  const up = new LinkConditioner(options.up ?? {}, deriveSeed(options.seed, 1));
  const down = new LinkConditioner(options.down ?? {}, deriveSeed(options.seed, 2));
  /** The current connect(); `closed` turns every callback of an old connection into a no-op. */
  let conn: { open: boolean; closed: boolean; reported: boolean } | null = null;
  const upLine = new DelayLine(scheduler, (data, channel) => {
    if (conn !== null && !conn.closed) inner.send(data, channel);
  });
  let deliverDown: (data: Uint8Array, channel: Channel) => void = () => {};
  const downLine = new DelayLine(scheduler, (data, channel) => deliverDown(data, channel));
  const shutdown = (c: { closed: boolean }): void => {
    c.closed = true;
    upLine.cancel();
    downLine.cancel();
  };

  return {
    up,
    down,
    // The inner transport's own counters and datagram size (which path carries the unreliable channel, what it dropped).
    get stats() {
      return inner.stats;
    },
    ...(inner.maxDatagramBytes !== undefined ? { maxDatagramBytes: inner.maxDatagramBytes } : {}),
    ...(inner.newSessionAdvice !== undefined ? { newSessionAdvice: inner.newSessionAdvice } : {}),
    setOptions(next) {
      if (next.up !== undefined) up.setOptions(next.up);
      if (next.down !== undefined) down.setOptions(next.down);
    },
    connect(handler, intent) {
      if (conn !== null && !conn.closed) throw new NetcodeError('usage', 'react-netcode: conditioned client is already connected; close() it before connecting again.');
      const c = { open: false, closed: false, reported: false };
      conn = c;
      deliverDown = (data, channel) => {
        if (!c.closed) handler.onMessage(data, channel);
      };
      inner.connect({
        onOpen: () => {
          if (c.closed) return;
          c.open = true;
          handler.onOpen();
        },
        onMessage: (data, channel) => {
          if (c.closed) return;
          const times = down.schedule(scheduler.now(), channel);
          for (let i = 0; i < times.length; i++) downLine.push(times[i] as number, i === 0 ? data : data.slice(), channel);
        },
        onClose: (reason) => {
          if (c.reported) return;
          c.reported = true;
          shutdown(c);
          handler.onClose(reason);
        },
        onServerError: (reason) => {
          if (!c.reported) handler.onServerError?.(reason);
        },
        onRetry: (reason) => {
          if (!c.reported) handler.onRetry?.(reason);
        },
      }, intent);
    },
    send(data, channel) {
      if (conn === null || conn.closed || !conn.open) return;
      upLine.deliverDue(); // what is due leaves now, in order, even if its timer is late (a busy page)
      const times = up.schedule(scheduler.now(), channel);
      if (times.length === 0) return;
      // Held as it is until its time: the transport contract lets a transport keep `data` (the caller does not reuse it).
      for (let i = 0; i < times.length; i++) upLine.push(times[i]!, data, channel);
    },
    close(reason) {
      if (conn === null || conn.closed) return;
      // What this side sent reliably before closing (a leaving client's Close) was on the wire: it goes now,
      // in order, before the link closes — a page that is closing has no later timer to send it from.
      upLine.flushReliable();
      shutdown(conn);
      inner.close(reason); // the inner transport reports onClose, which we pass on once
    },
  };
}
