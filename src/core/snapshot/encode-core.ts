// The snapshot encode for one GhostStates (one connection, or a group of identical
// ones): collect the candidates and their bodies (shared across connections through
// the per-tick cache), despawns and inputs, fill the budget by priority, write the
// message (format.ts) and only then record what it carried. The steady state takes a
// faster path first (steady-path.ts), which reads the members marked "(steady path)".

import type { Protocol } from '../protocol.ts';
import type { Tick } from '../tick.ts';
import { BodyCache } from './cache.ts';
import { Candidates, Despawns } from './candidates.ts';
import { CODE_LENGTH as CODE_LENGTH_, CODE_TABLE_SIZE as CODE_TABLE_SIZE_, codeBits as codeBitsImport, putCode as putCodeImport } from './codes.ts';
import type { Group } from './connection.ts';
import { compileBodyWriters, type BodyWriter } from './compiled-delta.ts';
import { compileSteadyWriters, type SteadyWriter } from './compiled-steady.ts';
import { emptyBaselines } from './delta.ts';
import type { SnapshotGhost, SnapshotInput } from './encoder.ts';
import { F_B0 as F_B0_, F_B1 as F_B1_, F_SPAWN as F_SPAWN_ } from './format.ts';
import { G_A0S as G_A0S_, G_A0T as G_A0T_, G_A1S as G_A1S_, G_A1T as G_A1T_, G_LAST_SENT as G_LAST_SENT_, G_SENT_ANY as G_SENT_ANY_, G_SINCE as G_SINCE_, G_ST as G_ST_, G_STRIDE as G_STRIDE_, REC_DESPAWN as REC_DESPAWN_, REC_SPAWN as REC_SPAWN_, REC_UPDATE as REC_UPDATE_, ST_DESPAWNING as ST_DESPAWNING_, ST_NONE as ST_NONE_, ST_SPAWNING as ST_SPAWNING_, type GhostStates } from './ghost-states.ts';
import type { TypeLayout } from './layout.ts';
import { MessageWriter, MSG_HEADER_BITS } from './message.ts';
import { encodeSteady } from './steady-path.ts';
import { MAX_AGE_TICKS as MAX_AGE_TICKS_, MAX_IMPORTANCE as MAX_IMPORTANCE_, PREDICTED_PRIORITY as PREDICTED_PRIORITY_, Selector } from './priority.ts';
import type { GhostStore } from './store.ts';
import type { BitSink } from './codes.ts';
import { usage } from './usage.ts';

// Module-local copies of the imports used per ghost: where modules run as CommonJS
// (tsx, some bundlers), every use of an imported binding is a getter call.
const codeBits = codeBitsImport, putCode = putCodeImport, CODE_LENGTH = CODE_LENGTH_, CODE_TABLE_SIZE = CODE_TABLE_SIZE_;
const F_B0 = F_B0_, F_B1 = F_B1_, F_SPAWN = F_SPAWN_;
const REC_DESPAWN = REC_DESPAWN_, REC_SPAWN = REC_SPAWN_, REC_UPDATE = REC_UPDATE_;
const G_A0S = G_A0S_, G_A0T = G_A0T_, G_A1S = G_A1S_, G_A1T = G_A1T_, G_LAST_SENT = G_LAST_SENT_, G_SENT_ANY = G_SENT_ANY_, G_SINCE = G_SINCE_, G_ST = G_ST_, G_STRIDE = G_STRIDE_;
const ST_DESPAWNING = ST_DESPAWNING_, ST_NONE = ST_NONE_, ST_SPAWNING = ST_SPAWNING_;
const MAX_AGE_TICKS = MAX_AGE_TICKS_, MAX_IMPORTANCE = MAX_IMPORTANCE_, PREDICTED_PRIORITY = PREDICTED_PRIORITY_;

