// The snapshot encode for one GhostStates (one connection, or a group of identical
// ones): collect the candidates and their bodies (shared across connections through
// the per-tick cache), despawns and inputs, fill the budget by priority, write the
// message (format.ts) and only then record what it carried.

import { BitWriter } from '../bits.ts';
import { NetcodeError } from '../errors.ts';
import type { Protocol } from '../protocol.ts';
import { tickDiff, type Tick } from '../tick.ts';
import { MessageKind } from '../wire.ts';
import { BodyCache } from './cache.ts';
import { Candidates, Despawns } from './candidates.ts';
import { BitSink, codeBits, copyBits, crc16, putCode } from './codes.ts';
import type { Group } from './connection.ts';
import { compileBodyWriters, type BodyWriter } from './compiled-delta.ts';
import { emptyBaselines } from './delta.ts';
import type { SnapshotGhost, SnapshotInput } from './encoder.ts';
import { F_B0, F_B1, F_SPAWN } from './format.ts';
import { REC_DESPAWN, REC_SPAWN, REC_UPDATE, ST_DESPAWNING, ST_NONE, ST_SPAWNING, type GhostStates } from './ghost-states.ts';
import type { TypeLayout } from './layout.ts';
import { MAX_AGE_TICKS, MAX_IMPORTANCE, PREDICTED_PRIORITY, Selector } from './priority.ts';
import type { GhostStore } from './store.ts';

export function usage(message: string): NetcodeError {
  return new NetcodeError('usage', `react-netcode: ${message}`);
}

export class EncodeCore {
  readonly cache = new BodyCache();
  private readonly writers: readonly (readonly [BodyWriter, BodyWriter])[];
  private readonly base = emptyBaselines();
  private readonly cand = new Candidates();
  private readonly gone = new Despawns();
  private readonly selector = new Selector();
  private readonly w = new BitWriter();
  private readonly sink = new BitSink();
  private readonly inW = new BitWriter(256);
  private readonly inSink = new BitSink();
  private inCount = 0;
  private inBits = 0;

  constructor(
    private readonly protocol: Protocol,
    private readonly layouts: readonly TypeLayout[],
    private readonly store: GhostStore,
    private readonly budgetBytes: number,
    private readonly refreshTicks: number,
  ) {
    this.writers = layouts.map(compileBodyWriters);
  }

  /** Encode the message for `state` (recipient `nid`); notes view owners in `group`. Returns a view of the writer. */
  encode(state: GhostStates, nid: number, group: Group, tick: Tick, ghosts: readonly SnapshotGhost[], predicted: ((g: SnapshotGhost) => boolean) | undefined, inputs: readonly SnapshotInput[] | undefined): Uint8Array {
    group.viewOwnerCount = 0;
    const inputBits = this.encodeInputs(inputs);
    this.collect(state, nid, group, tick, ghosts, predicted);
    const despawnCount = this.despawns(state, tick);
    const budgetBits = this.budgetBytes * 8;
    let gapBits = 0;
    for (let j = 0, prev = -1; j < despawnCount; prev = this.gone.id(j), j++) gapBits += codeBits(this.gone.id(j) - prev - 1);
    const c = this.cand;
    const avail = budgetBits - 56 - codeBits(despawnCount) - gapBits - codeBits(c.n) - inputBits;
    this.selector.select(c.n, c.prio, c.bits, avail, c.sel);
    this.cache.sink.flush();
    const body = this.cache.w.view();
    // Estimates are rough (baselines, id gaps): rewrite to fill what they left unused, and
    // to drop the lowest priorities when they were too low. A few rounds at most.
    for (let round = 0; ; round++) {
      this.write(tick, despawnCount, body);
      const over = this.w.bitLength - budgetBits;
      if (over > 0) {
        if (!this.selector.dropLowest(c.n, c.prio, c.bits, over, c.sel)) break;
      } else if (round >= 3 || !this.selector.addMore(c.n, c.prio, c.bits, -over, c.sel)) break;
    }
    this.commit(state, tick, despawnCount);
    const out = this.w.view();
    const crc = crc16(out, 3, out.length);
    out[1] = crc & 0xff;
    out[2] = crc >>> 8;
    return out;
  }

