// One snapshot encode for one GhostStates (a connection, or a group of identical ones), the mirror of
// decoder.ts: a record per offered ghost that needs one (its body from the per-tick cache or the type's
// kernel), despawns and inputs, the budget filled by priority, the message written (message.ts), then
// what it carried recorded for its ack.

import type { Protocol } from '../protocol.ts';
import type { Tick } from '../clock/tick.ts';
import { codeBits } from './codes.ts';
import type { SnapshotGhost, SnapshotInput } from './encoder.ts';
import * as S from './ghost-states.ts';
import type { Group } from './groups.ts';
import type { TypeKernel } from './kernels.ts';
import type { TypeLayout } from './layout.ts';
import { MessageWriter, MSG_HEADER_BITS, spawnFieldBits } from './message.ts';
import { MAX_AGE_TICKS, MAX_IMPORTANCE, PREDICTED_PRIORITY, Selector } from './priority.ts';
import { BodyCache, Despawns, Records, resized } from './scratch.ts';
import type { GhostStore } from './store.ts';
import { NetcodeError } from '../errors.ts';

const { G_A0S, G_A0T, G_A1S, G_A1T, G_LAST_SENT, G_SENT_ANY, G_SINCE, G_ST, G_STRIDE } = S;
type Predicted = ((g: SnapshotGhost) => boolean) | undefined;

export class EncodePass {
  readonly cache = new BodyCache();
  cacheBodies = true;
  private readonly c = new Records();
  private readonly gone = new Despawns();
  private readonly selector = new Selector();
  private readonly msg: MessageWriter;
  /** Encode stamp of each ghost last offered (despawns are the known ghosts not offered). */
  private seen = new Int32Array(0);
  private stamp = 0;
  /** Dense index of the ghost at each position of the last ghost list (a hint; -1 = none). */
  private hint = new Int32Array(0);
  private tick: Tick = 0;

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

  beginTick(tick: Tick): void {
    this.tick = tick;
    this.cache.clear();
  }

  /** The dense index of ghost `g` (at position i of the list), allocated when new; its row quantized for this tick. */
  private resolve(g: SnapshotGhost, i: number): number {
    const { store, layouts } = this;
    let d = store.ids.get(g.id);
    if (d === undefined) {
      if (!Number.isInteger(g.typeId) || layouts[g.typeId] === undefined) {
        throw new NetcodeError('usage', `react-netcode: ghost ${g.id} has typeId ${g.typeId}, which is not a ghost type of the protocol (0..${layouts.length - 1}).`);
      }
      if (!Number.isInteger(g.owner) || g.owner < 0 || g.owner > 0xffff_ffff) {
        throw new NetcodeError('usage', `react-netcode: ghost ${g.id} has owner ${g.owner}; pass the owner's networkId, or 0 for none.`);
      }
      d = store.alloc(g.id, g.typeId, g.owner, g.spawnTick ?? this.tick);
      this.cache.ensure(store.cap);
    } else if (store.typeId[d] !== g.typeId || store.owner[d] !== g.owner) {
      throw new NetcodeError('usage', `react-netcode: ghost ${g.id} changed its typeId or owner; they are immutable — forget(${g.id}) and spawn a new ghost.`);
    }
    this.hint[i] = d;
    store.current(d, this.tick, g.values);
    return d;
  }

  /** Encode the message for `states` (recipient `nid`); notes view owners in `group`. Returns a view of the writer. */
  encode(
    states: S.GhostStates, nid: number, group: Group, ghosts: readonly SnapshotGhost[], predicted: Predicted,
    inputs?: readonly SnapshotInput[],
  ): Uint8Array {
    const { c, gone, msg, selector, store } = this;
    group.viewOwners.length = 0;
    const inputBits = msg.inputs(inputs);
    this.collect(states, nid, group, ghosts, predicted);
    const despawnCount = this.despawns(states);
    const budgetBits = this.budgetBytes * 8;
    let avail = budgetBits - MSG_HEADER_BITS - codeBits(despawnCount) - codeBits(c.n) - inputBits;
    for (let j = 0, prev = -1; j < despawnCount; prev = gone.id(j), j++) avail -= codeBits(gone.id(j) - prev - 1);
    selector.select(c.n, c.prio, c.bits, avail, c.sel);
    this.cache.sink.flush();
    const body = this.cache.w.view();
    // Estimates are rough (baselines, id gaps): rewrite to fill what they left, or drop the lowest priorities.
    for (let round = 0; ; round++) {
      msg.write(this.tick, gone, despawnCount, c, store, body);
      const over = msg.bitLength - budgetBits;
      if (over > 0) {
        if (!selector.dropLowest(c.n, c.prio, c.bits, over, c.sel)) break;
      } else if (round >= 3 || !selector.addMore(c.n, c.prio, c.bits, -over, c.sel)) break;
    }
    this.commit(states, despawnCount);
    return msg.finish();
  }

