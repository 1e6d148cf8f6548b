// @vitest-environment jsdom
// useNetStats and <NetGraph>: rates are the client's counters over each 250 ms
// window of injected time, the store keeps 10 s of samples, and the graph plots
// them with at most 4 re-renders per second.

import { act, cleanup, render } from '@testing-library/react';
import { Profiler, type ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { STATS_HISTORY_SAMPLES, STATS_INTERVAL_MS } from '../../src/react/store.ts';
import { createNetcode, NetGraph, type NetcodeContextValue, type NetcodeStoreState, type NetStats } from '../../src/react/index.ts';
import { StatsSampler } from '../../src/react/store.ts';
import type { NetClient, Protocol } from '../../src/index.ts';
import { arena, arenaSystems, type Arena } from '../helpers/arena.ts';
import { createHarness, FRAME_MS, quiet } from './harness.tsx';

afterEach(cleanup);

const { NetcodeProvider, useNetStats, useNetcode } = createNetcode(arena, arenaSystems);

describe('useNetStats and <NetGraph>', () => {
  it('samples the client counters every 250 ms and plots the last seconds', async () => {
    const h = createHarness(arena, arenaSystems);
    for (let i = 0; i < 20; i++) h.server.spawn('ball', { position: { x: i - 10, y: 0, z: 0 }, velocity: { x: 2, y: 0, z: 1 } });
    let ctx: NetcodeContextValue<Arena> | undefined;
    let stats: NetStats | undefined;
    let graphCommits = 0;
    function Hud(): ReactNode {
      ctx = useNetcode();
      stats = useNetStats();
      return null;
    }
    const view = await act(async () =>
      render(
        <NetcodeProvider transport={h.transport} join={{ name: 'ada' }} clientOptions={{ log: quiet }} clock={h.clock}>
          <Hud />
          <Profiler id="graph" onRender={() => void graphCommits++}>
            <NetGraph seconds={5} />
          </Profiler>
        </NetcodeProvider>,
      ),
    );
    // Byte counters after every step, by step time.
    const bytes = new Map<number, { in: number; out: number }>();
    ctx!.frame.onStep((now) => bytes.set(now, { in: ctx!.client.traffic.bytesIn, out: ctx!.client.traffic.bytesOut }));
    h.until(() => ctx!.client.status === 'in-game', 'in game');
    const commitsBefore = graphCommits;
    h.frames(64 * 4); // 4 s = 4 × 64 frames of 15.625 ms
    expect(graphCommits - commitsBefore).toBe(16); // 4000 ms / 250 ms = 16 samples → 16 re-renders (4 per second)

    const history = (ctx!.store.getState() as NetcodeStoreState).statsHistory;
    expect(history.length).toBeGreaterThanOrEqual(16);
    expect(history.length).toBeLessThanOrEqual(STATS_HISTORY_SAMPLES);
    const last = history.at(-1)!;
    const prev = history.at(-2)!;
    expect(last.at - prev.at).toBe(STATS_INTERVAL_MS); // 16 frames × 15.625 ms = 250 ms exactly
    expect(stats).toBe(last); // the hook returns the latest sample
    // Rate = bytes between the two samples / 0.25 s.
    expect(last.bytesInPerSec).toBeCloseTo((bytes.get(last.at)!.in - bytes.get(prev.at)!.in) / 0.25, 9);
    expect(last.bytesOutPerSec).toBeCloseTo((bytes.get(last.at)!.out - bytes.get(prev.at)!.out) / 0.25, 9);
    expect(last.bytesInPerSec).toBeGreaterThan(0); // snapshots of 20 moving balls (delta-coded) and pongs
    expect(last.rttMs).toBeGreaterThan(0);
    expect(last.rttMs).toBeLessThan(4 * FRAME_MS); // loopback: a reply within a frame or two, plus the server tick
    expect(last.correctionsPerSec).toBe(0); // balls are interpolated, nothing predicted to correct
    expect(last.missingInputsPerSec).toBe(0); // the loopback loses nothing
    expect(last.lateInputsPerSec).toBe(0);
    expect(last.resimulatedTicksPerSec).toBe(0);

    // The graph: one polyline per series, one point per sample inside the 5 s window (all 16 samples of the last 4 s, and older ones up to 5 s).
    const svg = view.container.querySelector('svg')!;
    const points = (series: string) => svg.querySelector(`polyline[data-series="${series}"]`)!.getAttribute('points')!.split(' ');
    const inWindow = history.filter((s) => s.at >= last.at - 5000).length;
    for (const series of ['rtt', 'in', 'out', 'corrections', 'inputs']) expect(points(series)).toHaveLength(inWindow);
    expect(view.container.querySelector('[data-label="inputs"]')!.textContent).toBe('inputs late 0.0/s missing 0.0/s');
    expect(points('in').at(-1)!.startsWith('200.0,')).toBe(true); // the newest sample at the right edge (width 200)
    expect(view.container.querySelector('[data-label="rtt"]')!.textContent).toBe(`RTT ${last.rttMs.toFixed(0)} ms ±${last.jitterMs.toFixed(0)}`);
  });
});

describe('StatsSampler', () => {
  it("turns the server's running reports on our inputs into late and missing inputs per second", () => {
    const reports = { late: 0, missing: 0 };
    const fake = {
      clock: { rttMs: 80, jitterMs: 4 },
      traffic: { bytesIn: 0, bytesOut: 0 },
      prediction: { stats: { corrections: 0, resimulatedTicks: 0 } },
      inputReports: reports,
    } as unknown as NetClient<Protocol>;
    const sampler = new StatsSampler(fake);
    sampler.sample(0);
    reports.late = 3;
    reports.missing = 12;
    expect(sampler.sample(100)).toBeUndefined(); // within the 250 ms window
    const s = sampler.sample(500)!;
    expect(s.lateInputsPerSec).toBeCloseTo(3 / 0.5, 9); // 3 late in 0.5 s = 6/s
    expect(s.missingInputsPerSec).toBeCloseTo(12 / 0.5, 9); // 24/s
    reports.late = reports.missing = 0; // a new session: the server's counts restart
    expect(sampler.sample(1000)!.missingInputsPerSec).toBe(0);
  });
});
