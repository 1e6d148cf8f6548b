// What a connection's client has of every ghost, as the server tracks it: the
// lifecycle (spawning → live → despawning), the two newest ACKED baselines, when
// it was last sent, and what each recent snapshot carried (to apply its ack).
// Connections in identical states share one GhostStates (see connection.ts).

import { HistoryBuffer } from '../history.ts';
import { isNewer as isNewerImport, isNewerOrEqual as isNewerOrEqualImport, type Tick } from '../tick.ts';
import type { GhostStore } from './store.ts';

// Module-local copies of the imports used per ghost (under CommonJS each use of an import is a getter call).
const isNewer = isNewerImport, isNewerOrEqual = isNewerOrEqualImport;

/** Ghost lifecycle per connection. */
export const ST_NONE = 0, ST_SPAWNING = 1, ST_LIVE = 2, ST_DESPAWNING = 3;
/** Record kinds in a sent snapshot (low 2 bits of an entry). */
export const REC_SPAWN = 0, REC_UPDATE = 1, REC_DESPAWN = 2;
/**
 * Sent snapshots remembered for acks, in ticks. An ack for an older snapshot is
 * ignored (the ghosts then keep older baselines): 128 ticks is 2 s at 60 Hz.
 */
export const ACK_WINDOW_TICKS = 128;
const W = ACK_WINDOW_TICKS;

/** What one sent snapshot carried: entries packed as dense << 9 | ringSlot << 2 | kind. Shared (refs) by cloned states. */
export class SentSnapshot {
  refs = 1;
  n = 0;
  entries: Uint32Array;

  constructor(capacity = 64) {
    this.entries = new Uint32Array(Math.max(64, capacity));
  }

  /** Room for `n` entries (kept ones stay). */
  reserve(n: number): void {
    if (this.entries.length >= n) return;
    const next = new Uint32Array(Math.max(n, this.entries.length * 2));
    next.set(this.entries.subarray(0, this.n));
    this.entries = next;
  }

  push(d: number, slot: number, kind: number): void {
    if (this.n === this.entries.length) {
      const next = new Uint32Array(this.n * 2);
      next.set(this.entries);
      this.entries = next;
    }
    this.entries[this.n++] = ((d << 9) | (slot << 2) | kind) >>> 0;
  }
}

function grown<A extends Int32Array | Uint8Array>(a: A, n: number): A {
  const b = new (a.constructor as new (n: number) => A)(n);
  b.set(a);
  return b;
}

function copy<A extends Int32Array | Uint8Array>(from: A, to: A): A {
  if (to.length < from.length) return from.slice() as A;
  to.set(from);
  return to;
}

/**
 * Per-ghost state of a connection, interleaved: the fields of dense index d sit at
 * g[d * G_STRIDE + G_*], so the encoder's pass over the ghost list reads one 32-byte
 * record per ghost (two ghosts per cache line) instead of eight separate arrays.
 * G_ST: ST_* state; G_SINCE: tick it began (older acks do not apply to it);
 * G_LAST_SENT: last tick a record was sent (valid when G_SENT_ANY is 1);
 * G_A0T / G_A0S: newest acked baseline (tick, ring slot or -1); G_A1T / G_A1S: the one before it.
 */
export const G_ST = 0, G_SINCE = 1, G_LAST_SENT = 2, G_SENT_ANY = 3, G_A0T = 4, G_A0S = 5, G_A1T = 6, G_A1S = 7, G_STRIDE = 8;

/** A fresh record: state NONE, no baselines. */
const G_EMPTY = Int32Array.of(ST_NONE, 0, 0, 0, 0, -1, 0, -1);

export class GhostStates {
  /** The per-ghost records (see G_*). */
  g = new Int32Array(0);
  /** Encode stamp when last in the ghost list; position in `known`. */
  seen = new Int32Array(0);
  pos = new Int32Array(0);
  /** Dense indices whose state is not NONE. */
  known = new Int32Array(16);
  knownCount = 0;
  stamp = 0;
  /**
   * Records no state refers to any more, for reuse: after one ack window of snapshots
   * (W / ticks per snapshot) an encode allocates nothing, and it refills records it
   * used recently (cache-warm) instead of touching new memory.
   */
  private readonly free: SentSnapshot[] = [];
  /** What each remembered snapshot carried; a record leaving the window is released. */
  readonly sent = new HistoryBuffer<SentSnapshot>(W, (rec) => {
    if (--rec.refs === 0) this.free.push(rec);
  });
  /** Acked snapshot ticks, by tick % W. */
  ackedTick = new Int32Array(W);
  ackedOk = new Uint8Array(W);
  lastTick: Tick = 0;
  hasEncoded = false;

  /** Grow the per-ghost arrays to the store's capacity. */
  ensure(cap: number): void {
    if (this.seen.length >= cap) return;
    const g = new Int32Array(cap * G_STRIDE);
    g.set(this.g);
    for (let o = this.g.length; o < g.length; o += G_STRIDE) g.set(G_EMPTY, o);
    this.g = g;
    this.seen = grown(this.seen, cap);
    this.pos = grown(this.pos, cap);
  }

