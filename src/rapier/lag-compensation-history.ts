// The pose history behind lag compensation: per ghost, a preallocated ring of
// `capacity` poses (position xyz + rotation quaternion xyzw) indexed by tick.
// Tracks are pooled: a ghost that appears takes one (or a new one when the pool is
// empty); a ghost that leaves gives it back. Recording a tick allocates nothing.

import { tickAdd, tickDiff, type Tick } from '../core/clock/tick.ts';

/** Numbers per pose: x, y, z, qx, qy, qz, qw. */
export const POSE_SIZE = 7;

/** Where a cast runs: a recorded tick, the fraction towards the next one, and whether the request was clamped into the window. */
export interface Rewind {
  tick: Tick;
  fraction: number;
  clamped: boolean;
}

/** One ghost's ring of poses; slot `tick % capacity` is valid when its stamp equals `tick`. */
export class PoseTrack<G> {
  ghost: G | undefined;
  /** Index of the ghost's collider in the lag compensation's collider list. */
  collider = 0;
  /** The newest tick this ghost was recorded at. */
  seen: Tick = 0;
  readonly stamps: Float64Array;
  readonly poses: Float64Array;

  constructor(capacity: number) {
    this.stamps = new Float64Array(capacity).fill(-1);
    this.poses = new Float64Array(capacity * POSE_SIZE);
  }
}

export class PoseHistory<G extends { readonly id: number }> {
  /** Live tracks, one per ghost recorded at the newest tick. */
  readonly tracks: PoseTrack<G>[] = [];
  private readonly byId = new Map<number, PoseTrack<G>>();
  private readonly pool: PoseTrack<G>[] = [];
  private newest: Tick | undefined;
  private recorded = 0;

  constructor(readonly capacity: number) {}

  get newestTick(): Tick | undefined {
    return this.newest;
  }

  /** The oldest tick still in the window (recorded ticks are consecutive server ticks). */
  get oldestTick(): Tick | undefined {
    return this.newest === undefined ? undefined : tickAdd(this.newest, -(this.recorded - 1));
  }

  /** Start recording `tick` (the next server tick). */
  begin(tick: Tick): void {
    const gap = this.newest === undefined ? 0 : tickDiff(tick, this.newest);
    if (this.newest !== undefined && gap <= 0) this.clear(); // time went backwards: start over
    this.recorded = this.newest === undefined ? 1 : Math.min(this.capacity, this.recorded + gap);
    this.newest = tick >>> 0;
  }

  /** Record `ghost`'s pose at the tick given to `begin`. */
  record(ghost: G, collider: number, x: number, y: number, z: number, qx: number, qy: number, qz: number, qw: number): void {
    const tick = this.newest!;
    let track = this.byId.get(ghost.id);
    if (track !== undefined && track.ghost !== ghost) {
      this.release(track); // the id now names another ghost
      track = undefined;
    }
    if (track === undefined) {
      track = this.pool.pop() ?? new PoseTrack<G>(this.capacity);
      track.ghost = ghost;
      this.byId.set(ghost.id, track);
      this.tracks.push(track);
    }
    track.collider = collider;
    track.seen = tick;
    const slot = tick % this.capacity;
    track.stamps[slot] = tick;
    const p = track.poses;
    const at = slot * POSE_SIZE;
    p[at] = x;
    p[at + 1] = y;
    p[at + 2] = z;
    p[at + 3] = qx;
    p[at + 4] = qy;
    p[at + 5] = qz;
    p[at + 6] = qw;
  }

  /** Finish the tick: ghosts not recorded at it (despawned, or no longer a collider type) give their track back. */
  end(): void {
    for (let i = this.tracks.length - 1; i >= 0; i--) {
      const track = this.tracks[i]!;
      if (track.seen !== this.newest) this.release(track);
    }
  }

  /**
   * Clamp a view (tick + fraction) into the window: before it → the oldest tick; at or past the newest → the newest tick. False when
   * nothing is recorded.
   */
  rewind(tick: Tick, fraction: number, out: Rewind): boolean {
    const newest = this.newest;
    if (newest === undefined) return false;
    const f = fraction > 0 ? Math.min(fraction, 1) : 0;
    const back = tickDiff(newest, tick >>> 0);
    if (back >= this.recorded) {
      out.tick = this.oldestTick!;
      out.fraction = 0;
      out.clamped = true;
    } else if (back <= 0) {
      out.tick = newest;
      out.fraction = 0;
      out.clamped = back < 0 || f > 0;
    } else {
      out.tick = tick >>> 0;
      out.fraction = f;
      out.clamped = false;
    }
    return true;
  }

  /** Write the track's pose at `r` (blending `r.tick` and the next tick) to out[at..]; false when the ghost was not there at `r.tick`. */
  sample(track: PoseTrack<G>, r: Rewind, out: Float64Array, at = 0): boolean {
    const s0 = r.tick % this.capacity;
    if (track.stamps[s0] !== r.tick) return false;
    const p = track.poses;
    const a = s0 * POSE_SIZE;
    const next = tickAdd(r.tick, 1);
    const s1 = next % this.capacity;
    const t = r.fraction;
    if (t <= 0 || track.stamps[s1] !== next) {
      for (let i = 0; i < POSE_SIZE; i++) out[at + i] = p[a + i]!;
      return true;
    }
    const b = s1 * POSE_SIZE;
    for (let i = 0; i < 3; i++) out[at + i] = p[a + i]! * (1 - t) + p[b + i]! * t;
    // Rotation: normalized lerp on the shorter arc.
    const dot = p[a + 3]! * p[b + 3]! + p[a + 4]! * p[b + 4]! + p[a + 5]! * p[b + 5]! + p[a + 6]! * p[b + 6]!;
    const s = dot < 0 ? -t : t;
    let len = 0;
    for (let i = 3; i < POSE_SIZE; i++) {
      const v = p[a + i]! * (1 - t) + p[b + i]! * s;
      out[at + i] = v;
      len += v * v;
    }
    len = Math.sqrt(len);
    if (len > 0) for (let i = 3; i < POSE_SIZE; i++) out[at + i] = out[at + i]! / len;
    return true;
  }

  /** Forget everything; tracks go back to the pool. */
  clear(): void {
    for (let i = this.tracks.length - 1; i >= 0; i--) this.release(this.tracks[i]!);
    this.newest = undefined;
    this.recorded = 0;
  }

  private release(track: PoseTrack<G>): void {
    if (track.ghost !== undefined && this.byId.get(track.ghost.id) === track) this.byId.delete(track.ghost.id);
    const i = this.tracks.indexOf(track);
    if (i >= 0) {
      this.tracks[i] = this.tracks[this.tracks.length - 1]!;
      this.tracks.pop();
    }
    track.ghost = undefined;
    track.stamps.fill(-1);
    this.pool.push(track);
  }
}
