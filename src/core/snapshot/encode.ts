// One snapshot encode for one GhostStates (a connection, or a group of identical
// ones), the server's mirror of decoder.ts: collect a record per offered ghost (spawn,
// or update against the newest acked baselines; its body from the per-tick cache or
// written by the type's kernel), the despawns and inputs; fill the budget by
// priority; write the message (message.ts); only then record what it carried.

import type { Protocol } from '../protocol.ts';
import type { Tick } from '../tick.ts';
import { codeBits } from './codes.ts';
import type { SnapshotGhost, SnapshotInput } from './encoder.ts';
import { F_B0, F_B1, F_SPAWN } from './format.ts';
import * as S from './ghost-states.ts';
import type { Group } from './groups.ts';
import type { TypeKernel } from './kernels.ts';
import type { TypeLayout } from './layout.ts';
import { MessageWriter, MSG_HEADER_BITS, RecordRun, spawnFieldBits, writeRecordHeader } from './message.ts';
import { MAX_AGE_TICKS, MAX_IMPORTANCE, PREDICTED_PRIORITY, Selector } from './priority.ts';
import { BodyCache, Despawns, Records } from './scratch.ts';
import type { GhostStore } from './store.ts';
import { usage } from './usage.ts';

const { G_A0S, G_A0T, G_A1S, G_A1T, G_LAST_SENT, G_SENT_ANY, G_SINCE, G_ST, G_STRIDE } = S;

export class EncodePass {
  readonly cache = new BodyCache();
  private readonly c = new Records();
  private readonly gone = new Despawns();
  private readonly selector = new Selector();
  private readonly msg: MessageWriter;
  /** Encode stamp of each ghost last offered (despawns are the known ghosts not offered). */
  private seen = new Int32Array(0);
  private stamp = 0;
  /** Dense index of the ghost at each position of the last ghost list (a hint; -1 = none). */
  private hint = new Int32Array(0);
  /** Per ghost: whether its last body written used the prediction (a guess for the next record header; never changes bits). */
  private usedB1 = new Uint8Array(0);
  private tick: Tick = 0;
  /**
   * The records stream: while this encode's bodies are all written fresh, in order, each is
   * preceded in the arena by the header it has in the message when every record is sent;
   * the message then copies them in one piece. [start, end), or end = -1 once broken.
   */
  private readonly stream: [number, number] = [0, 0];
  private streamId = -1;
  private readonly run = new RecordRun();

  constructor(
    protocol: Protocol,
    private readonly layouts: readonly TypeLayout[],
    private readonly kernels: readonly TypeKernel[],
    private readonly store: GhostStore,
    private readonly budgetBytes: number,
    private readonly refreshTicks: number,
  ) {
    this.msg = new MessageWriter(protocol, budgetBytes);
  }

  /** Start tick `tick`: the body cache is cleared. */
  beginTick(tick: Tick): void {
    this.tick = tick;
    this.cache.clear();
  }

  /** The ghost's dense index (allocated when new), its current row quantized for this tick. */
  resolve(g: SnapshotGhost, i: number): number {
    const store = this.store;
    if (g.id !== g.id >>> 0) throw usage(`ghost id ${g.id} is not a uint32.`);
    let d = store.find(g.id, i >= 0 && i < this.hint.length ? this.hint[i]! : -1);
    if (d < 0) {
      if (!Number.isInteger(g.typeId) || this.layouts[g.typeId] === undefined) {
        throw usage(`ghost ${g.id} has typeId ${g.typeId}, which is not a ghost type of the protocol (0..${this.layouts.length - 1}).`);
      }
      if (!Number.isInteger(g.owner) || g.owner < 0 || g.owner > 0xffff_ffff) throw usage(`ghost ${g.id} has owner ${g.owner}; pass the owner's networkId, or 0 for none.`);
      d = store.alloc(g.id, g.typeId, g.owner, g.spawnTick ?? this.tick);
      this.cache.ensure(store.cap);
    } else if (store.typeId[d] !== g.typeId || store.owner[d] !== g.owner) {
      throw usage(`ghost ${g.id} changed its typeId or owner; they are immutable — forget(${g.id}) and spawn a new ghost.`);
    }
    if (i >= 0 && i < this.hint.length) this.hint[i] = d;
    store.current(d, this.tick, g.values);
    return d;
  }

