// The client's warning when unreliable messages were dropped unread (more than
// MAX_QUEUED_UNRELIABLE waited for the next frame, client-session.ts). Two causes look
// alike from the queue: frames that stopped (update(now) not called every frame, a hidden
// page not paused) and a burst that arrived between two on-time frames (a TCP link that
// stalled and then delivered everything it held at once). The time since the last frame,
// against the frame period before it, tells them apart; each is said once.

import { MAX_QUEUED_UNRELIABLE } from './client-inbox.ts';

/** Frames count as late when none ran for this many frame periods (and at least LATE_MIN_MS). */
const LATE_FRAMES = 3;
const LATE_MIN_MS = 100;

export class DroppedUnreadWarning {
  private lastFrameAt = Number.NaN;
  private frameMs = Number.NaN;
  private readonly said = new Set<'late' | 'burst' | 'unknown'>();

  constructor(private readonly warn: (message: string) => void) {}

  /** A frame ran at `now` (update(now)). */
  frame(now: number): void {
    if (now > this.lastFrameAt) this.frameMs = now - this.lastFrameAt;
    this.lastFrameAt = now;
  }

  /** `count` unreliable messages were dropped unread at `at` (the client's clock; NaN without its `now` option). */
  dropped(count: number, at: number, paused: boolean): void {
    if (paused) return; // a hidden page drops by design
    const since = at - this.lastFrameAt;
    const kind = !(since >= 0) || Number.isNaN(this.frameMs) ? 'unknown' : since > Math.max(LATE_FRAMES * this.frameMs, LATE_MIN_MS) ? 'late' : 'burst';
    if (this.said.has(kind)) return;
    this.said.add(kind);
    const head = `more than ${MAX_QUEUED_UNRELIABLE} unreliable messages waited for the next client.update(now); the oldest ${count} were dropped unread (as if lost)`;
    const advice = 'Call update(now) every frame (the React provider does), or setPaused(true) while the game is not shown.';
    if (kind === 'late') this.warn(`react-netcode: ${head}: update(now) last ran ${Math.round(since)} ms before, its frames came every ${Math.round(this.frameMs)} ms until then. ${advice}`);
    else if (kind === 'burst') {
      this.warn(
        `react-netcode: ${head}: they arrived at once, ${Math.round(since)} ms after a frame on time (frames every ${Math.round(this.frameMs)} ms), a burst such as a stalled link ` +
          'delivers when it recovers. Nothing to do after a network outage; if it recurs on a healthy link, something on the way holds messages back and releases them together (e.g. a buffering proxy).',
      );
    } else this.warn(`react-netcode: ${head}. ${advice} If it already does, a burst arrived at once (e.g. a stalled link recovering); pass the client option now to tell the two apart.`);
  }
}
