// What a connection's client has of every ghost, as the server tracks it: the lifecycle (spawning → live →
// despawning), the two newest acked baselines, when it was last sent, and what each recent snapshot carried.

import { HistoryBuffer } from '../history.ts';
import { isNewer, isNewerOrEqual, type Tick } from '../clock/tick.ts';
import { resized } from './scratch.ts';
import type { GhostStore } from './store.ts';

export const ST_NONE = 0, ST_SPAWNING = 1, ST_LIVE = 2, ST_DESPAWNING = 3;
/** Record kinds in a sent snapshot (low 2 bits of an entry). */
export const REC_SPAWN = 0, REC_UPDATE = 1, REC_DESPAWN = 2;
/** Sent snapshots remembered for acks, in ticks; an ack of an older one is ignored (the ghosts keep older baselines). */
export const ACK_WINDOW_TICKS = 128;
const W = ACK_WINDOW_TICKS;
/** Older ticks `GhostStates.merge` looks at for a second baseline both merged sides hold. */
const OLDER_COMMON = 4;

/** What one sent snapshot carried: entries packed as dense << 9 | ringSlot << 2 | kind. Shared (refs) by cloned states. */
export class SentSnapshot {
  refs = 1;
  n = 0;
  entries: Uint32Array;

  constructor(capacity: number) {
    this.entries = new Uint32Array(Math.max(64, capacity));
  }

  push(d: number, slot: number, kind: number): void {
    if (this.n === this.entries.length) this.entries = resized(this.entries, this.n * 2);
    this.entries[this.n++] = ((d << 9) | (slot << 2) | kind) >>> 0;
  }

  sameAs(other: SentSnapshot): boolean {
    if (other === this) return true;
    if (other.n !== this.n) return false;
    for (let i = 0; i < this.n; i++) if (this.entries[i] !== other.entries[i]) return false;
    return true;
  }
}

/**
 * Per-ghost state of a connection, interleaved: the fields of dense index d sit at
 * g[d * G_STRIDE + G_*] (one 32-byte record per ghost).
 * G_ST: ST_* state; G_SINCE: tick it began (older acks do not apply to it);
 * G_LAST_SENT: last tick a record was sent (valid when G_SENT_ANY is 1);
 * G_A0T / G_A0S: newest acked baseline (tick, ring slot or -1); G_A1T / G_A1S: the one before it.
 */
export const G_ST = 0, G_SINCE = 1, G_LAST_SENT = 2, G_SENT_ANY = 3, G_A0T = 4, G_A0S = 5, G_A1T = 6, G_A1S = 7, G_STRIDE = 8;
const G_EMPTY = Int32Array.of(ST_NONE, 0, 0, 0, 0, -1, 0, -1);

export class GhostStates {
  g = new Int32Array(0);
  /** Records no state refers to any more, for reuse (after one ack window an encode allocates none). */
  private readonly free: SentSnapshot[] = [];
  /** What each remembered snapshot carried; a record leaving the window is released. */
  readonly sent = new HistoryBuffer<SentSnapshot>(W, (rec) => {
    if (--rec.refs === 0) this.free.push(rec);
  });
  /** Acked snapshot ticks, by tick % W, and how (0: not acked; see `setAcked`). */
  ackedTick = new Int32Array(W);
  ackedOk = new Uint8Array(W);
  /** Scratch of `holds`, by tick % W: 0 unknown, 1 held, 2 not. */
  private readonly heldBy = new Uint8Array(W);
  /** Scratch of `older`: ticks every client of both merged states holds (newest first), and each ghost's ring slot in them (-1: none). */
  private readonly common: number[] = [];
  private commonSlots: Int32Array[] = [];
  lastTick: Tick = 0;
  hasEncoded = false;
  /** Newest acked snapshot tick (as int32; -1: none): states with different ones share no bodies. */
  newestAck = -1;

  ensure(cap: number): void {
    if (this.g.length >= cap * G_STRIDE) return;
    const g = new Int32Array(cap * G_STRIDE);
    g.set(this.g);
    for (let o = this.g.length; o < g.length; o += G_STRIDE) g.set(G_EMPTY, o);
    this.g = g;
  }

  /** Copy the per-ghost records, acked ticks and scalars of `from` (not its sent records; no references taken). */
  copyRecords(from: GhostStates): void {
    if (this.g.length === from.g.length) this.g.set(from.g);
    else this.g = from.g.slice();
    this.ackedTick.set(from.ackedTick);
    this.ackedOk.set(from.ackedOk);
    this.lastTick = from.lastTick;
    this.hasEncoded = from.hasEncoded;
    this.newestAck = from.newestAck;
  }

