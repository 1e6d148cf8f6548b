// The client's drop watch: a session whose link dropped is resumed or closed inside `client.update(now)`,
// so when frames stop (an app that stopped its loop) nothing would ever close it. Armed on the transport's
// close callback, it waits the resume grace; if frames still run by then it waits three of their mean gaps
// (at least DROP_WATCH_RECHECK_MS, so a 1 fps loop is not taken for a stopped one) and lets the next frame
// end the session on the app's clock; if none ran, it ends the session itself. A paused client (a hidden
// page) is left to its frames when it is back.

import { DROP_WATCH_RECHECK_MS } from './reconnect.ts';
import { watchOnce } from './watch.ts';

/** What the watch reads of its session. */
export interface DropWatchSession {
  /** Frames (`receive`) run so far. */
  frames(): number;
  closed(): boolean;
  /** Paused now, or at some time since the drop: the frames decide when it is back. */
  paused(): boolean;
  /** The watch saw the client paused. */
  sawPaused(): void;
  /** No frame ran for `waitedMs`: end the session. */
  expire(waitedMs: number): void;
}

export class DropWatch {
  /** Cancels the armed timer; undefined when none is armed. */
  private stop: (() => void) | undefined;

  constructor(private readonly session: DropWatchSession) {}

  /** Armed for a drop now. */
  get armed(): boolean {
    return this.stop !== undefined;
  }

  /** Arm for a drop, `graceMs` from now. Once per drop: the failed attempts of a resume do not restart it. */
  arm(graceMs: number): void {
    if (this.stop !== undefined) return;
    const s = this.session;
    let seen = s.frames();
    let waited = graceMs;
    const check = (): void => {
      if (s.closed()) return;
      if (s.paused()) {
        s.sawPaused();
        this.stop = undefined;
        return;
      }
      const ran = s.frames() - seen;
      if (ran > 0) {
        seen = s.frames();
        waited = Math.max(DROP_WATCH_RECHECK_MS, Math.ceil((3 * waited) / ran));
        this.stop = watchOnce(waited, check);
        return;
      }
      s.expire(waited);
    };
    this.stop = watchOnce(graceMs, check);
  }

  /** The drop is over (a Welcome, or the session ended). */
  cancel(): void {
    this.stop?.();
    this.stop = undefined;
  }
}