  /** Copy everything but the sent records into `to` (reusing its arrays). */
  copyInto(to: GhostStates): void {
    to.g = copy(this.g, to.g);
    to.seen = copy(this.seen, to.seen);
    to.pos = copy(this.pos, to.pos);
    to.known = copy(this.known, to.known);
    to.knownCount = this.knownCount;
    to.stamp = this.stamp;
    to.ackedTick.set(this.ackedTick);
    to.ackedOk.set(this.ackedOk);
    to.lastTick = this.lastTick;
    to.hasEncoded = this.hasEncoded;
  }

  /** Share the sent records of `from` except the one at `skip` (refs counted). */
  shareSent(from: GhostStates, skip: Tick): void {
    from.sent.forEach((rec, t) => {
      if (t === skip) return;
      rec.refs++;
      this.sent.set(t, rec);
    });
  }

  isAcked(tick: Tick): boolean {
    const i = tick % W;
    return this.ackedOk[i] === 1 && this.ackedTick[i] === (tick | 0);
  }

  /**
   * The record to fill for a snapshot at `tick` (a released one when there is one, else
   * a new one with room for `entries`); store it with `sent.set(tick, rec)`.
   */
  record(tick: Tick, entries = 0): SentSnapshot {
    const rec = this.free.pop() ?? new SentSnapshot(entries);
    rec.refs = 1;
    rec.n = 0;
    this.ackedOk[tick % W] = 0;
    return rec;
  }

  /** Enter SPAWNING at `tick` (new, or back after a despawn). */
  spawn(store: GhostStore, d: number, tick: Tick): void {
    const o = d * G_STRIDE;
    const g = this.g;
    if (g[o + G_ST] === ST_NONE) {
      if (this.knownCount === this.known.length) this.known = grown(this.known, this.known.length * 2);
      this.pos[d] = this.knownCount;
      this.known[this.knownCount++] = d;
      store.refs[d]!++;
    }
    g[o + G_ST] = ST_SPAWNING;
    g[o + G_SINCE] = tick | 0;
    g[o + G_SENT_ANY] = 0;
    g[o + G_A0S] = -1;
    g[o + G_A1S] = -1;
  }

  /** Back to NONE: forget the ghost. */
  drop(store: GhostStore, d: number): void {
    const i = this.pos[d]!;
    const last = this.known[--this.knownCount]!;
    this.known[i] = last;
    this.pos[last] = i;
    this.g[d * G_STRIDE + G_ST] = ST_NONE;
    store.unref(d);
  }

  /** True when the snapshot sent at `tick` is remembered and not acked yet. */
  canAck(tick: Tick): boolean {
    return this.sent.has(tick) && !this.isAcked(tick);
  }

  /** Apply the ack of the snapshot sent at `tick` (ignored when unknown or already applied). */
  ackTick(store: GhostStore, tick: Tick): void {
    const rec = this.sent.get(tick);
    if (rec === undefined || this.isAcked(tick)) return;
    this.ackedOk[tick % W] = 1;
    this.ackedTick[tick % W] = tick | 0;
    const t = tick | 0;
    const g = this.g; // drop() does not replace it
    const entries = rec.entries, count = rec.n;
    for (let i = 0; i < count; i++) {
      const e = entries[i]!;
      const d = e >>> 9;
      const o = d * G_STRIDE;
      const st = g[o + G_ST]!;
      if (st === ST_NONE || !isNewerOrEqual(tick, g[o + G_SINCE]! >>> 0)) continue;
      if ((e & 3) === REC_DESPAWN) {
        if (st === ST_DESPAWNING) this.drop(store, d);
        continue;
      }
      if (st === ST_DESPAWNING) continue;
      const slot = (e >>> 2) & 0x7f;
      g[o + G_ST] = ST_LIVE;
      if (g[o + G_A0S]! < 0 || isNewer(tick, g[o + G_A0T]! >>> 0)) {
        g[o + G_A1T] = g[o + G_A0T]!;
        g[o + G_A1S] = g[o + G_A0S]!;
        g[o + G_A0T] = t;
        g[o + G_A0S] = slot;
      } else if (t !== g[o + G_A0T] && (g[o + G_A1S]! < 0 || isNewer(tick, g[o + G_A1T]! >>> 0))) {
        g[o + G_A1T] = t;
        g[o + G_A1S] = slot;
      }
    }
  }

  /** Take references on every known ghost (a fresh clone). */
  retain(store: GhostStore): void {
    for (let k = 0; k < this.knownCount; k++) store.refs[this.known[k]!]!++;
  }

  /** Release every known ghost (the last connection using these states is gone). */
  release(store: GhostStore): void {
    for (let k = 0; k < this.knownCount; k++) store.unref(this.known[k]!);
    this.knownCount = 0;
  }
}
