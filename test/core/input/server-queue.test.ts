import { describe, expect, it } from 'vitest';
import { field } from '../../../src/core/field.ts';
import { ServerInputQueue } from '../../../src/core/input/server-queue.ts';
import { compileSchema, type Values } from '../../../src/core/schema.ts';
import { tickAdd } from '../../../src/core/clock/tick.ts';

const codec = compileSchema({
  move: field.vec2({ quantize: 100, maxLength: 1 }),
  aim: field.f32({ min: -1, max: 1 }),
  jump: field.event(),
});
type V = Values<typeof codec.schema>;
const input = (x: number, jump: number, aim = 0): V => ({ move: { x, y: 0 }, aim, jump });

describe('ServerInputQueue', () => {
  it('repeats the last input for maxRepeatTicks ticks, then goes neutral keeping the counts', () => {
    const q = new ServerInputQueue(codec); // maxRepeatTicks 8
    const out = codec.defaults();
    for (let t = 100; t <= 109; t++) {
      q.receive(t, input(0.5, t - 100), t); // one press per tick after the first: count 9 at tick 109
      q.tickInput(t, out);
    }
    const moves: number[] = [];
    const presses: number[] = [];
    for (let t = 110; t <= 125; t++) {
      q.tickInput(t, out);
      moves.push(out.move.x);
      presses.push(out.jump);
    }
    // ticks 110..117 (8 after the newest input, 109) repeat it; 118..125 are neutral
    expect(moves).toEqual([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(presses).toEqual(new Array(16).fill(0)); // neither repeats nor neutral invent presses
    expect(q.stats).toMatchObject({ received: 10, missing: 16, repeated: 8, neutral: 8 }); // 110..125 = 16 ticks = 8 + 8
    q.receive(126, input(0.25, 11), 126);
    expect(q.tickInput(126, out).jump).toBe(2); // 11 − 9: neutral kept tick 109's count
    expect(out.move.x).toBe(0.25);
  });

  it('counts the presses of a lost tick at the next received tick, exactly once', () => {
    const q = new ServerInputQueue(codec);
    const out = codec.defaults();
    q.receive(10, input(0, 3), 10);
    expect(q.tickInput(10, out).jump).toBe(3); // 3 − 0: counts start at 0
    // tick 11 (2 presses, count 5) is lost
    expect(q.tickInput(11, out).jump).toBe(0); // runs with tick 10 repeated: count 3 − 3
    q.receive(12, input(0, 6), 12); // 1 more press at 12
    expect(q.tickInput(12, out).jump).toBe(3); // 6 − 3 = tick 11's 2 + tick 12's 1
    expect(q.stats).toMatchObject({ received: 2, missing: 1, repeated: 1, neutral: 0 });
  });

  it('drops late copies, so a simulated tick never changes', () => {
    const q = new ServerInputQueue(codec);
    const out = codec.defaults();
    q.receive(20, input(0, 1), 20);
    q.tickInput(20, out);
    q.tickInput(21, out); // 21 missing: repeat of 20 (count 1)
    expect(q.receive(21, input(0.3, 4), 22)).toBe('late'); // arrives after 21 ran: dropped
    expect(q.receive(20, input(0, 1), 22)).toBe('duplicate'); // a redundant copy of a tick it had: not late
    expect(q.receive(22, input(0.3, 4), 22)).toBe('stored');
    expect(q.receive(22, input(0.3, 4), 22)).toBe('duplicate');
    expect(q.tickInput(22, out).jump).toBe(3); // 4 − 1: tick 21's presses counted once, here
    expect(q.inputFor(21).jump).toBe(1); // still what tick 21 ran with
    expect(q.stats).toMatchObject({ received: 2, late: 1, duplicates: 2, missing: 1 });
    expect(q.marginTicks).toBe(0); // newest input 22 arrived as the server was about to run 22
  });

  it('treats an input older than the server tick as late even before tickInput ran', () => {
    const q = new ServerInputQueue(codec);
    expect(q.receive(5, input(0, 1), 9)).toBe('late'); // the server is about to simulate 9
    expect(q.marginTicks).toBe(-4); // 5 − 9
    expect(q.receive(12, input(0, 1), 9)).toBe('stored');
    expect(q.marginTicks).toBe(3); // 12 − 9
  });

  it('drops inputs too far ahead of the server', () => {
    const q = new ServerInputQueue(codec, { capacity: 32, maxRepeatTicks: 8 });
    // the most lead kept is capacity − maxRepeatTicks − 2 = 22 ticks, exclusive
    expect(q.receive(121, input(0, 0), 100)).toBe('stored'); // 21 ahead
    expect(q.receive(122, input(0, 0), 100)).toBe('early'); // 22 ahead
    expect(q.stats.early).toBe(1);
    expect(() => new ServerInputQueue(codec, { capacity: 11, maxRepeatTicks: 8 })).toThrow(/>= maxRepeatTicks \+ 4 \(12\)/);
  });

  it('sanitizes what it stores and counts the fixes', () => {
    const q = new ServerInputQueue(codec);
    const bad = input(NaN, 0, 7); // move.x NaN → 0; aim 7 → max 1
    q.receive(1, bad, 1);
    const out = codec.defaults();
    q.tickInput(1, out);
    expect(out.move.x).toBe(0);
    expect(out.aim).toBe(1);
    expect(q.stats.clamped).toBe(2);
    expect(Number.isNaN(bad.move.x)).toBe(true); // the caller's object is copied, not changed
  });

  it('does not count as missing the ticks before the first input tick: the client starts its inputs ahead of the server', () => {
    const q = new ServerInputQueue(codec);
    const out = codec.defaults();
    // A client joins while the server is at tick 20 and predicts 11 ticks ahead: its first input is for tick 31.
    expect(q.receive(31, input(0.5, 0), 20)).toBe('stored');
    for (let t = 20; t <= 31; t++) q.tickInput(t, out);
    expect(q.stats.missing).toBe(0); // ticks 20..30 never had an input to miss
    q.tickInput(32, out); // its input for 32 did not come: that one is missing
    expect(q.stats).toMatchObject({ missing: 1, repeated: 1 }); // 32 ran with 31's input repeated
  });

  it('does not count missing ticks before the first input', () => {
    const q = new ServerInputQueue(codec);
    const out = codec.defaults();
    for (let t = 0; t < 5; t++) q.tickInput(t, out); // the client has not sent anything yet
    expect(q.stats.missing).toBe(0);
    expect(out).toEqual(codec.defaults());
    q.receive(5, input(0, 2), 5);
    expect(q.tickInput(5, out).jump).toBe(2);
  });

  it('keeps running counts across eviction and the tick wrap', () => {
    const q = new ServerInputQueue(codec, { capacity: 20, maxRepeatTicks: 2 });
    const out = codec.defaults();
    const start = 0xffff_fffe;
    let pressed = 0;
    for (let i = 0; i < 5; i++) {
      q.receive(tickAdd(start, i), input(0, i + 1), tickAdd(start, i)); // count 1..5
      pressed += q.tickInput(tickAdd(start, i), out).jump;
    }
    for (let i = 5; i < 61; i++) pressed += q.tickInput(tickAdd(start, i), out).jump; // silent for 56 ticks
    q.receive(tickAdd(start, 61), input(0, 7), tickAdd(start, 61)); // evicts every older input (61 − 20 = 41 > 4)
    pressed += q.tickInput(tickAdd(start, 61), out).jump;
    expect(pressed).toBe(7); // 5 + 2: the 2 new presses, not 7 counted from 0 again
    expect(q.stats).toMatchObject({ missing: 56, repeated: 2, neutral: 54 });
  });

  it('reuses its stored objects once full', () => {
    const q = new ServerInputQueue(codec, { capacity: 16, maxRepeatTicks: 8 });
    const out = codec.defaults();
    const seen = new Set<object>();
    for (let t = 0; t < 300; t++) {
      q.receive(t, input(0.01 * (t % 7), t), t);
      seen.add(q.inputFor(t));
      expect(q.tickInput(t, out)).toBe(out);
      expect(out.jump).toBe(t === 0 ? 0 : 1); // count t − (t − 1)
    }
    expect(seen.size).toBe(17); // 16 stored + the one taken from the pool before the oldest is evicted
  });

    it('reset() forgets a connection', () => {
    const q = new ServerInputQueue(codec);
    q.receive(3, input(0, 9), 3);
    q.tickInput(3, codec.defaults());
    q.reset();
    expect(q.newestTick).toBeUndefined();
    expect(q.receive(2, input(0, 1), 2)).toBe('stored'); // tick 3 no longer counts as simulated
    expect(q.tickInput(2, codec.defaults()).jump).toBe(1); // 1 − 0
  });
});