  /** Encode the message for `states` (recipient `nid`); notes view owners in `group`. Returns a view of the writer. */
  encode(states: S.GhostStates, nid: number, group: Group, ghosts: readonly SnapshotGhost[], predicted: ((g: SnapshotGhost) => boolean) | undefined, inputs: readonly SnapshotInput[] | undefined): Uint8Array {
    const tick = this.tick;
    group.viewOwnerCount = 0;
    const inputBits = this.msg.inputs(inputs);
    this.collect(states, nid, group, ghosts, predicted);
    const despawnCount = this.despawns(states);
    const budgetBits = this.budgetBytes * 8;
    let gapBits = 0;
    for (let j = 0, prev = -1; j < despawnCount; prev = this.gone.id(j), j++) gapBits += codeBits(this.gone.id(j) - prev - 1);
    const c = this.c;
    const avail = budgetBits - MSG_HEADER_BITS - codeBits(despawnCount) - gapBits - codeBits(c.n) - inputBits;
    this.selector.select(c.n, c.prio, c.bits, avail, c.sel);
    this.cache.sink.flush();
    const body = this.cache.w.view();
    const stream = this.stream[1] >= 0 ? this.stream : null;
    // Estimates are rough (baselines, id gaps): rewrite to fill what they left unused, and
    // to drop the lowest priorities when they were too low. A few rounds at most.
    for (let round = 0; ; round++) {
      this.msg.write(tick, this.gone, despawnCount, c, body, stream);
      const over = this.msg.bitLength - budgetBits;
      if (over > 0) {
        if (!this.selector.dropLowest(c.n, c.prio, c.bits, over, c.sel)) break;
      } else if (round >= 3 || !this.selector.addMore(c.n, c.prio, c.bits, -over, c.sel)) break;
    }
    this.commit(states, despawnCount);
    return this.msg.finish();
  }

