// A server created and never run (no start(), tick() or update(now) that ticks) warns once after
// RUN_WATCH_MS: its transport refuses or holds every client, which would otherwise wait silently.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createServer, defineProtocol, type Logger } from '../../src/index.ts';
import { RUN_WATCH_MS } from '../../src/core/server-loop.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';

const protocol = defineProtocol({ tickRate: 60 });

afterEach(() => void vi.useRealTimers());

/** A server on a loopback transport, with `act` done to it at once; the warnings it logs over a minute. */
function watch(act: (server: ReturnType<typeof createServer<typeof protocol>>) => void) {
  vi.useFakeTimers();
  const warnings: string[] = [];
  const log: Logger = (level, m) => void (level === 'warn' && warnings.push(m));
  const server = createServer({ protocol, transport: new LoopbackNetwork().server, log });
  act(server);
  vi.advanceTimersByTime(RUN_WATCH_MS - 1);
  const early = warnings.length;
  vi.advanceTimersByTime(60_000);
  return { early, warnings, timers: vi.getTimerCount() };
}

describe('a server that never runs', () => {
  it('says once, RUN_WATCH_MS after it was created, that clients stay connecting and what to call', () => {
    const r = watch(() => {});
    expect(r.early).toBe(0);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^react-netcode: this server was created 5 s ago and has not run/);
    expect(r.warnings[0]).toMatch(/server\.start\(\)/);
    expect(r.warnings[0]).toMatch(/'connecting'/);
    expect(r.timers).toBe(0);
  });

  it('says nothing once it ticked, was driven by update(now), or closed', () => {
    expect(watch((s) => s.tick()).warnings).toEqual([]);
    expect(watch((s) => {
      s.update(0);
      s.update(100); // 100 ms of its clock: it ticks
    }).warnings).toEqual([]);
    expect(watch((s) => s.close()).warnings).toEqual([]);
    expect(watch((s) => s.tick()).timers).toBe(0); // the watch's timer is cleared, not left to fire
  });
});
