// The server's input stage: one ServerInputQueue per connection, the decoding of
// Input packets (inputs of the last N ticks, the piggybacked snapshot ack, the
// client's interpolation tick for lag compensation), and the per-tick input that
// systems read through ctx.input / ctx.inputCount.

import type { BitReader } from '../bits.ts';
import type { Connection } from '../connection.ts';
import { createDecodedInputPacket, decodeInputPacket, ServerInputQueue, type DecodedInputPacket, type ServerInputStats } from './index.ts';
import type { Protocol } from '../protocol.ts';
import type { Schema, Values } from '../schema.ts';
import { HistoryBuffer } from '../history.ts';
import { tickAdd, tickDiff, type Tick } from '../clock/tick.ts';

/** Where a client showed interpolated ghosts when it sampled an input (for lag compensation). */
export interface InterpolationView {
  tick: Tick;
  fraction: number;
}

/** What one Input packet brought: its snapshot ack and the newest input (sanitized, as stored). */
export interface ReceivedInput {
  ackTick: Tick;
  ackMask: number;
  newest: Values<Schema> | undefined;
}

/** Input health is checked over windows of this length; a connection is warned about at most once per window. */
const HEALTH_WINDOW_MS = 5000;
/** A window in which more than this share of a connection's ticks ran without its input is worth a warning. */
const HEALTH_MISSING_SHARE = 0.02;

interface Health {
  since: number;
  late: number;
  missing: number;
  warnedAt: number;
}

export class ServerInputs<P extends Protocol> {
  private readonly queues = new Map<number, ServerInputQueue<Schema>>();
  private readonly health = new Map<number, Health>();
  /** Per connection: the interpolation view of each input tick. */
  private readonly views = new Map<number, HistoryBuffer<InterpolationView>>();
  /** Views evicted from every connection's buffer, reused by the next inputs (no object per input). */
  private readonly spareViews: InterpolationView[] = [];
  private readonly spareView = (v: InterpolationView): void => void this.spareViews.push(v);
  private readonly packet = createDecodedInputPacket<Schema>();
  private readonly received: ReceivedInput = { ackTick: 0, ackMask: 0, newest: undefined };
  /** Per connection: the input of the tick computed last (systems read it many times a tick). */
  private readonly tickInputs = new Map<number, { tick: Tick | undefined; values: Values<Schema>; out: Values<Schema> }>();

  constructor(
    private readonly protocol: P,
    private readonly maxRepeatTicks: number,
    /** Undefined: the queue's whole window. */
    private readonly maxLeadTicks: number | undefined,
  ) {}

  open(networkId: number): void {
    // decodeInputPacket sanitizes: the queue stores what it is given.
    const lead = this.maxLeadTicks !== undefined ? { maxLeadTicks: this.maxLeadTicks } : {};
    const queue = new ServerInputQueue(this.protocol.input, { maxRepeatTicks: this.maxRepeatTicks, ...lead, sanitize: false });
    this.queues.set(networkId, queue);
    this.views.set(networkId, new HistoryBuffer<InterpolationView>(128, this.spareView));
  }

  close(networkId: number): void {
    this.queues.delete(networkId);
    this.health.delete(networkId);
    this.views.delete(networkId);
    this.tickInputs.delete(networkId);
  }

  stats(networkId: number): ServerInputStats | undefined {
    return this.queues.get(networkId)?.stats;
  }

  /** The client paused itself (a hidden page) or runs again: while paused, ticks without its input are not missing. */
  setPaused(networkId: number, paused: boolean): void {
    const queue = this.queues.get(networkId);
    if (queue === undefined || queue.paused === paused) return;
    queue.paused = paused;
    if (!paused) this.health.delete(networkId); // a fresh window from its return
  }

  /** The link of `networkId` dropped (true) or it resumed (false): while suspended nothing counts as missing or is warned about. */
  setSuspended(networkId: number, suspended: boolean): void {
    const queue = this.queues.get(networkId);
    if (queue) queue.suspended = suspended;
    if (!suspended) this.health.delete(networkId); // a fresh window after the resume
  }

  /** How early the stored inputs of `networkId` arrived (ServerInputQueue.arrivals). */
  arrivals(networkId: number): Readonly<Uint32Array> | undefined {
    return this.queues.get(networkId)?.arrivals;
  }