  /** One record per offered ghost that needs one (spawn, change, refresh or prediction); spawn states for new ghosts. */
  private collect(states: S.GhostStates, nid: number, group: Group, ghosts: readonly SnapshotGhost[], predicted: ((g: SnapshotGhost) => boolean) | undefined): void {
    const { store, c, tick } = this;
    c.reserve(ghosts.length);
    if (this.hint.length < ghosts.length) this.hint = new Int32Array(Math.max(64, ghosts.length * 2)).fill(-1);
    c.n = 0;
    this.ensure(states);
    // The stream starts at the bit phase the records have in the message when every ghost is sent and none despawned,
    // so that the message copies it as whole bytes. The pad bits belong to no body.
    const sink = this.cache.sink;
    sink.put(0, (MSG_HEADER_BITS + 1 + codeBits(ghosts.length) - sink.bitLength) & 7);
    this.stream[0] = this.stream[1] = sink.bitLength;
    this.streamId = -1;
    this.run.p0 = this.run.p1 = -1;
    const stamp = ++this.stamp;
    let prevId = -1;
    let prevRecord = -1;
    for (let i = 0; i < ghosts.length; i++) {
      const g = ghosts[i]!;
      const id = g.id;
      if (!(id > prevId) || id !== id >>> 0) throw usage(`snapshot ghosts must be sorted by id, unique uint32 ids; got ${id} after ${prevId}.`);
      prevId = id;
      // The ghost's dense index: the one this position had last time, else resolved (and allocated when new).
      let d = this.hint[i]!;
      if (d >= 0 && d < store.used && store.id[d] === id && store.destroyed[d] === 0 && store.typeId[d] === g.typeId && store.owner[d] === g.owner) {
        if (store.curOk[d] !== 1 || store.curTick[d] !== (tick | 0)) store.current(d, tick, g.values);
      } else d = this.resolve(g, i);
      if (this.seen.length < store.cap) this.ensure(states);
      const gs = states.g;
      const go = d * G_STRIDE;
      if (gs[go + G_ST] === S.ST_NONE || gs[go + G_ST] === S.ST_DESPAWNING) states.spawn(store, d, tick);
      this.seen[d] = stamp;
      const layout = this.layouts[g.typeId]!;
      const view = store.owner[d] === nid ? 0 : 1;
      if (layout.viewDependent && g.owner !== 0) group.addViewOwner(g.owner);
      const isPred = predicted !== undefined && predicted(g);
      // Ticks wrap: differences as int32.
      let age = gs[go + G_SENT_ANY] === 1 ? (tick - gs[go + G_LAST_SENT]!) | 0 : ((tick - gs[go + G_SINCE]!) | 0) + 1;
      age = age < 1 ? 1 : age > MAX_AGE_TICKS ? MAX_AGE_TICKS : age;
      let flags = 0;
      let b0 = -1;
      let b1 = -1;
      let age0 = 0;
      let age1 = 0;
      if (gs[go + G_ST] === S.ST_SPAWNING) flags = F_SPAWN;
      else if (store.has(d, gs[go + G_A0S]!, gs[go + G_A0T]! >>> 0)) {
        const t0 = gs[go + G_A0T]!;
        b0 = gs[go + G_A0S]!;
        flags = F_B0;
        age0 = (tick - t0) | 0;
        // The client has the current state: no record until a refresh is due (or the ghost is predicted).
        if (!isPred && age < this.refreshTicks && store.unchangedSince(d, t0 >>> 0)) continue;
        const dt1 = (t0 - gs[go + G_A1T]!) | 0;
        if (layout.hasLin && store.has(d, gs[go + G_A1S]!, gs[go + G_A1T]! >>> 0) && dt1 > 0 && age0 <= 4 * dt1) {
          b1 = gs[go + G_A1S]!;
          age1 = dt1;
        }
      }
      const k = c.n++;
      c.dense[k] = d;
      c.id[k] = id;
      this.body(k, d, layout, view, flags, b0, b1, age0, age1);
      const imp = g.importance === undefined ? 1 : g.importance > 0 ? Math.min(Math.max(g.importance, 1 / 256), MAX_IMPORTANCE) : 1 / 256;
      c.prio[k] = isPred ? PREDICTED_PRIORITY : imp * age;
      // Estimate: id gap to the previous record, the spawn fields or explicit baselines, the body.
      const gap = prevRecord < 0 ? id : id - prevRecord - 1;
      const header = (flags & F_SPAWN) !== 0 ? spawnFieldBits(c.typeId[k]!, c.owner[k]!, c.spawnAge[k]!) : 1 + codeBits(age0) + (age0 !== 0 ? codeBits(c.age1[k]!) : 0);
      c.bits[k] = codeBits(gap) + 1 + header + c.len[k]!;
      prevRecord = id;
    }
  }

  /** Room for every ghost of the store in `states` and `seen`. */
  private ensure(states: S.GhostStates): void {
    const cap = this.store.cap;
    states.ensure(cap);
    if (this.seen.length >= cap) return;
    const seen = new Int32Array(cap);
    seen.set(this.seen);
    this.seen = seen;
    const usedB1 = new Uint8Array(cap);
    usedB1.set(this.usedB1);
    this.usedB1 = usedB1;
  }

