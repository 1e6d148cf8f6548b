import { describe, expect, it } from 'vitest';
import { field } from '../../../src/core/field.ts';
import { copyEvents, eventDelta, inputLayout, neutralInput, neutralInto, toTickInput } from '../../../src/core/input/events.ts';
import { compileSchema } from '../../../src/core/schema.ts';

const codec = compileSchema({
  move: field.vec2({ quantize: 100 }),
  sprint: field.bool(),
  jump: field.event(),
  fire: field.event(),
});

describe('eventDelta', () => {
  it('counts presses between two running counts', () => {
    expect(eventDelta(7, 4)).toBe(3); // 7 − 4
    expect(eventDelta(4, 4)).toBe(0);
  });

  it('is wrap-safe across 2^32', () => {
    expect(eventDelta(1, 0xffff_ffff)).toBe(2); // 0xffffffff → 0 → 1: two presses
    expect(eventDelta(0, 0xffff_fffd)).toBe(3); // (0 − 0xfffffffd) mod 2^32 = 3
  });

  it('never reports a negative or absurd count for a count that went backwards', () => {
    expect(eventDelta(4, 7)).toBe(0); // (4 − 7) mod 2^32 = 2^32 − 3 ≥ 2^31: backwards
    expect(eventDelta(0, 0x8000_0000)).toBe(0); // exactly 2^31 apart: backwards
    expect(eventDelta(0x7fff_ffff, 0)).toBe(0x7fff_ffff); // the largest forward step
  });
});

describe('toTickInput', () => {
  it('turns running counts into presses this tick and copies the rest', () => {
    const prev = { move: { x: 0, y: 0 }, sprint: false, jump: 10, fire: 3 };
    const cur = { move: { x: 0.5, y: -1 }, sprint: true, jump: 12, fire: 3 };
    const out = codec.defaults();
    const move = out.move;
    toTickInput(codec, cur, prev, out);
    expect(out).toEqual({ move: { x: 0.5, y: -1 }, sprint: true, jump: 2, fire: 0 }); // jump 12 − 10, fire 3 − 3
    expect(out.move).toBe(move); // copied into out's own vector, not aliased to cur's
    expect(out.move).not.toBe(cur.move);
  });

  it('counts 0 presses without a previous input', () => {
    const out = codec.defaults();
    toTickInput(codec, { move: { x: 1, y: 0 }, sprint: false, jump: 5, fire: 9 }, undefined, out);
    expect(out.jump).toBe(0);
    expect(out.fire).toBe(0);
    expect(out.move).toEqual({ x: 1, y: 0 });
  });

  it('may write over either input', () => {
    const prev = { move: { x: 0, y: 0 }, sprint: false, jump: 1, fire: 0 };
    const cur = { move: { x: 0.25, y: 0 }, sprint: true, jump: 4, fire: 2 };
    toTickInput(codec, cur, prev, prev);
    expect(prev).toEqual({ move: { x: 0.25, y: 0 }, sprint: true, jump: 3, fire: 2 }); // 4 − 1, 2 − 0
    const cur2 = { move: { x: 0.25, y: 0 }, sprint: true, jump: 9, fire: 2 };
    toTickInput(codec, cur2, { move: { x: 0, y: 0 }, sprint: false, jump: 5, fire: 2 }, cur2);
    expect(cur2.jump).toBe(4); // 9 − 5
  });
});

describe('neutralInto / copyEvents', () => {
  it('resets values but keeps running counts', () => {
    const v = { move: { x: 1, y: 1 }, sprint: true, jump: 41, fire: 2 };
    const move = v.move;
    neutralInto(codec, v);
    expect(v).toEqual({ move: { x: 0, y: 0 }, sprint: false, jump: 41, fire: 2 });
    expect(v.move).toBe(move);
  });

  it('copies only the event counts', () => {
    const to = codec.defaults();
    copyEvents(codec, { move: { x: 1, y: 1 }, sprint: true, jump: 6, fire: 7 }, to);
    expect(to).toEqual({ move: { x: 0, y: 0 }, sprint: false, jump: 6, fire: 7 });
  });

  it('splits the schema once per codec', () => {
    const layout = inputLayout(codec);
    expect(inputLayout(codec)).toBe(layout);
    expect(layout.events.map((e) => e.key)).toEqual(['jump', 'fire']);
    expect(layout.values.map((e) => e.key)).toEqual(['move', 'sprint']);
    const local = compileSchema({ a: field.u8(), b: field.u8({ replicated: false }) });
    expect(inputLayout(local).wire.map((e) => e.key)).toEqual(['a']);
  });

  it('caps presses per tick at the field’s maxPerTick (default 32) and counts each capped field', () => {
    const capped = compileSchema({ jump: field.event(), fire: field.event({ maxPerTick: 2 }) });
    const counter = { clamped: 0 };
    const out = capped.defaults();
    toTickInput(capped, { jump: 0x7fff_ffff, fire: 3 }, { jump: 0, fire: 0 }, out, counter);
    expect(out).toEqual({ jump: 32, fire: 2 }); // 2^31 − 1 → 32, 3 → 2
    expect(counter.clamped).toBe(2);
    toTickInput(capped, { jump: 40, fire: 2 }, { jump: 8, fire: 0 }, out, counter);
    expect(out).toEqual({ jump: 32, fire: 2 }); // exactly at the caps: 40 − 8 = 32, 2 − 0 = 2
    expect(counter.clamped).toBe(2);
    expect(() => field.event({ maxPerTick: 0 })).toThrow(/maxPerTick 0 is invalid/);
  });

  it('a neutral input obeys the bounds: the defaults are sanitized (u8 min 1 → 1, not 0)', () => {
    const bounded = compileSchema({ gear: field.u8({ min: 1, max: 5 }), move: field.vec2(), jump: field.event() });
    expect(neutralInput(bounded)).toEqual({ gear: 1, move: { x: 0, y: 0 }, jump: 0 });
    const v = { gear: 4, move: { x: 1, y: 0 }, jump: 7 };
    neutralInto(bounded, v);
    expect(v).toEqual({ gear: 1, move: { x: 0, y: 0 }, jump: 7 }); // presses kept
  });
});
