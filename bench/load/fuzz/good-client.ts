// The well-behaved player beside the fuzzer: a real NetClient playing the fuzz game. It
// must not notice the attack: every snapshot tick the server owes it arrives, in order,
// no `error` event, no rejected snapshot, it stays in game, and every player's replicated
// state (derived from inputs, the fuzzers' included) is within the inputs' bounds. What
// it sends is captured for the generator's mutations of real packets.
import { createClient, type NetClient } from '../../../src/core/client.ts';
import { forEachMessage } from '../../../src/core/outbox.ts';
import { isSnapshotTick } from '../../../src/core/protocol.ts';
import type { Schema, SchemaCodec } from '../../../src/core/schema.ts';
import { isNewer } from '../../../src/core/clock/tick.ts';
import type { ClientTransport } from '../../../src/core/transport.ts';
import { MessageKind } from '../../../src/core/wire.ts';
import { fuzzProtocol, fuzzSystems, outOfBounds, type FuzzProtocol } from './protocol.ts';
import type { GoodClientResult } from './report.ts';

/** Ghost fields that carry an input field's value (the move system copies them). */
const FROM_INPUT = ['move', 'look', 'aim', 'throttle', 'weapon', 'turn', 'facing', 'mode'] as const;

export class GoodClient {
  readonly client: NetClient<FuzzProtocol>;
  private readonly result: GoodClientResult = { snapshots: 0, snapshotGaps: 0, outOfOrder: 0, stateErrors: [] };
  private last: number | undefined;
  private frames = 0;
  private joined = false;

  constructor(transport: ClientTransport, capture: (bytes: Uint8Array) => void, now: () => number) {
    const watched: ClientTransport = {
      connect: (handler) =>
        transport.connect({
          ...handler,
          onMessage: (data, channel) => {
            if (this.joined) this.observe(data);
            handler.onMessage(data, channel);
          },
        }),
      send: (data, channel) => {
        capture(data);
        transport.send(data, channel);
      },
      close: (reason) => transport.close(reason),
    };
    this.client = createClient({ protocol: fuzzProtocol, systems: fuzzSystems, transport: watched, now, log: () => {} });
    this.client.events.on('error', (e) => this.error(`error event: ${e.message}`));
    this.client.events.on('status', (s) => {
      if (s.status === 'connected' && !this.joined) this.client.join({ name: 'good', team: 0, color: 'green', spawn: { x: 1, y: 2 }, token: 'ok' });
      if (s.status === 'in-game') this.joined = true;
      else if (this.joined) this.error(`left the game: ${s.status} (${s.closeReason ?? ''})`);
    });
    this.client.connect();
  }

  get inGame(): boolean {
    return this.client.status === 'in-game';
  }

  /** One frame: a changing but valid input, a press now and then, then the client's update and the checks. */
  frame(now: number): void {
    const i = this.client.input.current;
    const a = this.frames++ / 30;
    i.move.x = Math.cos(a) * 0.9;
    i.move.y = Math.sin(a) * 0.9;
    i.aim = Math.sin(a);
    i.weapon = 1 + (this.frames % 4);
    i.mode = this.frames % 2 === 0 ? 'run' : 'walk';
    if (this.frames % 20 === 0) this.client.input.press('fire');
    this.client.update(now);
    if (this.joined && this.frames % 10 === 0) this.check();
  }

  report(): GoodClientResult {
    if (this.client.ghosts.rejectedSnapshots > 0) this.error(`${this.client.ghosts.rejectedSnapshots} snapshots rejected`);
    return { ...this.result, stateErrors: [...this.result.stateErrors] };
  }

  private error(message: string): void {
    if (this.result.stateErrors.length < 50) this.result.stateErrors.push(message);
  }

  /** Every snapshot tick on the wire, in order, none missing (snapshot ticks per isSnapshotTick). */
  private observe(data: Uint8Array): void {
    forEachMessage(data, (m) => {
      if (m[0] !== MessageKind.Snapshot || m.byteLength < 7) return;
      const tick = (m[3]! | (m[4]! << 8) | (m[5]! << 16) | (m[6]! << 24)) >>> 0;
      this.result.snapshots++;
      const last = this.last;
      if (last !== undefined && !isNewer(tick, last)) {
        this.result.outOfOrder++;
        return;
      }
      if (last !== undefined) for (let t = (last + 1) >>> 0; t !== tick; t = (t + 1) >>> 0) if (isSnapshotTick(fuzzProtocol, t)) this.result.snapshotGaps++;
      this.last = tick;
    });
  }

  /** Replicated state of every player within the bounds of the input it came from. */
  private check(): void {
    const input = fuzzProtocol.input as unknown as SchemaCodec<Schema>;
    for (const g of this.client.world.query('player')) {
      const rec = this.client.ghosts.record(g);
      const confirmed = rec?.history.get(rec.confirmedTick) as Record<string, unknown> | undefined;
      if (!confirmed) continue;
      for (const key of FROM_INPUT) {
        const problem = outOfBounds(input.schema[key]!, confirmed[key]);
        if (problem !== null) this.error(`player ${g.id} (owner ${g.owner}) replicated ${key}: ${problem}`);
      }
    }
  }
}