  /** Gather this connection's candidates; spawn states for new ghosts. */
  private collect(state: GhostStates, nid: number, group: Group, tick: Tick, ghosts: readonly SnapshotGhost[], predicted: ((g: SnapshotGhost) => boolean) | undefined): void {
    const store = this.store;
    const c = this.cand;
    c.reserve(ghosts.length);
    c.n = 0;
    const stamp = ++state.stamp;
    let prevId = -1;
    let prevCand = -1;
    for (let i = 0; i < ghosts.length; i++) {
      const g = ghosts[i]!;
      const id = g.id;
      if (!(id > prevId) || id !== id >>> 0) throw usage(`snapshot ghosts must be sorted by id, unique uint32 ids; got ${id} after ${prevId}.`);
      prevId = id;
      let d = store.ids.get(id);
      if (d < 0) d = this.allocate(g);
      else if (store.typeId[d] !== g.typeId || store.owner[d] !== g.owner) throw usage(`ghost ${id} changed its typeId or owner; they are immutable — forget(${id}) and spawn a new ghost.`);
      state.ensure(store.cap);
      store.current(d, tick, g.values);
      const st0 = state.st[d]!;
      if (st0 === ST_NONE || st0 === ST_DESPAWNING) state.spawn(store, d, tick);
      state.seen[d] = stamp;
      const layout = this.layouts[g.typeId]!;
      const owner = store.owner[d]!;
      const view = owner === nid ? 0 : 1;
      if (layout.viewDependent && owner !== 0) group.addViewOwner(owner);
      const isPred = predicted !== undefined && predicted(g);
      let age = state.sentAny[d] === 1 ? tickDiff(tick, state.lastSent[d]! >>> 0) : tickDiff(tick, state.since[d]! >>> 0) + 1;
      age = age < 1 ? 1 : age > MAX_AGE_TICKS ? MAX_AGE_TICKS : age;
      let flags = 0;
      let b0 = -1;
      let b1 = -1;
      let age0 = 0;
      let age1 = 0;
      if (state.st[d] === ST_SPAWNING) flags = F_SPAWN;
      else {
        const a0 = state.a0s[d]!;
        if (store.has(d, a0, state.a0t[d]! >>> 0)) {
          b0 = a0;
          flags = F_B0;
          age0 = tickDiff(tick, state.a0t[d]! >>> 0);
          if (!isPred && age < this.refreshTicks && store.unchangedSince(d, state.a0t[d]! >>> 0)) continue;
          const a1 = state.a1s[d]!;
          if (layout.hasLin && store.has(d, a1, state.a1t[d]! >>> 0)) {
            const dt1 = tickDiff(state.a0t[d]! >>> 0, state.a1t[d]! >>> 0);
            if (dt1 > 0 && age0 <= 4 * dt1) {
              b1 = a1;
              age1 = dt1;
            }
          }
        }
      }
      const k = c.n++;
      c.dense[k] = d;
      c.id[k] = id;
      this.body(k, d, layout, view, flags, b0, b1, age0, age1);
      const imp = g.importance === undefined ? 1 : g.importance > 0 ? Math.min(Math.max(g.importance, 1 / 256), MAX_IMPORTANCE) : 1 / 256;
      c.prio[k] = isPred ? PREDICTED_PRIORITY : imp * age;
      const base = (c.flags[k]! & F_SPAWN) !== 0 ? 0 : 1 + codeBits(c.age0[k]!) + (c.age0[k] !== 0 ? codeBits(c.age1[k]!) : 0);
      c.bits[k] = codeBits(prevCand < 0 ? id : id - prevCand - 1) + 1 + base + c.len[k]!;
      prevCand = id;
    }
  }

  private allocate(g: SnapshotGhost): number {
    if (!Number.isInteger(g.typeId) || this.layouts[g.typeId] === undefined) throw usage(`ghost ${g.id} has typeId ${g.typeId}, which is not a ghost type of the protocol (0..${this.layouts.length - 1}).`);
    if (!Number.isInteger(g.owner) || g.owner < 0 || g.owner > 0xffff_ffff) throw usage(`ghost ${g.id} has owner ${g.owner}; pass the owner's networkId, or 0 for none.`);
    const d = this.store.alloc(g.id, g.typeId, g.owner);
    this.cache.ensure(this.store.cap);
    return d;
  }

  /** Find or encode candidate k's body: spawn, or update against b0 (and b1 when it is shorter). */
  private body(k: number, d: number, layout: TypeLayout, view: number, flags: number, b0: number, b1: number, age0: number, age1: number): void {
    const c = this.cand;
    const viewKey = layout.viewDependent ? view + 1 : 0;
    const key = (flags & F_SPAWN) !== 0 ? (1 << 20) | viewKey : (b0 + 1) | ((b1 + 1) << 8) | (viewKey << 16);
    const cache = this.cache;
    let i = cache.find(d, key);
    if (i < 0) {
      const sink = cache.sink;
      const store = this.store;
      const base = this.base;
      const useB0 = b0 >= 0;
      base.b0 = useB0 ? store.hist : layout.defaultRow;
      base.b0o = useB0 ? store.histOffset(d, b0) : 0;
      base.b0s = useB0 ? store.histStrs : layout.defaultStrings;
      base.b0so = useB0 ? store.histStrOffset(d, b0) : 0;
      base.b1 = null;
      const off = sink.bitLength;
      if ((flags & F_SPAWN) !== 0) {
        putCode(sink, layout.typeId);
        putCode(sink, store.owner[d]!);
      }
      if (b1 >= 0) {
        base.b1 = store.hist;
        base.b1o = store.histOffset(d, b1);
        base.dt0 = age0;
        base.dt1 = age1;
      }
      if (this.writers[layout.typeId]![view]!(sink, store.cur, d * store.stride, store.curStrs, d * store.sstride, base)) flags |= F_B1;
      const len = sink.bitLength - off;
      i = cache.add(d, key, off, len, flags);
      if (i < 0) {
        c.off[k] = off;
        c.len[k] = len;
        c.flags[k] = flags;
        c.age0[k] = age0;
        c.age1[k] = (flags & F_B1) !== 0 ? age1 : 0;
        return;
      }
    }
    c.off[k] = cache.off[i]!;
    c.len[k] = cache.len[i]!;
    c.flags[k] = cache.flags[i]!;
    c.age0[k] = age0;
    c.age1[k] = (cache.flags[i]! & F_B1) !== 0 ? age1 : 0;
  }

