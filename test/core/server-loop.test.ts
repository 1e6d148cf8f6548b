// The server's fixed-step loop on an injected monotonic clock: tick rate from the
// clock (not the timer period), clamped catch-up with a warning, tick-time stats.

import { describe, expect, it } from 'vitest';
import { createServer, defineProtocol, defineSystems, system, type Scheduler } from '../../src/index.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';

const protocol = defineProtocol({ tickRate: 60 });

/** A clock the test moves by hand; setTimeout only records the wake-up. */
function manualScheduler() {
  const s = {
    time: 0,
    wake: undefined as (() => void) | undefined,
    wakes: 0,
    lastDelay: -1,
    now: () => s.time,
    setTimeout: (fn: () => void, delay: number) => {
      s.wake = fn;
      s.lastDelay = delay;
      return 1;
    },
    clearTimeout: () => {
      s.wake = undefined;
    },
    /** Fire the pending wake-up at time `t` (a timer that fires late, as Node's do). */
    fireAt(t: number) {
      s.time = t;
      const fn = s.wake;
      s.wake = undefined;
      s.wakes++;
      fn?.();
    },
  };
  return s satisfies Scheduler & Record<string, unknown>;
}

describe('server loop', () => {
  it('ticks at the clock’s rate whatever the timer period (16.3 ms timers still give 60 Hz)', () => {
    const clock = manualScheduler();
    const server = createServer({ protocol, transport: new LoopbackNetwork().server, scheduler: clock, log: () => {} });
    server.start();
    for (let t = 16.3; t <= 60_000; t += 16.3) clock.fireAt(t); // Node's setInterval(1000/60) cadence
    // 60 s at 60 Hz = 3600 ticks; the last wake at 59,995.5 ms holds 3599.7 steps → 3599 ticks.
    expect(server.currentTick).toBe(3599);
    expect(server.stats.overruns).toBe(0);
    server.stop();
    expect(clock.wake).toBeUndefined();
  });

  it('clamps catch-up after a stall, warns, and counts the overrun', () => {
    const clock = manualScheduler();
    const warnings: string[] = [];
    const server = createServer({ protocol, transport: new LoopbackNetwork().server, scheduler: clock, maxCatchUpTicks: 8, log: (level, m) => level === 'warn' && warnings.push(m) });
    server.start();
    clock.fireAt(100); // 6 ticks due, but the loop was away 100 ms (> 50): it yields to I/O once first
    expect(server.currentTick).toBe(0);
    expect(clock.lastDelay).toBe(0); // … and comes back at once
    clock.fireAt(100);
    expect(server.currentTick).toBe(6);
    clock.fireAt(2100); // a 2 s stall: 120 ticks due, clamped to 8 (after the yield)
    clock.fireAt(2100);
    expect(server.currentTick).toBe(14);
    expect(server.stats.overruns).toBe(1);
    expect(server.stats.droppedTicks).toBe(112); // 120 − 8
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^react-netcode: server tick loop fell behind; dropped 112 ticks/);
    // Ticks cost nothing here (the clock does not move inside a tick): the process was starved, not the simulation slow.
    expect(warnings[0]).toMatch(/starved or its timer fired late: the loop did not run for 2000 ms while ticks take 0\.00 ms/);
    clock.fireAt(2200); // a second overrun within 5 s is counted but not logged again
    clock.fireAt(2200);
    clock.fireAt(4300);
    clock.fireAt(4300);
    expect(server.stats.overruns).toBe(2);
    expect(warnings).toHaveLength(1);
  });

  it('tells a slow simulation apart: ticks that take most of their budget', () => {
    const clock = manualScheduler();
    const warnings: string[] = [];
    // Every tick costs 20 ms of clock time (budget 16.7 ms): the loop can never keep up.
    const systems = defineSystems(protocol, [system.server('heavy', () => void (clock.time += 20))]);
    const server = createServer({ protocol, systems, transport: new LoopbackNetwork().server, scheduler: clock, maxCatchUpTicks: 8, log: (level, m) => level === 'warn' && warnings.push(m) });
    server.start();
    for (let i = 0; i < 40 && warnings.length === 0; i++) clock.fireAt(clock.time + 200);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatch(/The simulation is too slow for tickRate 60: ticks take 20\.00 ms on average/);
  });

  it('blames a stall right after start() on startup work, not on one cold first tick (an empty world)', () => {
    const clock = manualScheduler();
    const warnings: string[] = [];
    let first = true;
    // The first tick costs 30 ms (cold code), every other one nothing: the world is empty.
    const systems = defineSystems(protocol, [system.server('cold', () => void (first && ((first = false), (clock.time += 30))))]);
    const server = createServer({ protocol, systems, transport: new LoopbackNetwork().server, scheduler: clock, log: (level, m) => level === 'warn' && warnings.push(m) });
    server.start();
    clock.fireAt(20); // one tick, the cold one
    clock.fireAt(3000); // then the process blocks for ~3 s (the app's startup work after start())
    clock.fireAt(3000);
    expect(server.stats.overruns).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toMatch(/too slow/);
    expect(warnings[0]).toMatch(/starved or its timer fired late: the loop did not run for 2980 ms while ticks take 3\.33 ms on average \(p99 30\.00 ms over 9 ticks\)/);
    expect(warnings[0]).toMatch(/right after start\(\): call start\(\) once the startup work .* is done\.$/);
  });

  it('after a stall it catches up the owed ticks over several loop turns, up to maxCatchUpTicks (2 s by default)', () => {
    const clock = manualScheduler();
    const server = createServer({ protocol, transport: new LoopbackNetwork().server, scheduler: clock, log: () => {} });
    server.start();
    clock.fireAt(1500); // a 1.5 s stall: 90 ticks owed
    clock.fireAt(1500); // (the yield to I/O)
    expect(server.currentTick).toBe(8); // 8 per loop turn …
    expect(clock.lastDelay).toBe(1); // … the next turn 1 ms later
    for (let t = 1501; server.currentTick < 90 && t < 1600; t++) clock.fireAt(t);
    expect(server.currentTick).toBeGreaterThanOrEqual(90); // all 90 caught up within ~12 turns
    expect(server.stats.droppedTicks).toBe(0);
  });

  it('reports mean, p99 and max tick time', () => {
    const clock = manualScheduler();
    let n = 0;
    // Each tick "costs" 1 ms of clock time, every 50th costs 5 ms (12 of 600 ticks, 2 %).
    const systems = defineSystems(protocol, [system.server('work', () => void (clock.time += ++n % 50 === 0 ? 5 : 1))]);
    const server = createServer({ protocol, systems, transport: new LoopbackNetwork().server, scheduler: clock, log: () => {} });
    for (let i = 0; i < 600; i++) server.tick();
    const stats = server.stats;
    expect(stats.ticks).toBe(600);
    expect(stats.meanMs).toBeCloseTo((588 * 1 + 12 * 5) / 600, 9); // 1.08 ms
    expect(stats.p99Ms).toBe(5); // rank ceil(0.99 × 600) = 594 of the sorted times; ranks 589–600 are the 5 ms ticks
    expect(stats.maxMs).toBe(5);
  });
});