  /**
   * Once per window, the message for each connection whose inputs went missing (ticks run
   * without them) for more than 2 % of the window's ticks; `name(networkId)` names it.
   */
  checkHealth(nowMs: number, ticksPerWindow: number, warn: (message: string) => void, name: (networkId: number) => string): void {
    for (const [networkId, queue] of this.queues) {
      if (queue.suspended || queue.paused) continue;
      const s = queue.stats;
      let h = this.health.get(networkId);
      if (!h) this.health.set(networkId, (h = { since: nowMs, late: s.late, missing: s.missing, warnedAt: -Infinity }));
      if (nowMs - h.since < HEALTH_WINDOW_MS) continue;
      const missing = s.missing - h.missing;
      const late = s.late - h.late;
      const seconds = (nowMs - h.since) / 1000;
      h.since = nowMs;
      h.late = s.late;
      h.missing = s.missing;
      if (missing <= HEALTH_MISSING_SHARE * ticksPerWindow * (seconds / (HEALTH_WINDOW_MS / 1000))) continue;
      warn(
        `react-netcode: ${name(networkId)}: ${missing} ticks in the last ${seconds.toFixed(0)} s ran without its input (${late} inputs arrived after their tick; ` +
          `input margin ${queue.marginTicks.toFixed(1)} ticks). Missing inputs are repeated for maxInputRepeatTicks, then neutral, so its player stutters. ` +
          'Its frames may be starved (a background tab, a blocked main thread, a slow device) or its link lossy or jittery; its NetGraph shows late/missing inputs per second.',
      );
    }
  }

  /** For the client's newest input: ticks it arrived before it was simulated (reported in Pongs). */
  margin(networkId: number): number {
    return this.queues.get(networkId)?.marginTicks ?? 0;
  }

  /**
   * What systems see for `networkId` at `tick`: events as presses in that tick. Computed once
   * per tick however many systems call ctx.input, and copied out on each call, so a system
   * that writes into what it got never changes what the next one reads.
   */
  tickInput(networkId: number, tick: Tick): Record<string, unknown> | undefined {
    const queue = this.queues.get(networkId);
    if (!queue) return undefined;
    let slot = this.tickInputs.get(networkId);
    if (!slot) {
      const codec = this.protocol.input;
      slot = { tick: undefined, values: codec.defaults() as Values<Schema>, out: codec.defaults() as Values<Schema> };
      this.tickInputs.set(networkId, slot);
    }
    if (slot.tick !== tick) {
      queue.tickInput(tick, slot.values);
      slot.tick = tick;
    }
    return this.protocol.input.copy(slot.values, slot.out) as Record<string, unknown>;
  }

  /** Where `networkId` showed interpolated ghosts when it sampled its input for `tick` (newest known at or before it). */
  viewAt(networkId: number, tick: Tick): InterpolationView | undefined {
    const views = this.views.get(networkId);
    if (!views) return undefined;
    const at = views.tickAtOrBefore(tick);
    if (at === undefined) return undefined;
    const v = views.get(at)!;
    // A copy (the stored views are reused); an input tick without its own view (lost input): the view moved on one tick per tick.
    return { tick: at === tick ? v.tick : tickAdd(v.tick, tickDiff(tick, at)), fraction: v.fraction };
  }

  /** The input of `networkId` at `tick` with running counts (ctx.inputCount). */
  rawInput(networkId: number, tick: Tick): Record<string, unknown> | undefined {
    return this.queues.get(networkId)?.inputFor(tick) as Record<string, unknown> | undefined;
  }

  /**
   * Decode an Input message body (reader after the kind byte) from `connection` at server
   * tick `currentTick`; returns the packet's ack and the connection's newest stored input
   * (sanitized, as systems see it), or undefined if the connection is not in game. Throws
   * WireError on malformed data. The result is one object reused by every call: read it at once.
   */
  receive(connection: Connection, r: BitReader, currentTick: Tick): ReceivedInput | undefined {
    const packet = decodeInputPacket(r, this.protocol.input, this.packet);
    r.expectEnd();
    if (!connection.inGame) return undefined;
    const queue = this.queues.get(connection.networkId);
    if (!queue) return undefined;
    const newestBefore = queue.newestTick;
    queue.receivePacket(packet, currentTick);
    connection.interpolationTick = packet.interpolationTick;
    connection.interpolationFraction = packet.interpolationFraction;
    const views = this.views.get(connection.networkId);
    if (views) this.keepViews(views, packet, newestBefore);
    const got = this.received;
    got.ackTick = packet.ackTick;
    got.ackMask = packet.ackMask;
    got.newest = queue.newestValues;
    return got;
  }

  /**
   * The packet carries the view of the frame that sent it. Every input committed since the previous
   * packet the server has (ticks past its newest) was sampled in that frame — several ticks per frame
   * below 60 fps — so they share it. Older inputs without a view (their packet was lost) were sampled
   * a frame or more earlier: moved back one tick per tick from the oldest of the frame's own ticks.
   */
  private keepViews(views: HistoryBuffer<InterpolationView>, packet: DecodedInputPacket<Schema>, newestBefore: Tick | undefined): void {
    const sinceLast = newestBefore === undefined ? 0 : Math.max(0, tickDiff(packet.newestTick, newestBefore) - 1);
    for (let i = 0; i < packet.count; i++) {
      const input = packet.inputs[i]!;
      if (views.has(input.tick)) continue;
      const back = Math.max(0, tickDiff(packet.newestTick, input.tick) - sinceLast);
      const view = this.spareViews.pop() ?? { tick: 0, fraction: 0 };
      view.tick = tickAdd(packet.interpolationTick, -back);
      view.fraction = packet.interpolationFraction;
      views.set(input.tick, view);
    }
  }
}
