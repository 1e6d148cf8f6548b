// Load harness: measuring on the real clock. `wallNow()` is one time base for every
// process of a run (the epoch in ms with sub-ms resolution, from each process's
// monotonic clock), so a stall measured in a client can be set beside a tick the
// server process ran. GapRecorder notes stalls: gaps between a loop's runs that
// exceed what the loop asked for. Percentiles of samples and of histograms.
import { performance } from 'node:perf_hooks';

/** Epoch milliseconds from the monotonic clock: comparable across the processes of one machine. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/** A stall: the loop did not run from `start` to `end` (wallNow ms) although it was due `excessMs` earlier. */
export interface Gap {
  start: number;
  end: number;
  /** How much longer than expected the gap was (ms). */
  excessMs: number;
}

/** Records the gaps of a loop that ran later than expected by more than `floorMs`. */
export class GapRecorder {
  readonly gaps: Gap[] = [];
  /** Largest excess seen (ms). */
  maxExcessMs = 0;
  runs = 0;
  private last: number | undefined;

  constructor(private readonly floorMs: number) {}

  /** The loop runs at `now` (wallNow); it had asked to run `expectedMs` after its previous run. */
  note(now: number, expectedMs: number): void {
    this.runs++;
    if (this.last !== undefined) {
      const excess = now - this.last - expectedMs;
      if (excess > this.maxExcessMs) this.maxExcessMs = excess;
      if (excess > this.floorMs) this.gaps.push({ start: this.last, end: now, excessMs: excess });
    }
    this.last = now;
  }

  /** Gaps that ended at or after `since`. */
  since(since: number): Gap[] {
    return this.gaps.filter((g) => g.end >= since);
  }
}

/** The p-quantile (0..1) of ascending `sorted` (nearest rank); NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** The p-quantile (0..1) of a histogram whose bucket i counts samples of value i (nearest rank); NaN when empty. */
export function histogramPercentile(histogram: ArrayLike<number>, p: number): number {
  let total = 0;
  for (let i = 0; i < histogram.length; i++) total += histogram[i]!;
  if (total === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!;
    if (seen >= rank) return i;
  }
  return histogram.length - 1;
}

/** `after − before`, bucket by bucket. */
export function histogramDelta(after: ArrayLike<number>, before: ArrayLike<number> | undefined): number[] {
  return Array.from({ length: after.length }, (_, i) => after[i]! - (before?.[i] ?? 0));
}

export const round = (value: number, digits: number): number => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

/** The q-quantile (0..1) of unsorted `values` (floor rank, as the per-frame benches report it); NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