  /** A record per offered ghost that needs one (spawn, change, refresh or prediction); spawn states for new ghosts. */
  private collect(states: S.GhostStates, nid: number, group: Group, ghosts: readonly SnapshotGhost[], predicted: Predicted): void {
    const { store, c, tick } = this;
    c.reserve(ghosts.length);
    if (this.hint.length < ghosts.length) this.hint = new Int32Array(Math.max(64, ghosts.length * 2)).fill(-1);
    c.n = 0;
    this.ensure(states);
    const stamp = ++this.stamp;
    for (let i = 0, prevId = -1; i < ghosts.length; i++) {
      const g = ghosts[i]!;
      if (!(g.id > prevId) || g.id !== g.id >>> 0) throw new NetcodeError('usage', `react-netcode: snapshot ghosts must be sorted by id, unique uint32 ids; got ${g.id} after ${prevId}.`);
      prevId = g.id;
      // The dense index this position had last time (its row quantized for this tick), else resolved.
      let d = this.hint[i]!;
      const same = d >= 0 && d < store.used && store.id[d] === g.id && store.destroyed[d] === 0;
      if (same && store.typeId[d] === g.typeId && store.owner[d] === g.owner) {
        if (store.curOk[d] !== 1 || store.curTick[d] !== (tick | 0)) store.current(d, tick, g.values);
      } else d = this.resolve(g, i);
      if (this.seen.length < store.cap) this.ensure(states);
      const gs = states.g, go = d * G_STRIDE;
      if (gs[go + G_ST] === S.ST_NONE || gs[go + G_ST] === S.ST_DESPAWNING) states.spawn(store, d, tick);
      this.seen[d] = stamp;
      const layout = this.layouts[g.typeId]!;
      if (layout.viewDependent && g.owner !== 0) group.addViewOwner(g.owner);
      const isPred = predicted !== undefined && predicted(g);
      // Ticks wrap: differences as int32. Age since last sent (or since it began spawning) drives the priority.
      let age = gs[go + G_SENT_ANY] === 1 ? (tick - gs[go + G_LAST_SENT]!) | 0 : ((tick - gs[go + G_SINCE]!) | 0) + 1;
      age = age < 1 ? 1 : age > MAX_AGE_TICKS ? MAX_AGE_TICKS : age;
      const a0s = gs[go + G_A0S]!, t0 = gs[go + G_A0T]!;
      if (gs[go + G_ST] === S.ST_SPAWNING) this.record(d, g, layout, nid, true, -1, -1, 0, 0);
      else if (!store.has(d, a0s, t0 >>> 0)) this.record(d, g, layout, nid, false, -1, -1, 0, 0);
      else {
        // The client has the current state: no record until a refresh is due (or the ghost is predicted).
        if (!isPred && age < this.refreshTicks && store.unchangedSince(d, t0 >>> 0)) continue;
        // The prediction from two baselines extrapolates at most 8 of their intervals (a 250 ms round trip at 20 Hz is 5).
        const a1s = gs[go + G_A1S]!, age0 = (tick - t0) | 0, dt1 = (t0 - gs[go + G_A1T]!) | 0;
        const lin = layout.hasLin && dt1 > 0 && age0 <= 8 * dt1 && store.has(d, a1s, gs[go + G_A1T]! >>> 0);
        this.record(d, g, layout, nid, false, a0s, lin ? a1s : -1, age0, lin ? dt1 : 0);
      }
      const imp = g.importance === undefined ? 1 : g.importance > 0 ? Math.min(Math.max(g.importance, 1 / 256), MAX_IMPORTANCE) : 1 / 256;
      c.prio[c.n - 1] = isPred ? PREDICTED_PRIORITY : imp * age;
    }
  }

