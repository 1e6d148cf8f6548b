// DelayLine reentrancy and record reuse: a sink that asks for what is due, closes the line or sends again
// while a delivery runs; pooled records reused within one deliverDue.
import { describe, expect, it } from 'vitest';
import { DelayLine } from '../../src/transport/delay-line.ts';
import { VirtualScheduler } from '../../src/transport/scheduler.ts';
import type { Scheduler } from '../../src/core/transport.ts';

/** A scheduler whose timers fire 1 s late (a busy page): only deliverDue delivers on time. */
function late(): { clock: VirtualScheduler; scheduler: Scheduler } {
  const clock = new VirtualScheduler();
  return { clock, scheduler: { now: () => clock.now(), setTimeout: (fn, ms) => clock.setTimeout(fn, ms + 1000), clearTimeout: (h) => clock.clearTimeout(h) } };
}

describe('DelayLine reentrancy', () => {
  it('a sink that calls deliverDue on the same line: each due packet once, in time order, nothing thrown', () => {
    const { clock, scheduler } = late();
    const got: number[] = [];
    let nested = true;
    const line: DelayLine = new DelayLine(scheduler, (data) => {
      got.push(data[0]!);
      if (nested) {
        nested = false;
        line.deliverDue(); // e.g. an inner transport whose send synchronously leads to another conditioned send
      }
    });
    for (const [at, v] of [[10, 1], [20, 2], [30, 3], [40, 4]] as const) line.push(at, Uint8Array.of(v), 'unreliable');
    clock.advanceTo(35);
    expect(() => line.deliverDue()).not.toThrow();
    expect(got).toEqual([1, 2, 3]);
    clock.advanceTo(2000);
    expect(got).toEqual([1, 2, 3, 4]);
  });

  it('a sink that cancels and pushes again: the reused records are not delivered by the running deliverDue', () => {
    const { clock, scheduler } = late();
    const got: number[] = [];
    let first = true;
    const line: DelayLine = new DelayLine(scheduler, (data) => {
      got.push(data[0]!);
      if (first) {
        first = false;
        line.cancel(); // the link closed; a new connection sends at once
        line.push(100, Uint8Array.of(7), 'unreliable');
        line.push(100, Uint8Array.of(8), 'unreliable');
      }
    });
    for (const [at, v] of [[10, 1], [20, 2], [30, 3]] as const) line.push(at, Uint8Array.of(v), 'unreliable');
    clock.advanceTo(35);
    line.deliverDue();
    expect(got).toEqual([1]);
    clock.advanceTo(100);
    line.deliverDue();
    expect(got).toEqual([1, 7, 8]);
    clock.advanceTo(5000);
    expect(got).toEqual([1, 7, 8]); // their late timers were cleared
  });

  it('a sink that sends again from a timer: the record just freed carries the new packet at its own time', () => {
    const clock = new VirtualScheduler();
    const got: [number, number][] = [];
    const line: DelayLine = new DelayLine(clock, (data) => {
      got.push([clock.now(), data[0]!]);
      if (data[0]! < 3) line.push(clock.now() + 10, Uint8Array.of(data[0]! + 1), 'unreliable');
    });
    line.push(5, Uint8Array.of(0), 'unreliable');
    clock.advanceTo(100);
    expect(got).toEqual([[5, 0], [15, 1], [25, 2], [35, 3]]);
  });
});
