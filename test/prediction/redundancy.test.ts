// Input redundancy and slack over the Stepper: every Input packet repeats the newest
// 4 ticks and the clock runs the client `slack` ticks ahead of need, so lost packets
// cost the server no real input as long as a later copy still arrives before its tick;
// adaptive slack keeps late inputs rare under jitter with a bounded time scale.

import { describe, expect, it } from 'vitest';
import { dropInputs, FRAME_MS, inputRun, type InputStats, type RunOptions } from '../helpers/input-run.ts';

const WINDOW = 1800; // 30 s of client frames (one input packet per tick) with losses
const fixed = { latencyMs: 75 }; // 150 ms RTT, no jitter, no random loss: only the chosen packets go

/** Warm up 3 s, drop the chosen Input packets for 30 s, then 1 s without losses so every tick of the window is simulated. */
function lose(drop: (n: number) => boolean, engine: RunOptions['engine'] = {}) {
  // The bare mechanism: no extra slack after reports of missing inputs (maxMissSlackPackets: 0).
  const run = inputRun({ link: fixed, engine: { ...engine, clock: { maxMissSlackPackets: 0, ...engine?.clock } }, seed: 5 });
  const { s, c, client } = run;
  const dropper = dropInputs(c, drop);
  s.advance(1000); // 3 s after prediction started: clock and input margin have settled
  const before = run.stats();
  const rollbacks = client.prediction!.stats.rollbacks;
  dropper.enabled = true;
  for (let i = 0; i < WINDOW; i++) {
    client.input.current.move.x = Math.round(Math.sin(i / 20) * 100) / 100; // a real input: a different value nearly every tick
    s.advance(FRAME_MS);
  }
  dropper.enabled = false;
  s.advance(1000);
  return { d: run.since(before), sent: dropper.sent, dropped: dropper.dropped, rollbacks: client.prediction!.stats.rollbacks - rollbacks, client };
}

/** No tick of the window ran without its own input, and the prediction never had to roll back. */
function expectNoInputLost(r: { d: InputStats; sent: number; rollbacks: number }) {
  // One Input write per frame that predicted a tick: ≈ one per frame, less the few frames in which the
  // slewing clock (time scale 0.9–1.1) predicted no tick.
  expect(r.sent).toBeGreaterThanOrEqual(WINDOW - 15);
  expect(r.sent).toBeLessThanOrEqual(WINDOW);
  expect(r.d.missing).toBe(0); // every simulated tick had its own input
  expect(r.d.late).toBe(0); // and no copy came after its tick
  expect(r.rollbacks).toBe(0); // so the server ran exactly the inputs the client predicted with
}

describe('input redundancy (4 inputs per packet)', () => {
  it.each([
    ['every 2nd packet (the densest single losses)', 2, 900], // 1800 / 2
    ['every 5th packet', 5, 360], // 1800 / 5
  ])('default slack: a single lost Input packet never costs the server a real input — %s', (_label, k, lost) => {
    const r = lose((n) => n % k === 0);
    expect(r.client.clock.slackTicks).toBe(2); // the default minimum; no jitter to raise it
    expect(r.dropped).toBe(Math.ceil(r.sent / k)); // every k-th write, from write 0
    expect(Math.abs(r.dropped - lost)).toBeLessThanOrEqual(5); // ≈ 1800 / k
    expectNoInputLost(r);
  });

  it('contrast: with inputsPerPacket: 1 every single lost packet costs one input (the server repeats the previous one)', () => {
    const r = lose((n) => n % 5 === 0, { inputsPerPacket: 1 });
    expect(Math.abs(r.dropped - 360)).toBeLessThanOrEqual(1); // 1800 / 5
    expect(r.d.missing).toBe(r.dropped); // one tick without its input per lost packet
    expect(r.d.repeated).toBe(r.dropped); // each ran with the previous tick's input (gap 1 ≤ maxInputRepeatTicks 8)
    expect(r.rollbacks).toBeGreaterThan(0); // and the stick had moved, so the client mispredicted
  });

  it('slack raised to 5 ticks: any run of 3 consecutive lost Input packets costs the server no real input', () => {
    const r = lose((n) => n % 8 < 3, { clock: { minSlackTicks: 5 } }); // packets 0–2 of every 8 lost
    expect(r.client.clock.slackTicks).toBe(5);
    expect(Math.abs(r.dropped - 675)).toBeLessThanOrEqual(8); // 1800 / 8 × 3
    expectNoInputLost(r);
  });

  it('contrast: at the default slack of 2 ticks, runs of 3 lost packets do cost inputs (the 4th copy comes too late)', () => {
    const r = lose((n) => n % 8 < 3);
    expect(Math.abs(r.dropped - 675)).toBeLessThanOrEqual(8); // 1800 / 8 × 3
    // The input of the first tick of each run arrives 3 ticks late in the 4th packet: with ≈ 2 ticks of slack it misses its tick.
    expect(r.d.missing).toBeGreaterThan(0.5 * (WINDOW / 8)); // most of the 225 runs cost an input
    expect(r.d.late).toBeGreaterThan(0);
  });
});

