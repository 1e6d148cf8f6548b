import { describe, expect, it } from 'vitest';
import { NetcodeError } from '../../../src/core/errors.ts';
import { field } from '../../../src/core/field.ts';
import { InputBuffer } from '../../../src/core/input/buffer.ts';
import { compileSchema } from '../../../src/core/schema.ts';
import { tickAdd } from '../../../src/core/clock/tick.ts';

const codec = compileSchema({
  move: field.vec2({ quantize: 100, maxLength: 1 }),
  aim: field.f32({ min: -1, max: 1 }),
  jump: field.event(),
  fire: field.event(),
});

describe('InputBuffer', () => {
  it('presses increment running counts, and commit snapshots the live input', () => {
    const b = new InputBuffer(codec);
    b.current.move.x = 0.5;
    b.press('jump');
    b.press('jump', 2);
    const v = b.commit(100);
    expect(v).toEqual({ move: { x: 0.5, y: 0 }, aim: 0, jump: 3, fire: 0 }); // 1 + 2 presses
    expect(b.get(100)).toBe(v);
    expect(v).not.toBe(b.current);
    expect(v.move).not.toBe(b.current.move); // a copy: later edits of current do not leak in
    b.current.move.x = -1;
    expect(b.get(100)!.move.x).toBe(0.5);
    expect(b.newestTick).toBe(100);
  });

  it('commits values exactly as the server will see them', () => {
    const b = new InputBuffer(codec);
    b.current.move = { x: 0.7071, y: 0.7071 }; // length 0.99985 ≤ 1, but rounds to (0.71, 0.71), length 1.0041 > 1 → clamped onto the grid (0.70, 0.70)
    b.current.aim = NaN; // → default 0
    const v = b.commit(1);
    expect(v.move).toEqual({ x: 0.7, y: 0.7 });
    expect(v.aim).toBe(0);
    expect(b.clamped).toBe(1); // only aim was bad on entry; the post-rounding clamp is not the app's fault
  });

  it('wraps an event count at 2^32', () => {
    const b = new InputBuffer(codec);
    b.current.jump = 0xffff_fffe;
    b.commit(9);
    b.press('jump', 3); // 0xfffffffe + 3 = 2^32 + 1 → 1
    b.commit(10);
    expect(b.get(10)!.jump).toBe(1);
    const out = codec.defaults();
    expect(b.tickInput(10, out).jump).toBe(3); // presses between 0xfffffffe and 1
  });

  it('tickInput gives presses since the newest earlier committed tick, counting from 0', () => {
    const b = new InputBuffer(codec);
    const out = codec.defaults();
    b.press('fire');
    b.commit(50);
    expect(b.tickInput(50, out).fire).toBe(1); // 1 − 0: counts start at 0, like the server's queue
    b.press('fire', 2);
    b.commit(52); // tick 51 skipped
    expect(b.tickInput(52, out).fire).toBe(2); // 3 − 1 (tick 50's count)
    expect(() => b.tickInput(51, out)).toThrow(/commit\(tick\) before simulating/);
  });

  it('neutral() resets values but keeps running counts', () => {
    const b = new InputBuffer(codec);
    b.current.move.y = 1;
    b.current.aim = 0.5;
    b.press('jump', 4);
    b.neutral();
    expect(b.current).toEqual({ move: { x: 0, y: 0 }, aim: 0, jump: 4, fire: 0 });
  });

  it('press() refuses fields that are not events', () => {
    const b = new InputBuffer(codec);
    expect(() => b.press('aim')).toThrow(/needs a field.event\(\) input field/);
    // @ts-expect-error a vector field is not even a number
    expect(() => b.press('move')).toThrow(NetcodeError);
    expect(() => b.press('jump', -1)).toThrow(NetcodeError);
    expect(() => b.press('jump', 1.5)).toThrow(/whole number/);
  });

  it('reuses its objects once full: no allocation in steady state', () => {
    const b = new InputBuffer(codec, 8);
    const seen = new Set<object>();
    const start = 0xffff_fffa; // crosses the tick wrap on the way
    for (let i = 0; i < 9; i++) seen.add(b.commit(tickAdd(start, i)));
    expect(seen.size).toBe(9); // 8 stored + 1 in flight while the 9th evicts the 1st
    for (let i = 9; i < 200; i++) {
      const v = b.commit(tickAdd(start, i));
      expect(seen.has(v)).toBe(true);
      expect(b.get(tickAdd(start, i))).toBe(v);
    }
    expect(seen.size).toBe(9);
    expect(b.get(tickAdd(start, 191))).toBeUndefined(); // newest 199 − capacity 8 = 191 evicted
    expect(b.get(tickAdd(start, 192))).toBeDefined();
  });

  it('re-committing a tick overwrites it in place', () => {
    const b = new InputBuffer(codec);
    const v = b.commit(5);
    b.current.aim = 0.25;
    expect(b.commit(5)).toBe(v);
    expect(v.aim).toBe(0.25);
  });

  it('refuses a tick older than its window and forgets everything on reset', () => {
    const b = new InputBuffer(codec, 4);
    b.commit(10);
    expect(() => b.commit(6)).toThrow(/commit ticks in order/); // 10 − 6 = 4 ≥ capacity 4
    b.press('jump', 5);
    b.commit(11);
    b.reset();
    expect(b.newestTick).toBeUndefined();
    expect(b.current.jump).toBe(0);
    b.press('jump');
    b.commit(20);
    expect(b.tickInput(20, codec.defaults()).jump).toBe(1); // 1 − 0 after reset, not 1 − 5
  });
});
