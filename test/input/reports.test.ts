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

  it('moves to the end of a problem window holding the tick, through the problem windows right after it, and holds after a clean report', () => {
    // Windows: [100,106) clean, [106,112) 3 missing, [112,118) 2 late + 4 missing, [118,124) clean, [124,130) 1 missing.
    const r = reports([[100, 0, 0], [106, 0, 0], [112, 0, 3], [118, 2, 7], [124, 2, 7], [130, 2, 8]]);
    expect(r.appliedBy(t(104))).toBe(104); // its window was clean
    expect(r.appliedBy(t(108))).toBe(118); // [106,112) then [112,118), then a clean window
    expect(r.appliedBy(t(112))).toBe(118);
    expect(r.appliedBy(t(120))).toBe(120);
    expect(r.appliedBy(t(126))).toBeUndefined(); // its window is the newest one and had a problem: not known yet
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