  /** The next record: ghost d against ring slots b0 (-1: defaults) and b1 (-1: no prediction); its body and size estimate. */
  private record(
    d: number, g: SnapshotGhost, layout: TypeLayout, nid: number, spawn: boolean, b0: number, b1: number, age0: number, age1: number,
  ): void {
    const { c, cache, store } = this;
    const k = c.n++;
    const view = g.owner === nid ? 0 : 1;
    const key = (b0 + 1) | ((b1 + 1) << 8) | ((layout.viewDependent ? view + 1 : 0) << 16);
    const hit = this.cacheBodies ? cache.find(d, key) : -1;
    const sink = cache.sink;
    let off = sink.bitLength, lin: boolean; // lin: the body uses the prediction from two baselines
    if (hit >= 0) {
      off = cache.off[hit]!;
      lin = cache.b1[hit] === 1;
    } else {
      const cap = store.cap, e = store.curSlot[d]! * cap + d, e0 = b0 * cap + d;
      const b0row = b0 >= 0 ? store.hist : layout.defaultRow, b0s = b0 >= 0 ? store.histStrs : layout.defaultStrings;
      const b0o = b0 >= 0 ? e0 * store.stride : 0, b0so = b0 >= 0 ? e0 * store.sstride : 0;
      const b1o = b1 >= 0 ? (b1 * cap + d) * store.stride : -1;
      const body = this.kernels[layout.typeId]!.body[view]!;
      const co = e * store.stride, cso = e * store.sstride;
      lin = body(sink, store.hist, co, b0row, b0o, b1o, age0, age1, store.histStrs, cso, b0s, b0so);
      if (this.cacheBodies) cache.add(d, key, off, sink.bitLength - off, lin);
    }
    const len = hit >= 0 ? cache.len[hit]! : sink.bitLength - off;
    const a1 = lin ? age1 : 0;
    c.dense[k] = d;
    c.spawn[k] = spawn ? 1 : 0;
    c.age0[k] = age0;
    c.age1[k] = a1;
    c.off[k] = off;
    c.len[k] = len;
    const gap = k === 0 ? g.id : g.id - store.id[c.dense[k - 1]!]! - 1;
    const header = spawn ? spawnFieldBits(store, d, this.tick) : 1 + codeBits(age0) + (age0 !== 0 ? codeBits(a1) : 0);
    c.bits[k] = codeBits(gap) + 1 + header + len;
  }

  private ensure(states: S.GhostStates): void {
    states.ensure(this.store.cap);
    if (this.seen.length < this.store.cap) this.seen = resized(this.seen, this.store.cap);
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
      if (st === S.ST_SPAWNING && gs[go + G_SENT_ANY] === 0) states.drop(store, d); // never sent: nothing to take back
      else {
        if (st !== S.ST_DESPAWNING) {
          gs[go + G_ST] = S.ST_DESPAWNING;
          gs[go + G_SINCE] = this.tick | 0;
        }
        gone.push(store.id[d]!, d);
      }
    }
    gone.sort();
    for (let j = 0, prev = -1, bits = 0; j < gone.n; prev = gone.id(j), j++) {
      bits += codeBits(gone.id(j) - prev - 1);
      if (bits > this.budgetBytes * 4) return j;
    }
    return gone.n;
  }

  private commit(states: S.GhostStates, despawnCount: number): void {
    const { c, store, tick } = this;
    const rec = states.record(tick, c.n + despawnCount);
    for (let k = 0; k < c.n; k++) {
      if (c.sel[k] === 0) continue;
      const d = c.dense[k]!;
      states.g[d * G_STRIDE + G_LAST_SENT] = tick | 0;
      states.g[d * G_STRIDE + G_SENT_ANY] = 1;
      rec.push(d, store.push(d, tick), c.spawn[k] === 1 ? S.REC_SPAWN : S.REC_UPDATE);
    }
    for (let j = 0; j < despawnCount; j++) rec.push(this.gone.dense(j), 0, S.REC_DESPAWN);
    states.sent.set(tick, rec);
    states.lastTick = tick;
    states.hasEncoded = true;
  }
}