export class EncodeCore {
  readonly cache = new BodyCache();
  /** (steady path) */
  readonly writers: readonly (readonly [BodyWriter, BodyWriter])[];
  /** Fused quantize-and-write per type and view for the steady path (undefined without code generation). */
  /** (steady path) */
  readonly steadyWriters: readonly ((readonly [SteadyWriter, SteadyWriter]) | undefined)[];
  /** (steady path) */
  readonly base = emptyBaselines();
  /** (steady path) */
  readonly cand = new Candidates();
  private readonly gone = new Despawns();
  private readonly selector = new Selector();
  /** (steady path) */
  readonly msg: MessageWriter;
  private inBits = 0;
  /**
   * The records stream: while the bodies of this encode's candidates are all written
   * fresh, in order, each is preceded in the cache by the record header it gets when
   * every candidate is sent (the id gap, the spawn bit or the baselines as the writer
   * would put them). Then the message takes the records in one copy. `streamOk` turns
   * false at the first body found in the cache or header guessed wrong.
   */
  private streamOk = false;
  private streamStart = 0;
  private streamEnd = 0;
  private streamId = -1;
  private streamP0 = -1;
  private streamP1 = -1;
  /** Dense index of the ghost at each position of the last ghost list (a hint; -1 = none). */
  /** (steady path) */
  lastDense = new Int32Array(0);

  constructor(
    private readonly protocol: Protocol,
    readonly layouts: readonly TypeLayout[],
    readonly store: GhostStore,
    readonly budgetBytes: number,
    readonly refreshTicks: number,
  ) {
    this.writers = layouts.map(compileBodyWriters);
    this.steadyWriters = layouts.map(compileSteadyWriters);
    this.msg = new MessageWriter(protocol, budgetBytes);
  }

  /** Encode the message for `state` (recipient `nid`); notes view owners in `group`. Returns a view of the writer. */
  /** The tick being encoded (spawn records carry the age of the ghost relative to it). */
  private tick: Tick = 0;

  encode(state: GhostStates, nid: number, group: Group, tick: Tick, ghosts: readonly SnapshotGhost[], predicted: ((g: SnapshotGhost) => boolean) | undefined, inputs: readonly SnapshotInput[] | undefined): Uint8Array {
    this.tick = tick;
    group.viewOwnerCount = 0;
    const inputBits = this.msg.inputs(inputs);
    group.steadyOk = false;
    // The steady state first (see `steady`); it needs every listed ghost known and nothing else known.
    if (this.steadyPath && ghosts.length === state.knownCount) {
      const msg = encodeSteady(this, state, nid, group, tick, ghosts, predicted, inputBits);
      if (msg !== null) {
        group.steadyOk = true;
        this.steadyEncodes++;
        return msg;
      }
      this.steadyFallbacks++;
      group.viewOwnerCount = 0;
    }
    this.collect(state, nid, group, tick, ghosts, predicted);
    const despawnCount = this.despawns(state, tick);
    const budgetBits = this.budgetBytes * 8;
    let gapBits = 0;
    for (let j = 0, prev = -1; j < despawnCount; prev = this.gone.id(j), j++) gapBits += codeBits(this.gone.id(j) - prev - 1);
    const c = this.cand;
    const avail = budgetBits - MSG_HEADER_BITS - codeBits(despawnCount) - gapBits - codeBits(c.n) - inputBits;
    this.selector.select(c.n, c.prio, c.bits, avail, c.sel);
    this.cache.sink.flush();
    const body = this.cache.w.view();
    // Estimates are rough (baselines, id gaps): rewrite to fill what they left unused, and
    // to drop the lowest priorities when they were too low. A few rounds at most.
    for (let round = 0; ; round++) {
      this.msg.write(tick, this.gone, despawnCount, c, body, this.streamOk ? this.streamStart : -1, this.streamEnd);
      const over = this.msg.bitLength - budgetBits;
      if (over > 0) {
        if (!this.selector.dropLowest(c.n, c.prio, c.bits, over, c.sel)) break;
      } else if (round >= 3 || !this.selector.addMore(c.n, c.prio, c.bits, -over, c.sel)) break;
    }
    this.commit(state, tick, despawnCount);
    return this.msg.finish();
  }

  /**
   * (steady path) Whether the steady path logs its bodies for the per-tick cache. Off when
   * no other encode of the tick can look one up: the group holds every connection and its
   * last encode took the steady path (so this one is unlikely to fall back to the general
   * path, which would reuse them). A member that splits off at this tick, or a fallback,
   * encodes its bodies again instead.
   */
  logBodies = true;

  /** Off: every encode takes the general path (tests encode the same scenarios both ways). */
  steadyPath = true;
  /** Encodes the steady-state path made, and the ones it handed to the general path. */
  steadyEncodes = 0;
  steadyFallbacks = 0;

