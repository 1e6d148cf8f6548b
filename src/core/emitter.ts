// A minimal typed event emitter for UI-rate lifecycle events (connect, join,
// leave, status). Listeners are called synchronously in subscription order; a
// throwing listener is reported and does not stop the others.

export type EventMap = Record<string, (...args: never[]) => void>;

export class Emitter<E extends EventMap> {
  private readonly listeners = new Map<keyof E, Set<E[keyof E]>>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => {}) {}

  /** Subscribe; returns the unsubscribe function. */
  on<K extends keyof E>(event: K, listener: E[K]): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  emit<K extends keyof E>(event: K, ...args: Parameters<E[K]>): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as (...a: Parameters<E[K]>) => void)(...args);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  /** Number of listeners across all events (used by leak tests). */
  get listenerCount(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  clear(): void {
    this.listeners.clear();
  }
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Logger = (level: LogLevel, message: string) => void;

/** Default logger: warnings and errors to the console, nothing else. */
export const consoleLogger: Logger = (level, message) => {
  if (level === 'error') console.error(message);
  else if (level === 'warn') console.warn(message);
};
