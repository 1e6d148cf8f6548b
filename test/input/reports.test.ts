// InputReports.appliedBy: the server tick by which a press of ours had run, from the
// Pongs' running counts of late and missing inputs.

import { describe, expect, it } from 'vitest';
import { InputReports } from '../../src/core/input/index.ts';
import type { Tick } from '../../src/core/clock/tick.ts';

const t = (n: number) => n as Tick;

/** Pongs at the given server ticks, each with the running counts (late, missing) the server had then. */
function reports(pongs: [tick: number, late: number, missing: number][]): InputReports {
  const r = new InputReports();
  for (const [tick, late, missing] of pongs) r.onPong(late, missing, t(tick));
  return r;
}

describe('InputReports.appliedBy', () => {
  it('is the tick itself once a clean report covers it; undefined before any report covers it', () => {
    const r = reports([[100, 0, 0], [106, 0, 0]]);
    expect(r.appliedBy(t(103))).toBe(103);
    expect(r.appliedBy(t(106))).toBeUndefined(); // the newest report was written at 106: tick 106 not yet covered
    expect(new InputReports().appliedBy(t(5))).toBeUndefined();
  });

  it('moves to the end of a window whose ticks from the bound on may all have missed, through the windows right after it', () => {
    // Windows: [100,106) clean, [106,112) 6 of 6 missing, [112,118) 2 late + 6 of 6 missing, [118,124) clean, [124,130) 1 missing.
    const r = reports([[100, 0, 0], [106, 0, 0], [112, 0, 6], [118, 2, 12], [124, 2, 12], [130, 2, 13]]);
    expect(r.appliedBy(t(104))).toBe(104); // its window was clean
    expect(r.appliedBy(t(108))).toBe(118); // [106,112) then [112,118), then a clean window
    expect(r.appliedBy(t(112))).toBe(118);
    expect(r.appliedBy(t(120))).toBe(120);
    // 1 missing among the 4 ticks from 126 to 130: one of them ran with our input, so the press ran by 130.
    expect(r.appliedBy(t(126))).toBe(130);
  });

  it('stops at a window with fewer missing inputs than ticks from the bound on: steady losses still give a bound', () => {
    const pongs: [number, number, number][] = [[294, 0, 0]];
    for (let k = 1; k <= 20; k++) pongs.push([294 + 6 * k, 0, k]); // one missing input in every window of 6 ticks
    const r = reports(pongs);
    expect(r.appliedBy(t(300))).toBe(306);
    expect(r.appliedBy(t(390))).toBe(396);
    expect(r.appliedBy(t(404))).toBe(408); // in the window [402, 408)
    const allMissing = reports([[100, 0, 0], [106, 0, 6], [112, 0, 12]]); // every tick missed, up to the newest report
    expect(allMissing.appliedBy(t(101))).toBeUndefined();
  });

  it('undefined once the window of the tick has left the 32 reports kept', () => {
    const pongs: [number, number, number][] = [[100, 0, 0], [106, 0, 6]];
    for (let k = 1; k <= 32; k++) pongs.push([106 + 6 * k, 0, 6 + k]);
    const r = reports(pongs);
    expect(r.appliedBy(t(102))).toBeUndefined(); // its window [100,106) was dropped from the ring
    expect(r.appliedBy(t(290))).toBe(292); // 1 missing in [286, 292): one of 290, 291 ran with our input
  });

  it('late inputs alone do not move it: the tick of each was counted missing, in its window or an earlier one', () => {
    const r = reports([[100, 0, 0], [106, 0, 4], [112, 3, 4], [118, 4, 4]]);
    expect(r.appliedBy(t(102))).toBe(106);
    expect(r.appliedBy(t(108))).toBe(108);
    expect(r.appliedBy(t(113))).toBe(113);
  });

  it('wraps with the 16-bit counts and the 32-bit ticks', () => {
    const top = 0xffff_fff8;
    const r = reports([[top, 0xfffe, 0xffff], [top + 6, 0xfffe, 2], [4, 0xfffe, 2]]); // 3 missing in [top, top + 6)
    expect(r.missing).toBe(0xffff + 3);
    expect(r.appliedBy(t(top + 2))).toBe(top + 6);
    expect(r.appliedBy(t(top + 7))).toBe(top + 7);
  });
});
