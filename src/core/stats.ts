// Tick-time statistics for monitoring the server loop: mean, p99 and max over a
// rolling window, plus overrun counts. Recording is allocation-free; the summary
// (p99 needs a sort) is computed only when asked for.

export interface TickStats {
  /** Ticks simulated since start. */
  ticks: number;
  /** Mean tick duration over the window, ms. */
  meanMs: number;
  /** 99th percentile tick duration over the window, ms. */
  p99Ms: number;
  maxMs: number;
  /** Times the loop fell behind and dropped ticks (clamped catch-up). */
  overruns: number;
  /** Ticks dropped by clamping. */
  droppedTicks: number;
}

export class TickTimer {
  private readonly samples: Float64Array;
  private cursor = 0;
  private filled = 0;
  ticks = 0;

  constructor(windowSize = 600) {
    this.samples = new Float64Array(windowSize);
  }

  record(ms: number): void {
    this.samples[this.cursor] = ms;
    this.cursor = (this.cursor + 1) % this.samples.length;
    if (this.filled < this.samples.length) this.filled++;
    this.ticks++;
  }

  summary(overruns: number, droppedTicks: number): TickStats {
    const n = this.filled;
    if (n === 0) return { ticks: this.ticks, meanMs: 0, p99Ms: 0, maxMs: 0, overruns, droppedTicks };
    const sorted = Array.from(this.samples.subarray(0, n)).sort((a, b) => a - b);
    let sum = 0;
    for (const v of sorted) sum += v;
    return {
      ticks: this.ticks,
      meanMs: sum / n,
      p99Ms: sorted[Math.min(n - 1, Math.ceil(n * 0.99) - 1)]!,
      maxMs: sorted[n - 1]!,
      overruns,
      droppedTicks,
    };
  }
}
