// Tick: the uint32 simulation tick shared by server and clients. Ticks wrap at
// 2^32 (about 2.3 years at 60 Hz, but a server may start at any value), so every
// comparison and difference goes through these helpers, never `<` or `-`.

/** A uint32 simulation tick. Compare with `isNewer`/`tickDiff`, never with `<`. */
export type Tick = number;

const TICK_MOD = 0x1_0000_0000;

/** Normalise any integer to a uint32 tick. */
export function toTick(value: number): Tick {
  return value >>> 0;
}

/** `a + n` (n may be negative), wrapped to uint32. */
export function tickAdd(a: Tick, n: number): Tick {
  return (((a + n) % TICK_MOD) + TICK_MOD) % TICK_MOD >>> 0;
}

/** Signed distance `a - b` in ticks, in [-2^31, 2^31): correct across the wrap as long as the ticks are less than 2^31 apart. */
export function tickDiff(a: Tick, b: Tick): number {
  return ((a - b) | 0);
}

/** True when `a` is strictly newer (later) than `b`, wrap-safe. */
export function isNewer(a: Tick, b: Tick): boolean {
  return tickDiff(a, b) > 0;
}

/** True when `a` is `b` or newer. */
export function isNewerOrEqual(a: Tick, b: Tick): boolean {
  return tickDiff(a, b) >= 0;
}

/** The newer of two ticks. */
export function newestTick(a: Tick, b: Tick): Tick {
  return isNewer(a, b) ? a : b;
}

/** The older of two ticks. */
export function oldestTick(a: Tick, b: Tick): Tick {
  return isNewer(a, b) ? b : a;
}
