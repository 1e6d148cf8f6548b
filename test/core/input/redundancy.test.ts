// End to end over the real packet codec: a client InputBuffer sending the newest 4
// ticks every tick, a link with loss and delay (in whole ticks), and the server's
// ServerInputQueue turning running counts into presses per tick.
import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../../src/core/bits.ts';
import { field } from '../../../src/core/field.ts';
import { InputBuffer } from '../../../src/core/input/buffer.ts';
import { createDecodedInputPacket, decodeInputPacket, encodeInputPacket } from '../../../src/core/input/packet.ts';
import { ServerInputQueue } from '../../../src/core/input/server-queue.ts';
import { Rng } from '../../../src/core/rng.ts';
import { compileSchema } from '../../../src/core/schema.ts';
import { tickAdd } from '../../../src/core/clock/tick.ts';
import { MessageKind } from '../../../src/core/wire.ts';

const codec = compileSchema({ move: field.vec2({ quantize: 100, maxLength: 1 }), jump: field.event() });
const EXTRAS = { interpolationTick: 0, interpolationFraction: 0, ackTick: 0, ackMask: 0 };

interface Plan {
  /** Ticks the client commits (0-based); the server runs `ticks + tail` ticks so stragglers arrive. */
  ticks: number;
  tail: number;
  /** The client commits tick i at time i − lead (it runs ahead of the server). */
  lead: number;
  /** Packet i (carrying ticks i, i−1, i−2, i−3) is lost, or arrives `delay(i)` ticks after it is sent. */
  lost(i: number): boolean;
  delay(i: number): number;
  presses(i: number): number;
  first?: number;
}

function run(plan: Plan) {
  const first = plan.first ?? 1000;
  const client = new InputBuffer(codec);
  const server = new ServerInputQueue(codec);
  const inFlight = new Map<number, Uint8Array[]>();
  const w = new BitWriter();
  const r = new BitReader();
  const packet = createDecodedInputPacket<typeof codec.schema>();
  const out = codec.defaults();
  const clientCum: number[] = []; // presses made in ticks 0..i
  const serverPresses: number[] = []; // presses the server's systems saw at tick i
  const sentMove: number[] = [];
  const ranMove: number[] = [];
  let pressed = 0;
  for (let time = -plan.lead; time < plan.ticks + plan.tail; time++) {
    const i = time + plan.lead; // the tick the client commits now
    if (i < plan.ticks + plan.tail) {
      const n = i < plan.ticks ? plan.presses(i) : 0;
      if (n > 0) client.press('jump', n);
      pressed += n;
      clientCum[i] = pressed;
      client.current.move.x = sentMove[i] = ((i % 50) - 25) / 100; // a distinct value per tick, on the 0.01 grid
      client.commit(tickAdd(first, i));
      w.reset().writeBits(MessageKind.Input, 8);
      encodeInputPacket(w, codec, client, tickAdd(first, i), 4, EXTRAS);
      if (!plan.lost(i)) {
        const at = Math.max(0, time + plan.delay(i)); // the server starts at time 0
        inFlight.set(at, [...(inFlight.get(at) ?? []), w.toBytes()]);
      }
    }
    if (time < 0) continue;
    for (const bytes of inFlight.get(time) ?? []) {
      r.reset(bytes);
      expect(r.readBits(8)).toBe(MessageKind.Input);
      server.receivePacket(decodeInputPacket(r, codec, packet), tickAdd(first, time));
    }
    server.tickInput(tickAdd(first, time), out);
    serverPresses[time] = out.jump;
    ranMove[time] = out.move.x;
  }
  return { server, clientCum, serverPresses, sentMove, ranMove, pressed };
}

const sum = (a: readonly number[]): number => a.reduce((s, x) => s + x, 0);