  /** Record k's header fields and body: from the cache, or written now (against b0 or the defaults, and b1 when it is shorter). */
  private body(k: number, d: number, layout: TypeLayout, view: number, flags: number, b0: number, b1: number, age0: number, age1: number): void {
    const { c, cache, store } = this;
    c.age0[k] = age0;
    if ((flags & F_SPAWN) !== 0) {
      c.typeId[k] = layout.typeId;
      c.owner[k] = store.owner[d]!;
      c.spawnAge[k] = Math.max(0, (this.tick - store.spawnTick[d]!) | 0);
    }
    const viewKey = layout.viewDependent ? view + 1 : 0;
    const key = (flags & F_SPAWN) !== 0 ? (1 << 20) | viewKey : (b0 + 1) | ((b1 + 1) << 8) | (viewKey << 16);
    const hit = cache.find(d, key);
    if (hit >= 0) {
      this.stream[1] = -1; // not written here: not in the stream
      c.off[k] = cache.off[hit]!;
      c.len[k] = cache.len[hit]!;
      c.flags[k] = cache.flags[hit]!;
      c.age1[k] = (c.flags[k]! & F_B1) !== 0 ? age1 : 0;
      return;
    }
    const cap = store.cap, e = store.curSlot[d]! * cap + d, e0 = b0 * cap + d;
    const b0row = b0 >= 0 ? store.hist : layout.defaultRow;
    const b0o = b0 >= 0 ? e0 * store.stride : 0;
    const b0s = b0 >= 0 ? store.histStrs : layout.defaultStrings;
    const b0so = b0 >= 0 ? e0 * store.sstride : 0;
    const b1o = b1 >= 0 ? (b1 * cap + d) * store.stride : -1;
    const write = this.kernels[layout.typeId]!.body[view]!;
    const sink = cache.sink;
    const start = sink.bitLength;
    const stream = this.stream[1] === start;
    if (!stream) this.stream[1] = -1;
    // In the stream the header comes first: guess whether the body uses the prediction (as this ghost's last one did).
    let used = b1 >= 0 && this.usedB1[d] === 1;
    c.flags[k] = flags;
    c.age1[k] = used ? age1 : 0;
    const run = this.run, p0 = run.p0, p1 = run.p1;
    if (stream) writeRecordHeader(sink, c, k, this.streamId, run);
    let off = sink.bitLength;
    if (write(sink, store.hist, e * store.stride, b0row, b0o, b1o, age0, age1, store.histStrs, e * store.sstride, b0s, b0so) !== used) {
      used = !used;
      c.age1[k] = used ? age1 : 0;
      if (stream) {
        // Wrong guess: the header names other baselines. Write the record again.
        sink.rewind(start);
        run.p0 = p0;
        run.p1 = p1;
        writeRecordHeader(sink, c, k, this.streamId, run);
        off = sink.bitLength;
        write(sink, store.hist, e * store.stride, b0row, b0o, b1o, age0, age1, store.histStrs, e * store.sstride, b0s, b0so);
      }
    }
    this.usedB1[d] = used ? 1 : 0;
    if (used) flags |= F_B1;
    c.off[k] = off;
    c.len[k] = sink.bitLength - off;
    c.flags[k] = flags;
    cache.add(d, key, off, c.len[k]!, flags);
    if (stream) {
      this.stream[1] = sink.bitLength;
      this.streamId = c.id[k]!;
    }
  }

  /** Ghosts the connection knows but no longer gets: despawn (until acked). Returns how many fit half the budget. */
  private despawns(states: S.GhostStates): number {
    const { gone, store, seen, stamp } = this;
    const gs = states.g;
    gone.n = 0;
    for (let d = 0; d < store.used; d++) {
      const go = d * G_STRIDE;
      const st = gs[go + G_ST]!;
      if (st === S.ST_NONE || seen[d] === stamp) continue;
      if (st === S.ST_SPAWNING && gs[go + G_SENT_ANY] === 0) {
        states.drop(store, d);
        continue;
      }
      if (st !== S.ST_DESPAWNING) {
        gs[go + G_ST] = S.ST_DESPAWNING;
        gs[go + G_SINCE] = this.tick | 0;
      }
      gone.push(store.id[d]!, d);
    }
    gone.sort();
    let bits = 0;
    for (let j = 0, prev = -1; j < gone.n; prev = gone.id(j), j++) {
      bits += codeBits(gone.id(j) - prev - 1);
      if (bits > this.budgetBytes * 4) return j;
    }
    return gone.n;
  }

  /** Remember what this snapshot carried, for its ack. */
  private commit(states: S.GhostStates, despawnCount: number): void {
    const { c, store, tick } = this;
    const rec = states.record(tick, c.n + despawnCount);
    for (let k = 0; k < c.n; k++) {
      if (c.sel[k] === 0) continue;
      const o = c.dense[k]! * G_STRIDE;
      states.g[o + G_LAST_SENT] = tick | 0;
      states.g[o + G_SENT_ANY] = 1;
      rec.push(c.dense[k]!, store.push(c.dense[k]!, tick), (c.flags[k]! & F_SPAWN) !== 0 ? S.REC_SPAWN : S.REC_UPDATE);
    }
    for (let j = 0; j < despawnCount; j++) rec.push(this.gone.dense(j), 0, S.REC_DESPAWN);
    states.sent.set(tick, rec);
    states.lastTick = tick;
    states.hasEncoded = true;
  }
}