  /** Ghosts the connection knows but no longer gets: despawn (until acked). Returns how many fit. */
  private despawns(state: GhostStates, tick: Tick): number {
    const gone = this.gone;
    gone.n = 0;
    for (let k = state.knownCount - 1; k >= 0; k--) {
      const d = state.known[k]!;
      if (state.seen[d] === state.stamp) continue;
      if (state.st[d] === ST_SPAWNING && state.sentAny[d] === 0) {
        state.drop(this.store, d);
        continue;
      }
      if (state.st[d] !== ST_DESPAWNING) {
        state.st[d] = ST_DESPAWNING;
        state.since[d] = tick | 0;
      }
      gone.push(this.store.id[d]!, d);
    }
    gone.sort();
    // At most half the budget; the rest wait for the next snapshot.
    let bits = 0;
    for (let j = 0, prev = -1; j < gone.n; prev = gone.id(j), j++) {
      bits += codeBits(gone.id(j) - prev - 1);
      if (bits > this.budgetBytes * 4) return j;
    }
    return gone.n;
  }

  /** Encode the inputs section's entries into inW; returns the section's bits. */
  private encodeInputs(inputs: readonly SnapshotInput[] | undefined): number {
    this.inW.reset();
    this.inCount = 0;
    if (inputs === undefined || inputs.length === 0) return 1;
    const sink = this.inSink.begin(this.inW);
    const cap = this.budgetBytes * 2; // a quarter of the budget, in bits
    for (const input of inputs) {
      const start = sink.bitLength;
      putCode(sink, input.networkId >>> 0);
      sink.flush();
      this.protocol.input.write(this.inW, input.values);
      if (1 + codeBits(this.inCount + 1) + this.inW.bitLength > cap) {
        this.inBits = start;
        return 1 + codeBits(this.inCount) + start;
      }
      this.inCount++;
    }
    this.inBits = this.inW.bitLength;
    return 1 + codeBits(this.inCount) + this.inBits;
  }

  private write(tick: Tick, despawnCount: number, body: Uint8Array): void {
    const sink = this.sink.begin(this.w.reset());
    sink.put(MessageKind.Snapshot, 8);
    sink.put(0, 16);
    sink.put(tick, 32);
    putCode(sink, despawnCount);
    for (let j = 0, prev = -1; j < despawnCount; prev = this.gone.id(j), j++) putCode(sink, this.gone.id(j) - prev - 1);
    const c = this.cand;
    let count = 0;
    for (let k = 0; k < c.n; k++) count += c.sel[k]!;
    putCode(sink, count);
    let prev = -1;
    let p0 = -1;
    let p1 = -1;
    for (let k = 0; k < c.n; k++) {
      if (c.sel[k] === 0) continue;
      const id = c.id[k]!;
      putCode(sink, id - prev - 1);
      prev = id;
      if ((c.flags[k]! & F_SPAWN) !== 0) sink.put(1, 1);
      else {
        const a0 = c.age0[k]!;
        const a1 = c.age1[k]!;
        if (a0 === p0 && a1 === p1) sink.put(1 << 1, 2);
        else {
          sink.put(0, 2);
          putCode(sink, a0);
          if (a0 !== 0) putCode(sink, a1);
          p0 = a0;
          p1 = a1;
        }
      }
      copyBits(sink, body, c.off[k]!, c.len[k]!);
    }
    if (this.inCount === 0) sink.put(0, 1);
    else {
      sink.put(1, 1);
      putCode(sink, this.inCount);
      sink.flush();
      copyBits(sink, this.inW.view(), 0, this.inBits);
    }
    sink.flush();
  }

  /** Remember what this snapshot carried, for its ack. */
  private commit(state: GhostStates, tick: Tick, despawnCount: number): void {
    const rec = state.record(tick);
    const c = this.cand;
    for (let k = 0; k < c.n; k++) {
      if (c.sel[k] === 0) continue;
      const d = c.dense[k]!;
      state.lastSent[d] = tick | 0;
      state.sentAny[d] = 1;
      rec.push(d, this.store.push(d, tick), (c.flags[k]! & F_SPAWN) !== 0 ? REC_SPAWN : REC_UPDATE);
    }
    for (let j = 0; j < despawnCount; j++) rec.push(this.gone.dense(j), 0, REC_DESPAWN);
    state.sent.set(tick, rec);
    state.lastTick = tick;
    state.hasEncoded = true;
  }
}
