// Load harness, server process side: what the netcode and the raw server share. A
// RunningServer is one server started by a `start` request (server-process.ts routes
// the requests to it). `timedScheduler` wraps the library's scheduler to record the
// loop's stalls; `SocketCounter` sums the TCP bytes of every socket an HTTP server
// accepted (socket.io and WebSocket framing included), for bytes-on-the-wire figures.
import type { Socket } from 'node:net';
import type { Scheduler } from '../../src/core/transport.ts';
import type { Endpoint } from './ccu/rooms.ts';
import type { ServerReport } from './ipc.ts';
import { wallNow, type GapRecorder } from './measure.ts';

export interface RunningServer {
  readonly port: number;
  /** Servers of several endpoints (the ccu bench's rooms): where each room is. */
  readonly endpoints?: readonly Endpoint[];
  mark(): void;
  quiesce(): void;
  report(): ServerReport;
  stop(): Promise<void>;
}

/** `inner` with every timer callback noted in `gaps` (expected: the delay it was set with). */
export function timedScheduler(inner: Scheduler, gaps: GapRecorder): Scheduler {
  return {
    now: () => inner.now(),
    setTimeout: (fn, delayMs) =>
      inner.setTimeout(() => {
        gaps.note(wallNow(), delayMs);
        fn();
      }, delayMs),
    clearTimeout: (handle) => inner.clearTimeout(handle),
  };
}

export class SocketCounter {
  /** Open sockets; a closed one's bytes move into `closed` and it is let go (a flood of short-lived sockets retains nothing). */
  private readonly sockets = new Set<Socket>();
  private readonly closed = { bytesRead: 0, bytesWritten: 0 };
  private base = { bytesRead: 0, bytesWritten: 0 };

  /** `http`: any server emitting 'connection' with a net.Socket (http, https, http2). */
  constructor(http: { on(event: 'connection', listener: (socket: Socket) => void): unknown } | undefined) {
    http?.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => {
        this.closed.bytesRead += socket.bytesRead;
        this.closed.bytesWritten += socket.bytesWritten;
        this.sockets.delete(socket);
      });
    });
  }

  /** Bytes so far over every socket ever accepted (closed ones keep their counts). */
  total(): { bytesRead: number; bytesWritten: number } {
    let bytesRead = this.closed.bytesRead;
    let bytesWritten = this.closed.bytesWritten;
    for (const s of this.sockets) {
      bytesRead += s.bytesRead;
      bytesWritten += s.bytesWritten;
    }
    return { bytesRead, bytesWritten };
  }

  mark(): void {
    this.base = this.total();
  }

  sinceMark(): { bytesRead: number; bytesWritten: number } {
    const t = this.total();
    return { bytesRead: t.bytesRead - this.base.bytesRead, bytesWritten: t.bytesWritten - this.base.bytesWritten };
  }
}

/** A logger collecting warnings and errors (with the time they were logged) for the report. */
export function collectWarnings(): { log: (level: string, message: string) => void; since: (at: number) => string[] } {
  const seen: { at: number; message: string }[] = [];
  return {
    log: (level, message) => {
      if ((level === 'warn' || level === 'error') && seen.length < 200) seen.push({ at: wallNow(), message: `${level}: ${message}` });
    },
    since: (at) => seen.filter((w) => w.at >= at).map((w) => w.message),
  };
}