  /** After `copyRecords`: share the sent records of `from` except the one at `skip`, and take references on the known ghosts. */
  adopt(from: GhostStates, skip: Tick | undefined, store: GhostStore): void {
    this.ensure(store.cap);
    from.sent.forEach((rec, t) => {
      if (t === skip) return;
      rec.refs++;
      this.sent.set(t, rec);
    });
    for (let d = 0; d < store.used; d++) if (this.g[d * G_STRIDE + G_ST] !== ST_NONE) store.refs[d]!++;
  }

  /** Release every ghost and sent record, back to the empty states (the last connection using these states is gone). */
  release(store: GhostStore): void {
    for (let d = 0; d < store.used && d * G_STRIDE < this.g.length; d++) {
      if (this.g[d * G_STRIDE + G_ST] !== ST_NONE) store.unref(d);
      this.g.set(G_EMPTY, d * G_STRIDE);
    }
    this.sent.clear();
    this.ackedOk.fill(0);
    this.lastTick = 0;
    this.hasEncoded = false;
    this.newestAck = -1;
  }

  /**
   * Merge `other` in when both lead to the same snapshots whatever the clients ack from now on: the same record
   * per ghost, the same content for every sent snapshot either may still apply an ack of. With `behind`, second
   * baselines may differ: the merged states take, per ghost, one the clients of both hold. A snapshot acked by one
   * side only counts as heard (never applied). Returns whether it merged.
   */
  merge(other: GhostStates, used: number, behind: boolean): boolean {
    if (other.lastTick !== this.lastTick || other.sent.size !== this.sent.size || !this.records(other, used, behind, false)) return false;
    let same = true;
    this.sent.forEach((rec, t) => {
      const o = other.sent.get(t);
      if (o === undefined || (!(this.isAcked(t) && other.isAcked(t)) && !rec.sameAs(o))) same = false;
    });
    if (!same) return false;
    this.records(other, used, behind, true);
    // Acked by every client of both, with the same content: every client holds its rows (see `holds`).
    other.sent.forEach((rec, t) => {
      const mine = this.isAcked(t), theirs = other.isAcked(t);
      const all = mine && theirs && this.ackedOk[t % W] === 1 && other.ackedOk[t % W] === 1 && rec.sameAs(this.sent.get(t)!);
      if (mine || theirs) this.setAcked(t, all ? 1 : 2);
    });
    return true;
  }

  /** Check (or, with `take`, apply) that every ghost record equals `other`'s, the second baseline only up to `behind`. */
  private records(other: GhostStates, used: number, behind: boolean, take: boolean): boolean {
    const a = this.g, b = other.g;
    this.heldBy.fill(0);
    other.heldBy.fill(0);
    this.common.length = 0;
    for (let o = 0, n = used * G_STRIDE; o < n; o += G_STRIDE) {
      for (let i = 0; i < G_A1T; i++) if (a[o + i] !== b[o + i]) return false;
      if (a[o + G_A1T] === b[o + G_A1T] && a[o + G_A1S] === b[o + G_A1S]) continue;
      if (!behind) return false;
      if (this.holds(other, b[o + G_A1T]!, b[o + G_A1S]!)) {
        if (take) {
          a[o + G_A1T] = b[o + G_A1T]!;
          a[o + G_A1S] = b[o + G_A1S]!;
        }
      } else if (!other.holds(this, a[o + G_A1T]!, a[o + G_A1S]!) && !this.older(other, o, take)) return false;
    }
    return true;
  }

  /** Neither side holds the other's second baseline of the ghost at `o`: take (`take`) an older row every client of both holds. */
  private older(other: GhostStates, o: number, take: boolean): boolean {
    const a = this.g, d = o / G_STRIDE;
    if (this.common.length === 0) this.findCommon(other);
    for (let j = 1; j < this.common.length; j++) {
      const t = this.common[j]!, slot = this.commonSlots[j]![d]!;
      if (slot < 0 || !isNewer(a[o + G_A0T]! >>> 0, t >>> 0) || isNewer(a[o + G_SINCE]! >>> 0, t >>> 0)) continue;
      if (take) a[o + G_A1S] = slot;
      if (take) a[o + G_A1T] = t;
      return true;
    }
    return false;
  }