describe('adaptive slack under jitter', () => {
  /** 3 s warm-up, then 60 s measured; timeScale sampled every frame. */
  function measure(loss: number, seed: number) {
    const { s, client, stats, since } = inputRun({ link: { latencyMs: 75, jitterMs: 20, loss }, seed });
    s.advance(1000); // inputRun ran 2 s after prediction started: 3 s of warm-up in all
    const before = stats();
    const tick0 = s.server.currentTick;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < 3600; i++) {
      s.advance(FRAME_MS);
      lo = Math.min(lo, client.clock.timeScale);
      hi = Math.max(hi, client.clock.timeScale);
    }
    return { d: since(before), ticks: s.server.currentTick - tick0, lo, hi, slack: client.clock.slackTicks };
  }

  it.each([1, 2, 9])('150 ms RTT ± 20 ms, no loss (seed %i): late inputs ≤ 0.1 % of ticks after a 3 s warm-up; time scale within 0.9–1.1', (seed) => {
    const { d, ticks, lo, hi, slack } = measure(0, seed);
    expect(ticks).toBeGreaterThanOrEqual(3599); // 60 s × 60 Hz (± one tick of frame phase)
    // The slack follows the inputs' own spread (the server's margin reports: one leg of ± 20 ms, σ ≈ 11.5 ms,
    // 2.5 σ ≈ 1.7 ticks), not the RTT's (two legs, 2.5 σ ≈ 3 ticks): about the minimum of 2, and no input is late.
    expect(slack).toBeGreaterThanOrEqual(2);
    expect(slack).toBeLessThan(2.6);
    expect(d.late / ticks).toBeLessThanOrEqual(0.001); // ≤ 3.6 late copies in 3600 ticks (0 seen)
    expect(d.missing).toBe(0); // no loss: every tick ran with its own input
    expect(lo).toBeGreaterThanOrEqual(0.9);
    expect(hi).toBeLessThanOrEqual(1.1);
    expect(lo).toBeLessThan(1); // the scale does steer (≈ 0.97–1.03 seen)
    expect(hi).toBeGreaterThan(1);
  });

  it('150 ms RTT ± 20 ms, 5 % loss: ticks run without their own input (late or lost) ≤ 0.1 % after warm-up; time scale within 0.9–1.1', () => {
    // `late` counts copies (a tick whose first copies were lost can have up to 3 late ones), so the
    // per-tick figure is `missing`: ticks that ran without their input because it came late or never.
    const { d, ticks, lo, hi } = measure(0.05, 9);
    expect(d.missing / ticks).toBeLessThanOrEqual(0.001); // ≤ 3.6 of 3600 ticks (0 seen)
    // The case is real: each tick travels in 4 packets, 5 % of them lost → ≈ 0.95 × 4 × 3600 = 13,680 copies
    // arrive instead of 14,400 (13,807 seen).
    expect(d.received + d.duplicates).toBeLessThan(0.97 * 4 * ticks);
    expect(d.received + d.duplicates).toBeGreaterThan(0.9 * 4 * ticks);
    expect(lo).toBeGreaterThanOrEqual(0.9);
    expect(hi).toBeLessThanOrEqual(1.1);
  });
});