describe('input redundancy and running counts', () => {
  it('counts 1000 presses exactly once under 10% loss and jitter', () => {
    const rng = new Rng(2024);
    const ticks = 1200; // 20 s at 60 Hz
    const presses = new Array<number>(ticks).fill(0);
    for (let k = 0; k < 1000; k++) presses[rng.int(ticks - 30)]!++; // none in the last 30 ticks, so the final count reaches the server
    const lost = Array.from({ length: ticks + 40 }, () => rng.chance(0.1));
    // 2 ticks of flight, and a quarter of the packets 1..5 ticks later still; lead 3 ⇒ margin 1 tick, so some copies arrive late
    const delay = Array.from({ length: ticks + 40 }, () => 2 + (rng.chance(0.25) ? 1 + rng.int(5) : 0));
    const res = run({ ticks, tail: 30, lead: 3, first: 0xffff_fe00, lost: (i) => lost[i]!, delay: (i) => delay[i]!, presses: (i) => presses[i]! });
    expect(res.pressed).toBe(1000);
    expect(Math.max(...presses)).toBeGreaterThan(1); // several presses in some ticks
    expect(sum(res.serverPresses)).toBe(1000); // every press reaches a system …
    let cum = 0;
    let delayed = 0;
    for (let t = 0; t < res.serverPresses.length; t++) {
      cum += res.serverPresses[t]!;
      expect(cum).toBeLessThanOrEqual(res.clientCum[t]!); // … never before it happened, so never twice
      if (cum < res.clientCum[t]!) delayed++;
      if (res.ranMove[t] === res.sentMove[t]) expect(cum).toBe(res.clientCum[t]); // a tick with its own input is exact
    }
    const { stats } = res.server;
    expect(stats.late).toBeGreaterThan(0); // the run exercises late copies …
    expect(stats.missing).toBeGreaterThan(0); // … and ticks whose every copy was lost or late
    expect(delayed).toBeGreaterThan(0); // whose presses ran on a later tick instead
    expect(stats.received + stats.missing).toBe(ticks + 30); // each tick ran with its own input or was counted missing
  });

  // Margin 4 ticks: lead 5 − flight 1. Packet k is sent at k − 5 and arrives at k − 4, in time for ticks k−3..k … all it carries.
  const steady = { ticks: 40, tail: 10, lead: 5, delay: () => 1, presses: (i: number) => (i % 3 === 0 ? 1 : 0) };

  it('loses no input to any single lost packet', () => {
    for (let j = 0; j < 40; j++) {
      const res = run({ ...steady, lost: (i) => i === j });
      expect(res.server.stats.missing).toBe(0); // tick j also rides in packets j+1, j+2, j+3
      expect(res.ranMove.slice(0, 40)).toEqual(res.sentMove.slice(0, 40));
    }
  });

  it('loses no input to 3 lost packets in a row, and one tick to 4', () => {
    for (let j = 0; j < 37; j++) {
      const res = run({ ...steady, lost: (i) => i >= j && i < j + 3 });
      expect(res.server.stats.missing).toBe(0); // packet j+3 still carries j, j+1, j+2 and arrives at j − 1
    }
    const res = run({ ...steady, lost: (i) => i >= 20 && i < 24 });
    // tick 20 rides only in packets 20..23, all lost; packet 24 carries 21..24
    expect(res.server.stats).toMatchObject({ missing: 1, repeated: 1 });
    expect(res.ranMove[20]).toBe(res.sentMove[19]); // tick 20 ran with tick 19's input
    expect(res.ranMove[21]).toBe(res.sentMove[21]);
    expect(sum(res.serverPresses)).toBe(res.pressed); // 14 presses (i = 0, 3, …, 39): tick 21 ran tick 20's, none lost
    expect(res.serverPresses[20]).toBe(0);
    expect(res.serverPresses[21]).toBe(1); // the press of tick 21 (21 % 3 = 0); tick 20 had none
  });

  it('needs an input margin to use the redundancy', () => {
    // Lead 2, flight 1: packet k arrives at k − 1, in time only for ticks ≥ k − 1.
    const res = run({ ...steady, lead: 2, lost: (i) => i >= 20 && i < 23 });
    // Tick 20's first surviving copy is packet 23, arriving at 22 (late); tick 21's too; tick 22 is in time.
    expect(res.server.stats).toMatchObject({ missing: 2, late: 2 + 1 }); // packet 23 brings 20, 21 late; packet 24 brings 21 late again
    expect(sum(res.serverPresses)).toBe(res.pressed); // still no press lost: tick 21's press runs at 22
    expect(res.serverPresses[21]).toBe(0);
    expect(res.serverPresses[22]).toBe(1); // 21 % 3 = 0: one press, counted a tick late
  });
});
