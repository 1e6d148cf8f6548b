// A correction's 'info' line: written to a logger that takes every level, not even built for
// one that lists its levels without 'info' (the default logger's case).
import { describe, expect, it } from 'vitest';
import { defineSystems, system, type Logger, type LogLevel } from '../../src/index.ts';
import { logs } from '../../src/core/emitter.ts';
import { createStepper } from '../../src/testing/index.ts';
import { runnerProtocol, runnerSystems } from '../helpers/runner.ts';

const push = defineSystems(runnerProtocol, [
  ...runnerSystems,
  system.server('push', (world, ctx) => {
    if (ctx.tick % 120 !== 60) return;
    for (const r of world.query('runner')) r.components.position.x += 0.5;
  }),
]);

function run(log: Logger): number {
  const s = createStepper({ protocol: runnerProtocol, systems: push, seed: 3, log, clients: [{ link: { up: { latencyMs: 50 }, down: { latencyMs: 50 } } }] });
  s.server.events.on('join', (c) => s.server.spawn('runner', {}, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  s.advance(6000);
  return s.clients[0]!.client.corrections.total;
}

describe('correction log lines', () => {
  it("go to a logger without levels, and are not built for one whose levels leave out 'info'", () => {
    const all: string[] = [];
    const corrected = run((level, m) => level === 'info' && m.startsWith('react-netcode: corrected ') && all.push(m));
    expect(corrected).toBeGreaterThan(0);
    expect(all).toHaveLength(corrected);
    expect(all[0]).toMatch(/^react-netcode: corrected runner#\d+ by [\d.]+ mm at tick \d+: [a-z-]+ \(.+\)$/);

    const seen: string[] = [];
    const warnOnly: Logger = Object.assign((_level: LogLevel, m: string) => void seen.push(m), { levels: ['warn', 'error'] as const });
    expect(logs(warnOnly, 'info')).toBe(false);
    expect(logs(warnOnly, 'warn')).toBe(true);
    expect(run(warnOnly)).toBe(corrected);
    expect(seen.filter((m) => m.startsWith('react-netcode: corrected '))).toEqual([]);
  });
});