  /** The newest OLDER_COMMON ticks acked by every client of both with the same content, and the ghosts' rows in them. */
  private findCommon(other: GhostStates): void {
    const c = this.common;
    c.push(0); // [0]: searched (the candidates follow)
    for (let k = 1; k <= W && c.length <= OLDER_COMMON; k++) {
      const t = (this.lastTick - k) >>> 0;
      const i = t % W, rec = this.sent.get(t), theirs = other.sent.get(t);
      if (this.ackedOk[i] !== 1 || other.ackedOk[i] !== 1 || this.ackedTick[i] !== (t | 0) || other.ackedTick[i] !== (t | 0)) continue;
      if (rec === undefined || theirs === undefined || !rec.sameAs(theirs)) continue;
      const n = c.length;
      if ((this.commonSlots[n]?.length ?? -1) * G_STRIDE < this.g.length) this.commonSlots[n] = new Int32Array(this.g.length / G_STRIDE);
      const slots = this.commonSlots[n]!.fill(-1);
      for (let e = 0, x = 0; e < rec.n; e++) if (((x = rec.entries[e]!) & 3) !== REC_DESPAWN) slots[x >>> 9] = (x >>> 2) & 0x7f;
      c.push(t | 0);
    }
  }

  /** Does every client of these states hold the row `other`'s states sent at `tick` in ring slot `slot` (none: −1)? */
  private holds(other: GhostStates, tick: number, slot: number): boolean {
    if (slot < 0) return true;
    const t = tick >>> 0, i = t % W;
    if (this.ackedOk[i] !== 1 || this.ackedTick[i] !== tick) return false; // (also a tick older than the window)
    if (this.heldBy[i] === 0) {
      const mine = this.sent.get(t), theirs = other.sent.get(t);
      this.heldBy[i] = mine !== undefined && theirs !== undefined && mine.sameAs(theirs) ? 1 : 2;
    }
    return this.heldBy[i] === 1;
  }

  /** `how`: 1, every client of these states acked it (its ack was applied); 2, some did (not applied). */
  private setAcked(tick: Tick, how = 1): void {
    this.ackedOk[tick % W] = how;
    this.ackedTick[tick % W] = tick | 0;
    if (this.newestAck === -1 || isNewer(tick, this.newestAck >>> 0)) this.newestAck = tick | 0;
  }

  isAcked(tick: Tick): boolean {
    const i = tick % W;
    return this.ackedOk[i] !== 0 && this.ackedTick[i] === (tick | 0);
  }

  /** True when the snapshot sent at `tick` is remembered and not acked yet. */
  canAck(tick: Tick): boolean {
    return this.sent.has(tick) && !this.isAcked(tick);
  }

  /** The record to fill for a snapshot at `tick` (a released one when there is one); store it with `sent.set(tick, rec)`. */
  record(tick: Tick, entries: number): SentSnapshot {
    const rec = this.free.pop() ?? new SentSnapshot(entries);
    rec.refs = 1;
    rec.n = 0;
    this.ackedOk[tick % W] = 0;
    return rec;
  }

  spawn(store: GhostStore, d: number, tick: Tick): void {
    const o = d * G_STRIDE;
    if (this.g[o + G_ST] === ST_NONE) store.refs[d]!++;
    this.g.set(G_EMPTY, o);
    this.g[o + G_ST] = ST_SPAWNING;
    this.g[o + G_SINCE] = tick | 0;
  }

  drop(store: GhostStore, d: number): void {
    this.g[d * G_STRIDE + G_ST] = ST_NONE;
    store.unref(d);
  }

  /** Apply the ack of the snapshot sent at `tick` (ignored when unknown or already applied). */
  ackTick(store: GhostStore, tick: Tick): void {
    const rec = this.sent.get(tick);
    if (rec === undefined || this.isAcked(tick)) return;
    this.setAcked(tick);
    const t = tick | 0;
    const g = this.g;
    for (let i = 0; i < rec.n; i++) {
      const e = rec.entries[i]!;
      const o = (e >>> 9) * G_STRIDE;
      const st = g[o + G_ST]!;
      if (st === ST_NONE || !isNewerOrEqual(tick, g[o + G_SINCE]! >>> 0)) continue;
      if ((e & 3) === REC_DESPAWN) {
        if (st === ST_DESPAWNING) this.drop(store, e >>> 9);
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
}
