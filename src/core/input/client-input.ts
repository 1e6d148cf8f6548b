// The client's input stage (stages 3 and 5 of a client frame): the local InputBuffer,
// one Input packet per frame (the ticks committed in the frame and, for redundancy,
// in the frames before it; the snapshot ack and our interpolation tick piggybacked),
// other players' replicated inputs for predicting them, and the neutral input sent
// when the page is hidden.

import { BitWriter } from '../bits.ts';
import type { ClientGhosts } from '../client-ghosts.ts';
import { DEFAULT_INPUTS_PER_PACKET, encodeInputPacket, InputBuffer, MAX_INPUTS_PER_PACKET, type InputPacketExtras } from './index.ts';
import type { InputSchema, Protocol } from '../protocol.ts';
import type { Schema, SchemaCodec, Values } from '../schema.ts';
import { tickAdd, tickDiff, type Tick } from '../clock/tick.ts';
import type { Channel } from '../transport.ts';
import type { Ghost } from '../world.ts';
import { MessageKind } from '../wire.ts';

/** Copies of the pause packet (unreliable, and nothing follows it). */
const PAUSE_COPIES = 3;

export class ClientInput<P extends Protocol> {
  /** The local input: write `buffer.current`, count presses with `buffer.press('jump')`. */
  readonly buffer: InputBuffer<InputSchema<P>>;
  private readonly codec: SchemaCodec<InputSchema<P>>;
  private readonly writer = new BitWriter(256);
  /** The packet's extras, rewritten per packet (a new object with a float in it per packet before). */
  private readonly extras: InputPacketExtras = { interpolationTick: 0 as Tick, interpolationFraction: 0, ackTick: 0 as Tick, ackMask: 0 };
  private readonly remote = new Map<number, Values<Schema>>();
  private readonly scratch: Values<Schema>;
  /** Ticks committed in the current frame (first and newest), undefined when none. */
  private frameFirst: Tick | undefined;
  private frameNewest: Tick | undefined;
  /** First committed tick of each of the last inputsPerPacket sending frames (a ring). */
  private readonly frameStarts: Tick[];
  private frameCursor = 0;
  private framesSent = 0;

  constructor(
    private readonly protocol: P,
    private readonly ghosts: ClientGhosts<P>,
    /** Sends the first `length` bytes of `bytes`, copied before it returns (the writer's buffer is passed). */
    private readonly send: (bytes: Uint8Array, channel: Channel, length: number) => void,
    private readonly inputsPerPacket = DEFAULT_INPUTS_PER_PACKET,
    /** The server's maxInputRepeatTicks: prediction of a tick without input mirrors what the server does. */
    private readonly maxRepeatTicks = 8,
  ) {
    this.codec = protocol.input as unknown as SchemaCodec<InputSchema<P>>;
    this.buffer = new InputBuffer(this.codec);
    this.scratch = protocol.input.defaults() as Values<Schema>;
    this.frameStarts = new Array<Tick>(Math.max(1, inputsPerPacket)).fill(0);
  }

  /** A new session: counts restart at 0 on both sides. */
  reset(): void {
    this.buffer.reset();
    this.remote.clear();
    this.frameFirst = this.frameNewest = undefined;
    this.framesSent = this.frameCursor = 0;
  }

  /**
   * `ctx.input(ghost)` in prediction: our own input for our ghosts (for a tick we never committed, the
   * server's policy for a missing input: the previous one repeated, then neutral), the last replicated
   * input (presses zeroed) for other players'.
   */
  inputFor(ghost: Ghost, tick: Tick, localNetworkId: number | undefined): Record<string, unknown> | undefined {
    if (ghost.owner === localNetworkId) {
      return this.buffer.predictedInput(tick, this.maxRepeatTicks, this.scratch as never) as Record<string, unknown> | undefined;
    }
    const remote = this.remote.get(ghost.owner);
    if (!remote) return undefined;
    const out = this.protocol.input.copy(remote, this.scratch) as Record<string, unknown>;
    for (const key of this.protocol.input.keys) if (this.protocol.input.schema[key]!.kind === 'event') out[key] = 0;
    return out;
  }

  /** Remember the other players' inputs a snapshot carried. */
  onReplicated(inputs: readonly { networkId: number; values: Record<string, unknown> }[]): void {
    for (let i = 0; i < inputs.length; i++) { // by index: per snapshot, so often not yet optimized (a for…of allocates there)
      const input = inputs[i]!;
      let v = this.remote.get(input.networkId);
      if (!v) this.remote.set(input.networkId, (v = this.protocol.input.defaults() as Values<Schema>));
      this.protocol.input.copy(input.values as Values<Schema>, v);
    }
  }

  /** Commit the live input as `tick`'s (sent with the frame's Input packet by `sendFrame`). */
  commit(tick: Tick): void {
    this.buffer.commit(tick);
    if (this.frameFirst === undefined) this.frameFirst = tick;
    this.frameNewest = tick;
  }

  /** True when this frame committed an input (so its Input packet carries the snapshot ack). */
  get committedThisFrame(): boolean {
    return this.frameNewest !== undefined;
  }

  /**
   * Send the frame's one Input packet: the ticks committed in this frame and in the frames
   * before it, back to the first tick of the `inputsPerPacket`-th newest sending frame (so every
   * tick travels in inputsPerPacket packets at any frame rate), at least inputsPerPacket ticks
   * and at most MAX_INPUTS_PER_PACKET. Nothing when the frame committed nothing.
   */
  sendFrame(): void {
    const newest = this.frameNewest;
    const first = this.frameFirst;
    this.frameNewest = this.frameFirst = undefined;
    if (newest === undefined || first === undefined) return;
    const ring = this.frameStarts;
    ring[this.frameCursor] = first;
    this.frameCursor = (this.frameCursor + 1) % ring.length;
    if (this.framesSent < ring.length) this.framesSent++;
    const oldest = ring[this.framesSent < ring.length ? 0 : this.frameCursor]!;
    const span = tickDiff(newest, oldest) + 1;
    this.sendInputs(newest, Math.min(MAX_INPUTS_PER_PACKET, Math.max(this.inputsPerPacket, span)));
  }

  /**
   * Page hidden / app paused: neutral input from now on, committed for the next few ticks
   * after `lastTick` and sent at once, so the server stops the player without waiting for
   * its missing-input policy.
   */
  pause(lastTick: Tick | undefined): void {
    this.buffer.neutral();
    if (lastTick === undefined) return;
    for (let i = 1; i <= this.inputsPerPacket; i++) this.buffer.commit(tickAdd(lastTick, i));
    // No later packet will repeat these inputs (we stop sending): send the packet three
    // times, so one loss does not leave the server repeating the held input.
    for (let copy = 0; copy < PAUSE_COPIES; copy++) this.sendInputs(tickAdd(lastTick, this.inputsPerPacket));
  }

  private sendInputs(newest: Tick, count = this.inputsPerPacket): void {
    const w = this.writer;
    w.reset();
    w.writeBits(MessageKind.Input, 8);
    const timeline = this.ghosts.timeline;
    const extras = this.extras;
    extras.interpolationTick = timeline.tick;
    extras.interpolationFraction = Math.min(1, Math.max(0, timeline.fraction));
    extras.ackTick = this.ghosts.ackTick;
    extras.ackMask = this.ghosts.ackMask;
    encodeInputPacket(w, this.codec, this.buffer, newest, count, extras);
    this.send(w.buffer(), 'unreliable', w.byteLength);
  }
}
