// The client's input stage (step 3 of a client frame): the local InputBuffer, the
// Input packets (last N ticks for redundancy, with the snapshot ack and our
// interpolation tick piggybacked), other players' replicated inputs for predicting
// them, and the neutral input sent when the page is hidden.

import { BitWriter } from './bits.ts';
import type { ClientGhosts } from './client-ghosts.ts';
import { DEFAULT_INPUTS_PER_PACKET, encodeInputPacket, InputBuffer } from './input/index.ts';
import type { InputSchema, Protocol } from './protocol.ts';
import type { Schema, SchemaCodec, Values } from './schema.ts';
import { tickAdd, type Tick } from './tick.ts';
import type { Channel } from './transport.ts';
import type { Ghost } from './world.ts';
import { MessageKind } from './wire.ts';

/** Copies of the pause packet (unreliable, and nothing follows it). */
const PAUSE_COPIES = 3;

export class ClientInput<P extends Protocol> {
  /** The local input: write `buffer.current`, count presses with `buffer.press('jump')`. */
  readonly buffer: InputBuffer<InputSchema<P>>;
  private readonly codec: SchemaCodec<InputSchema<P>>;
  private readonly writer = new BitWriter(256);
  private readonly remote = new Map<number, Values<Schema>>();
  private readonly scratch: Values<Schema>;

  constructor(
    private readonly protocol: P,
    private readonly ghosts: ClientGhosts<P>,
    private readonly send: (bytes: Uint8Array, channel: Channel) => void,
    private readonly inputsPerPacket = DEFAULT_INPUTS_PER_PACKET,
  ) {
    this.codec = protocol.input as unknown as SchemaCodec<InputSchema<P>>;
    this.buffer = new InputBuffer(this.codec);
    this.scratch = protocol.input.defaults() as Values<Schema>;
  }

  /** A new session: counts restart at 0 on both sides. */
  reset(): void {
    this.buffer.reset();
    this.remote.clear();
  }

  /** `ctx.input(ghost)` in prediction: our own input for our ghosts, the last replicated input (presses zeroed) for other players'. */
  inputFor(ghost: Ghost, tick: Tick, localNetworkId: number | undefined): Record<string, unknown> | undefined {
    // eslint-disable-next-line max-len -- long line left for the rewrite of this file (issue 17 lint pass)
    if (ghost.owner === localNetworkId) return this.buffer.has(tick) ? (this.buffer.tickInput(tick, this.scratch as never) as Record<string, unknown>) : undefined;
    const remote = this.remote.get(ghost.owner);
    if (!remote) return undefined;
    const out = this.protocol.input.copy(remote, this.scratch) as Record<string, unknown>;
    for (const key of this.protocol.input.keys) if (this.protocol.input.schema[key]!.kind === 'event') out[key] = 0;
    return out;
  }

  /** Remember the other players' inputs a snapshot carried. */
  onReplicated(inputs: readonly { networkId: number; values: Record<string, unknown> }[]): void {
    for (const input of inputs) {
      let v = this.remote.get(input.networkId);
      if (!v) this.remote.set(input.networkId, (v = this.protocol.input.defaults() as Values<Schema>));
      this.protocol.input.copy(input.values as Values<Schema>, v);
    }
  }

  /** Commit the live input as `tick`'s and send the last inputsPerPacket ticks. */
  commitAndSend(tick: Tick): void {
    this.buffer.commit(tick);
    this.sendInputs(tick);
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

  private sendInputs(newest: Tick): void {
    const w = this.writer;
    w.reset();
    w.writeBits(MessageKind.Input, 8);
    const timeline = this.ghosts.timeline;
    encodeInputPacket(w, this.codec, this.buffer, newest, this.inputsPerPacket, {
      interpolationTick: timeline.tick,
      interpolationFraction: Math.min(1, Math.max(0, timeline.fraction)),
      ackTick: this.ghosts.ackTick,
      ackMask: this.ghosts.ackMask,
    });
    this.send(w.toBytes(), 'unreliable');
  }
}
