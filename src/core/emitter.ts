// A minimal typed event emitter for UI-rate lifecycle events (connect, join,
// leave, status). Listeners are called synchronously in subscription order; a
// throwing listener is reported and does not stop the others.

export type EventMap = Record<string, (...args: never[]) => void>;

/**
 * The listening side of an Emitter: what a game may call on `client.events` and `server.events`.
 * Emitting (and clearing) stays the engine's.
 */
export interface Listenable<E extends EventMap> {
  /** Subscribe; returns the unsubscribe function. */
  on<K extends keyof E>(event: K, listener: E[K]): () => void;
  /** Whether the event has a listener. */
  has(event: keyof E): boolean;
  /** Number of listeners across all events. */
  readonly listenerCount: number;
}

export class Emitter<E extends EventMap> implements Listenable<E> {
  /**
   * Per event its listeners in subscription order, each at most once. Copy-on-write: (un)subscribing
   * replaces the array, so an emit iterates the array it started with (a listener added during an
   * emit is not called by it, one removed still is) without copying it per emit.
   */
  private readonly listeners = new Map<keyof E, { list: readonly E[keyof E][] }>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => {}) {}

  /** Subscribe; returns the unsubscribe function. */
  on<K extends keyof E>(event: K, listener: E[K]): () => void {
    let entry = this.listeners.get(event);
    if (!entry) this.listeners.set(event, (entry = { list: [] }));
    if (!entry.list.includes(listener)) entry.list = [...entry.list, listener];
    const subscribed = entry;
    return () => {
      if (subscribed.list.includes(listener)) subscribed.list = subscribed.list.filter((l) => l !== listener);
    };
  }

  /** Whether the event has a listener (skip building an event nobody hears). */
  has(event: keyof E): boolean {
    const entry = this.listeners.get(event);
    return entry !== undefined && entry.list.length > 0;
  }

  emit<K extends keyof E>(event: K, ...args: Parameters<E[K]>): void;
  // Up to three arguments without a rest parameter or spread: no array per emit (events of the frame's hot paths).
  emit(event: keyof E, a?: unknown, b?: unknown, c?: unknown, ...more: never[]): void {
    const entry = this.listeners.get(event);
    if (entry === undefined) return;
    const list = entry.list; // copy-on-write: the listeners as the emit began
    const n = arguments.length - 1;
    for (let i = 0; i < list.length; i++) {
      const listener = list[i] as unknown as (...x: unknown[]) => void;
      try {
        if (n === 0) listener();
        else if (n === 1) listener(a);
        else if (n === 2) listener(a, b);
        else if (n === 3) listener(a, b, c);
        else listener(a, b, c, ...more);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  /** Number of listeners across all events (used by leak tests). */
  get listenerCount(): number {
    let n = 0;
    for (const entry of this.listeners.values()) n += entry.list.length;
    return n;
  }

  clear(): void {
    this.listeners.clear();
  }
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
/**
 * Where the library's messages go. A logger may list the `levels` it writes: messages of the other
 * levels that the library would build often (a correction's 'info' line) are then not built at all.
 * Without `levels` every message is passed in.
 */
export type Logger = ((level: LogLevel, message: string) => void) & { readonly levels?: readonly LogLevel[] };

/** Whether `log` writes messages of `level` (true unless it lists its `levels` without this one). */
export function logs(log: Logger, level: LogLevel): boolean {
  const levels = log.levels;
  return levels === undefined || levels.includes(level);
}

/** Default logger: warnings and errors to the console, nothing else. */
export const consoleLogger: Logger = Object.assign(
  (level: LogLevel, message: string): void => {
    if (level === 'error') console.error(message);
    else if (level === 'warn') console.warn(message);
  },
  { levels: ['warn', 'error'] as const },
);
