// Rate-limited logging for what a hostile or buggy peer can trigger at will (malformed
// messages, limits exceeded, a system that throws every tick): at most a few lines per
// key and window, then one line saying how many were left out.

import type { Logger, LogLevel } from './emitter.ts';

interface Window {
  start: number;
  logged: number;
  suppressed: number;
  level: LogLevel;
}

/** Default: at most 5 lines per key every 10 s. */
export const LOG_LIMIT_PER_WINDOW = 5;
export const LOG_LIMIT_WINDOW_MS = 10_000;

export class LogLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly write: Logger,
    private readonly perWindow = LOG_LIMIT_PER_WINDOW,
    private readonly windowMs = LOG_LIMIT_WINDOW_MS,
  ) {}

  /** Log `message` unless `key` (a small fixed set: a kind of problem, a system's name) already logged `perWindow` lines in this window. */
  log(level: LogLevel, key: string, message: string, now: number): void {
    let w = this.windows.get(key);
    if (w === undefined) this.windows.set(key, (w = { start: now, logged: 0, suppressed: 0, level }));
    if (now - w.start >= this.windowMs || now < w.start) this.restart(key, w, now);
    if (w.logged < this.perWindow) {
      w.logged++;
      this.write(level, message);
    } else {
      w.suppressed++;
      w.level = level;
    }
  }

  /**
   * A logger that writes through this limiter, each message keyed by its shape (`prefix`, then the message with its
   * numbers left out): the same message from many sources (one per room) is limited as one. Keeps `log`'s levels.
   */
  byShape(prefix: string, log: Logger, now: () => number): Logger {
    const shape = (m: string): string => `${prefix}: ${m.replace(/\d[\d.]*/g, '#').slice(0, 72)}`;
    const write = (level: LogLevel, m: string): void => this.log(level, shape(m), m, now());
    return Object.assign(write, log.levels === undefined ? {} : { levels: log.levels });
  }

  /** Call now and then (the server: once a second): reports what ended windows left out. */
  flush(now: number): void {
    for (const [key, w] of this.windows) if (w.suppressed > 0 && now - w.start >= this.windowMs) this.restart(key, w, now);
  }

  private restart(key: string, w: Window, now: number): void {
    if (w.suppressed > 0) this.write(w.level, `react-netcode: ${w.suppressed} more "${key}" messages were not logged in the last ${Math.round((now - w.start) / 1000)} s (at most ${this.perWindow} per ${this.windowMs / 1000} s).`);
    w.start = now;
    w.logged = 0;
    w.suppressed = 0;
  }
}
