import { describe, expect, it } from 'vitest';
import { FixedStepAccumulator } from '../../../src/core/clock/accumulator.ts';

const STEP = 1000 / 60;

describe('FixedStepAccumulator', () => {
  it('starts the clock on the first call and then counts whole steps', () => {
    const acc = new FixedStepAccumulator({ stepMs: STEP });
    expect(acc.advance(1000)).toBe(0);
    expect(acc.advance(1000 + STEP * 0.5)).toBe(0);
    expect(acc.fraction).toBeCloseTo(0.5, 9);
    expect(acc.advance(1000 + STEP * 2.25)).toBe(2); // 2.25 steps elapsed → 2 ticks, 0.25 left
    expect(acc.fraction).toBeCloseTo(0.25, 9);
  });

  it('runs exactly 60 ticks per second over a long run at an odd frame period', () => {
    const acc = new FixedStepAccumulator({ stepMs: STEP });
    let ticks = 0;
    acc.advance(0);
    for (let t = 7; t <= 60_000; t += 7) ticks += acc.advance(t); // 7 ms frames for 60 s
    // 60 s × 60 Hz = 3600 ticks; the last frame at 59,997 ms holds 3599.82 steps → 3599.
    expect(ticks).toBe(3599);
    expect(acc.overruns).toBe(0);
  });

  it('scales time', () => {
    const acc = new FixedStepAccumulator({ stepMs: 10, timeScale: 1.1, maxStepsPerAdvance: 20 });
    acc.advance(0);
    expect(acc.advance(100)).toBe(11); // 100 ms × 1.1 = 110 ms = 11 steps
    acc.timeScale = 0.9;
    expect(acc.advance(200)).toBe(9); // 100 ms × 0.9 = 90 ms = 9 steps
  });

  it('clamps catch-up after a stall and counts the overrun', () => {
    const acc = new FixedStepAccumulator({ stepMs: 10, maxStepsPerAdvance: 4 });
    acc.advance(0);
    expect(acc.advance(10_005)).toBe(4); // 1000.5 steps due, clamped to 4
    expect(acc.overruns).toBe(1);
    expect(acc.droppedSteps).toBe(996);
    expect(acc.fraction).toBeCloseTo(0.5, 9); // the backlog is dropped, the fraction kept
    expect(acc.advance(10_015)).toBe(1); // normal again: 1.5 steps → 1
    expect(acc.overruns).toBe(1);
  });

  it('ignores a clock that goes backwards and can be reset', () => {
    const acc = new FixedStepAccumulator({ stepMs: 10 });
    acc.advance(100);
    expect(acc.advance(50)).toBe(0);
    expect(acc.advance(60)).toBe(1); // 10 ms after the backwards reading
    acc.reset();
    expect(acc.advance(10_000)).toBe(0);
    expect(acc.msUntilNextStep()).toBe(10);
  });

  it('rejects a bad step', () => {
    expect(() => new FixedStepAccumulator({ stepMs: 0 })).toThrow(/react-netcode: stepMs/);
  });
});