  /** Write a record header (also the steady path). */
  header(sink: BitSink, gap: number, age0: number, a1: number, q0: number, q1: number): void {
    putCode(sink, gap);
    if (age0 === q0 && a1 === q1) sink.put(1 << 1, 2);
    else {
      sink.put(0, 2);
      putCode(sink, age0);
      if (age0 !== 0) putCode(sink, a1);
    }
  }

  /** Quantize `ghosts` for `tick` (see SnapshotEncoder.prepare). */
  prepare(tick: Tick, ghosts: readonly SnapshotGhost[]): void {
    this.tick = tick;
    const store = this.store;
    for (const g of ghosts) {
      let d = store.ids.get(g.id >>> 0);
      if (d < 0 || g.id !== g.id >>> 0) {
        if (g.id !== g.id >>> 0) throw usage(`ghost id ${g.id} is not a uint32.`);
        d = this.allocate(g);
      } else if (store.typeId[d] !== g.typeId || store.owner[d] !== g.owner) throw usage(`ghost ${g.id} changed its typeId or owner; they are immutable — forget(${g.id}) and spawn a new ghost.`);
      store.current(d, tick, g.values);
    }
  }

  /** Gather this connection's candidates; spawn states for new ghosts. */
  private collect(state: GhostStates, nid: number, group: Group, tick: Tick, ghosts: readonly SnapshotGhost[], predicted: ((g: SnapshotGhost) => boolean) | undefined): void {
    const store = this.store;
    const c = this.cand;
    c.reserve(ghosts.length);
    if (this.lastDense.length < ghosts.length) {
      const next = new Int32Array(Math.max(64, ghosts.length, this.lastDense.length * 2)).fill(-1);
      next.set(this.lastDense);
      this.lastDense = next;
    }
    c.n = 0;
    this.streamOk = true;
    this.streamStart = this.streamEnd = this.cache.sink.bitLength;
    this.streamId = this.streamP0 = this.streamP1 = -1;
    const stamp = ++state.stamp;
    state.ensure(store.cap);
    let prevId = -1;
    let prevCand = -1;
    for (let i = 0; i < ghosts.length; i++) {
      const g = ghosts[i]!;
      const id = g.id;
      if (!(id > prevId) || id !== id >>> 0) throw usage(`snapshot ghosts must be sorted by id, unique uint32 ids; got ${id} after ${prevId}.`);
      prevId = id;
      // The ghost lists of consecutive encodes are mostly alike: try the index this position had last time.
      let d = i < this.lastDense.length ? this.lastDense[i]! : -1;
      if (!store.holds(d, id)) d = store.ids.get(id);
      if (d < 0) {
        d = this.allocate(g);
        state.ensure(store.cap);
      } else if (store.typeId[d] !== g.typeId || store.owner[d] !== g.owner) throw usage(`ghost ${id} changed its typeId or owner; they are immutable — forget(${id}) and spawn a new ghost.`);
      this.lastDense[i] = d;
      store.current(d, tick, g.values);
      const go = d * G_STRIDE;
      const st0 = state.g[go + G_ST]!;
      if (st0 === ST_NONE || st0 === ST_DESPAWNING) state.spawn(store, d, tick);
      state.seen[d] = stamp;
      const layout = this.layouts[g.typeId]!;
      const owner = store.owner[d]!;
      const view = owner === nid ? 0 : 1;
      if (layout.viewDependent && owner !== 0) group.addViewOwner(owner);
      const isPred = predicted !== undefined && predicted(g);
      // Ticks wrap: differences as int32 (tickDiff).
      const gs = state.g;
      let age = gs[go + G_SENT_ANY] === 1 ? (tick - gs[go + G_LAST_SENT]!) | 0 : ((tick - gs[go + G_SINCE]!) | 0) + 1;
      age = age < 1 ? 1 : age > MAX_AGE_TICKS ? MAX_AGE_TICKS : age;
      let flags = 0;
      let b0 = -1;
      let b1 = -1;
      let age0 = 0;
      let age1 = 0;
      if (gs[go + G_ST] === ST_SPAWNING) flags = F_SPAWN;
      else {
        const a0 = gs[go + G_A0S]!;
        const t0 = gs[go + G_A0T]!;
        if (store.has(d, a0, t0 >>> 0)) {
          b0 = a0;
          flags = F_B0;
          age0 = (tick - t0) | 0;
          if (!isPred && age < this.refreshTicks && store.unchangedSince(d, t0 >>> 0)) continue;
          const a1 = gs[go + G_A1S]!;
          if (layout.hasLin && store.has(d, a1, gs[go + G_A1T]! >>> 0)) {
            const dt1 = (t0 - gs[go + G_A1T]!) | 0;
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
      this.body(k, d, id, layout, view, flags, b0, b1, age0, age1);
      const imp = g.importance === undefined ? 1 : g.importance > 0 ? Math.min(Math.max(g.importance, 1 / 256), MAX_IMPORTANCE) : 1 / 256;
      c.prio[k] = isPred ? PREDICTED_PRIORITY : imp * age;
      // Record estimate: id gap, spawn/baseline bits, the body. Codes of small values from the table (codeBits is the slow path).
      const a0k = c.age0[k]!, a1k = c.age1[k]!, gap = prevCand < 0 ? id : id - prevCand - 1;
      const base = (c.flags[k]! & F_SPAWN) !== 0 ? 0 : 1 + (a0k < CODE_TABLE_SIZE ? CODE_LENGTH[a0k]! : codeBits(a0k)) + (a0k !== 0 ? (a1k < CODE_TABLE_SIZE ? CODE_LENGTH[a1k]! : codeBits(a1k)) : 0);
      c.bits[k] = (gap < CODE_TABLE_SIZE ? CODE_LENGTH[gap]! : codeBits(gap)) + 1 + base + c.len[k]!;
      prevCand = id;
    }
  }

  private allocate(g: SnapshotGhost): number {
    if (!Number.isInteger(g.typeId) || this.layouts[g.typeId] === undefined) throw usage(`ghost ${g.id} has typeId ${g.typeId}, which is not a ghost type of the protocol (0..${this.layouts.length - 1}).`);
    if (!Number.isInteger(g.owner) || g.owner < 0 || g.owner > 0xffff_ffff) throw usage(`ghost ${g.id} has owner ${g.owner}; pass the owner's networkId, or 0 for none.`);
    const d = this.store.alloc(g.id, g.typeId, g.owner, g.spawnTick ?? this.tick);
    this.cache.ensure(this.store.cap);
    return d;
  }

  /** Find or encode candidate k's body: spawn, or update against b0 (and b1 when it is shorter). */
  private body(k: number, d: number, id: number, layout: TypeLayout, view: number, flags: number, b0: number, b1: number, age0: number, age1: number): void {
    const c = this.cand;
    const viewKey = layout.viewDependent ? view + 1 : 0;
    const key = (flags & F_SPAWN) !== 0 ? (1 << 20) | viewKey : (b0 + 1) | ((b1 + 1) << 8) | (viewKey << 16);
    const cache = this.cache;
    const i = cache.find(d, key);
    if (i >= 0) this.streamOk = false; // not written here: not in the stream
    else {
      const sink = cache.sink;
      const store = this.store;
      const base = this.base;
      const useB0 = b0 >= 0;
      base.b0 = useB0 ? store.hist : layout.defaultRow;
      base.b0o = useB0 ? store.histOffset(d, b0) : 0;
      base.b0s = useB0 ? store.histStrs : layout.defaultStrings;
      base.b0so = useB0 ? store.histStrOffset(d, b0) : 0;
      base.b1 = null;
      const stream = this.streamOk && sink.bitLength === this.streamEnd;
      if (!stream) this.streamOk = false;
      const prevId = this.streamId;
      const p0 = this.streamP0;
      const p1 = this.streamP1;
      if (b1 >= 0) {
        base.b1 = store.hist;
        base.b1o = store.histOffset(d, b1);
        base.dt0 = age0;
        base.dt1 = age1;
      }
      // Guess that the body uses b1 when it has one; if not, write header and body again.
      let off = this.write(stream, sink, d, id, layout, flags, p0, p1, age0, b1 >= 0 ? age1 : 0);
      if (this.writers[layout.typeId]![view]!(sink, store.hist, store.curOffset(d), store.histStrs, store.curStrOffset(d), base)) flags |= F_B1;
      if (stream && ((flags & F_B1) !== 0) !== (b1 >= 0)) {
        sink.rewind(this.streamEnd);
        this.streamId = prevId;
        this.streamP0 = p0;
        this.streamP1 = p1;
        off = this.write(stream, sink, d, id, layout, flags, p0, p1, age0, (flags & F_B1) !== 0 ? age1 : 0);
        this.writers[layout.typeId]![view]!(sink, store.hist, store.curOffset(d), store.histStrs, store.curStrOffset(d), base);
      }
      const end = sink.bitLength;
      const len = end - off;
      if (stream) {
        this.streamEnd = end;
        this.streamId = id;
      }
      cache.add(d, key, off, len, flags);
      c.off[k] = off;
      c.len[k] = len;
      c.flags[k] = flags;
      c.age0[k] = age0;
      c.age1[k] = (flags & F_B1) !== 0 ? age1 : 0;
      return;
    }
    c.off[k] = cache.off[i]!;
    c.len[k] = cache.len[i]!;
    c.flags[k] = cache.flags[i]!;
    c.age0[k] = age0;
    c.age1[k] = (cache.flags[i]! & F_B1) !== 0 ? age1 : 0;
  }

  /**
   * Write candidate `id`'s record header (when `stream`: as the message has it when every
   * candidate is sent; `p0`, `p1`: the baseline ages of the previous update record, `a1`:
   * the age of b1 if the body uses it, else 0) and the start of its body (the spawn
   * fields). Returns the body's bit offset.
   */
  private write(stream: boolean, sink: BitSink, d: number, id: number, layout: TypeLayout, flags: number, p0: number, p1: number, age0: number, a1: number): number {
    if (stream) {
      putCode(sink, id - this.streamId - 1);
      if ((flags & F_SPAWN) !== 0) sink.put(1, 1);
      else if (age0 === p0 && a1 === p1) sink.put(1 << 1, 2);
      else {
        sink.put(0, 2);
        putCode(sink, age0);
        if (age0 !== 0) putCode(sink, a1);
        this.streamP0 = age0;
        this.streamP1 = a1;
      }
    }
    const off = sink.bitLength;
    if ((flags & F_SPAWN) !== 0) {
      putCode(sink, layout.typeId);
      putCode(sink, this.store.owner[d]!);
      // Ticks since the ghost spawned (the cache is per tick, so this is stable within it).
      putCode(sink, Math.max(0, (this.tick - this.store.spawnTick[d]!) | 0));
    }
    return off;
  }

  /** Ghosts the connection knows but no longer gets: despawn (until acked). Returns how many fit. */
  private despawns(state: GhostStates, tick: Tick): number {
    const gone = this.gone;
    gone.n = 0;
    for (let k = state.knownCount - 1; k >= 0; k--) {
      const d = state.known[k]!;
      if (state.seen[d] === state.stamp) continue;
      const go = d * G_STRIDE;
      if (state.g[go + G_ST] === ST_SPAWNING && state.g[go + G_SENT_ANY] === 0) {
        state.drop(this.store, d);
        continue;
      }
      if (state.g[go + G_ST] !== ST_DESPAWNING) {
        state.g[go + G_ST] = ST_DESPAWNING;
        state.g[go + G_SINCE] = tick | 0;
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

  /** Remember what this snapshot carried, for its ack. */
  private commit(state: GhostStates, tick: Tick, despawnCount: number): void {
    const c = this.cand;
    const rec = state.record(tick, c.n + despawnCount);
    for (let k = 0; k < c.n; k++) {
      if (c.sel[k] === 0) continue;
      const d = c.dense[k]!;
      state.g[d * G_STRIDE + G_LAST_SENT] = tick | 0;
      state.g[d * G_STRIDE + G_SENT_ANY] = 1;
      rec.push(d, this.store.push(d, tick), (c.flags[k]! & F_SPAWN) !== 0 ? REC_SPAWN : REC_UPDATE);
    }
    for (let j = 0; j < despawnCount; j++) rec.push(this.gone.dense(j), 0, REC_DESPAWN);
    state.sent.set(tick, rec);
    state.lastTick = tick;
    state.hasEncoded = true;
  }
}
