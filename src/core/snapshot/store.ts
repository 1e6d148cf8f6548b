// Server-side ghost store of the snapshot encoder, shared by all connections: ghost
// id → dense index; a ring of the last SNAPSHOT_GHOST_HISTORY rows each ghost was SENT
// with (to anyone), which every connection's baselines point into; and its current
// quantized row (once per tick), kept in the ring slot after the head, so sending it
// only moves the head (no copy). Rows live in flat typed-array arenas.

import { NetcodeError } from '../errors.ts';
import { isNewer as isNewerImport, type Tick } from '../tick.ts';
import { SNAPSHOT_GHOST_HISTORY } from '../wire.ts';
import { compileQuantizer, type Quantizer } from './compiled.ts';
import { IntMap } from './intmap.ts';
import { quantizeInto, rowsEqual as rowsEqualImport, type TypeLayout } from './layout.ts';

// Module-local copies of the imports used per ghost (under CommonJS each use of an import is a getter call).
const isNewer = isNewerImport, rowsEqual = rowsEqualImport;

const H = SNAPSHOT_GHOST_HISTORY;
/** Fields of a ghost's ring-state record in GhostStore.rs (see there). */
export const R_CUR_OK = 0, R_CUR_TICK = 1, R_CUR_SLOT = 2, R_EQ_HEAD = 3, R_HEAD = 4, R_HEAD_TICK = 5, R_RUN_START = 6, R_STRIDE = 8;
/** Dense indices fit 21 bits (sent-record packing in ghost-states.ts). */
export const MAX_DENSE = 1 << 21;

function grow<A extends Int32Array | Uint32Array | Uint8Array | Float64Array>(a: A, n: number): A {
  const b = new (a.constructor as new (n: number) => A)(n);
  b.set(a);
  return b;
}

export class GhostStore {
  cap = 0;
  /** @internal Dense indices handed out so far (the steady encode path reads this and the ring arrays below directly). */
  used = 0;
  readonly ids = new IntMap(256);
  private readonly free: number[] = [];
  /** Slots that may become free: freed at the next tick, so states cloned within a tick can still take them back. */
  private readonly maybeFree: number[] = [];
  private freed = new Uint8Array(0);
  id = new Uint32Array(0);
  typeId = new Int32Array(0);
  owner = new Float64Array(0);
  /** Server tick each ghost was spawned at (sent in spawn records, for predicted-spawn classification). */
  spawnTick = new Float64Array(0);
  /** Connection states whose state for the ghost is not NONE. */
  refs = new Int32Array(0);
  destroyed = new Uint8Array(0);
  /** Slots (and strings) per row: the most any ghost type needs. */
  readonly stride: number;
  readonly sstride: number;
  /**
   * Ring state per ghost, interleaved (one 32-byte record per ghost at rs[d * R_STRIDE]):
   * the current row is ring slot R_CUR_SLOT (the one after the head until it is sent),
   * quantized at R_CUR_TICK when R_CUR_OK is 1; R_EQ_HEAD: it equals the newest sent row;
   * R_HEAD: ring head (newest sent row), R_HEAD_TICK its tick, R_RUN_START the first tick
   * of its run of equal rows.
   */
  /** @internal */
  rs = new Int32Array(0);
  /**
   * Sent rows at hist[(slot · cap + d) · stride] — slot-major, so ghosts sent together
   * (same ring slots) sit next to each other; each row's tick (entryTick) and whether it is valid (entryOk).
   */
  hist = new Int32Array(0);
  histStrs: string[] = [];
  /** @internal */
  entryTick = new Int32Array(0);
  /** @internal */
  entryOk = new Uint8Array(0);
  private readonly quantizers: readonly Quantizer[];

  constructor(readonly layouts: readonly TypeLayout[]) {
    this.quantizers = layouts.map(compileQuantizer);
    this.stride = Math.max(1, ...layouts.map((l) => l.slotCount));
    this.sstride = Math.max(0, ...layouts.map((l) => l.stringCount));
  }

  private grow(min: number): void {
    const cap = Math.max(64, this.cap * 2, min);
    if (cap > MAX_DENSE) throw new NetcodeError('usage', `react-netcode: more than ${MAX_DENSE} ghosts in the snapshot encoder; forget() destroyed ghosts.`);
    this.id = grow(this.id, cap);
    this.typeId = grow(this.typeId, cap);
    this.owner = grow(this.owner, cap);
    this.spawnTick = grow(this.spawnTick, cap);
    this.refs = grow(this.refs, cap);
    this.destroyed = grow(this.destroyed, cap);
    this.freed = grow(this.freed, cap);
    this.rs = grow(this.rs, cap * R_STRIDE);
    // Slot-major arrays are laid out by capacity: move each slot's block.
    const old = this.cap;
    const relayout = <A extends Int32Array | Uint8Array>(a: A, per: number): A => {
      const b = new (a.constructor as new (n: number) => A)(cap * H * per);
      for (let slot = 0; slot < H && old > 0; slot++) b.set(a.subarray(slot * old * per, (slot + 1) * old * per), slot * cap * per);
      return b;
    };
    this.entryTick = relayout(this.entryTick, 1);
    this.entryOk = relayout(this.entryOk, 1);
    this.hist = relayout(this.hist, this.stride);
    const strs: string[] = new Array<string>(cap * H * this.sstride).fill('');
    for (let slot = 0; slot < H; slot++) for (let i = 0; i < old * this.sstride; i++) strs[slot * cap * this.sstride + i] = this.histStrs[slot * old * this.sstride + i]!;
    this.histStrs = strs;
    this.cap = cap;
  }

  /** True when dense index d currently belongs to the live ghost `id` (a cheap check of a remembered index, instead of `ids.get`). */
  holds(d: number, id: number): boolean {
    return d >= 0 && d < this.used && this.id[d] === id && this.destroyed[d] === 0;
  }

  /** Dense index for a new ghost `id`. */
  alloc(id: number, typeId: number, owner: number, spawnTick = 0): number {
    let d = this.free.pop();
    if (d === undefined) {
      if (this.used >= this.cap) this.grow(this.used + 1);
      d = this.used++;
    }
    this.ids.set(id, d);
    this.id[d] = id;
    this.typeId[d] = typeId;
    this.owner[d] = owner;
    this.spawnTick[d] = spawnTick >>> 0;
    this.refs[d] = 0;
    this.destroyed[d] = 0;
    this.freed[d] = 0;
    this.rs[d * R_STRIDE + R_CUR_OK] = 0;
    this.rs[d * R_STRIDE + R_HEAD] = H - 1;
    this.clearRing(d);
    return d;
  }

  /** The ghost is gone from the game; its slot is freed once no connection state refers to it. */
  destroy(d: number): void {
    if (this.destroyed[d] === 1) return;
    this.ids.delete(this.id[d]!);
    this.destroyed[d] = 1;
    this.rs[d * R_STRIDE + R_CUR_OK] = 0;
    this.clearRing(d);
    if (this.refs[d] === 0) this.maybeFree.push(d);
  }

  private clearRing(d: number): void {
    for (let slot = 0; slot < H; slot++) this.entryOk[slot * this.cap + d] = 0;
  }

  /** One connection state no longer refers to the ghost. */
  unref(d: number): void {
    if (--this.refs[d]! === 0 && this.destroyed[d] === 1) this.maybeFree.push(d);
  }

  /** Start of a tick: slots of destroyed ghosts nobody refers to become reusable. */
  flushFree(): void {
    for (const d of this.maybeFree) {
      if (this.refs[d] !== 0 || this.destroyed[d] !== 1 || this.freed[d] === 1) continue;
      this.freed[d] = 1;
      this.free.push(d);
    }
    this.maybeFree.length = 0;
  }

  /**
   * Quantize the ghost's `values` for `tick` into its current row (once per tick): the
   * ring slot after the head, whose old row (the oldest one kept) is dropped first.
   * Throws WireError on a bad value.
   */
  current(d: number, tick: Tick, values: Record<string, unknown>): void {
    const rs = this.rs, r = d * R_STRIDE;
    if (rs[r + R_CUR_OK] === 1 && rs[r + R_CUR_TICK] === (tick | 0)) return;
    const layout = this.layouts[this.typeId[d]!]!;
    const cap = this.cap;
    const h = rs[r + R_HEAD]!;
    const slot = h + 1 === H ? 0 : h + 1;
    const e = slot * cap + d;
    const co = e * this.stride;
    const so = e * this.sstride;
    rs[r + R_CUR_OK] = 0;
    this.entryOk[e] = 0;
    rs[r + R_CUR_SLOT] = slot;
    if (!this.quantizers[layout.typeId]!(values, this.hist, co, this.histStrs, so)) {
      quantizeInto(layout.fields, values, this.hist, co, this.histStrs, so, this.id[d]!, layout.name); // names the bad field
      throw new NetcodeError('usage', `react-netcode: ghost ${this.id[d]} (${layout.name}) has values its fields cannot send; check them with the ghost codec's validate().`);
    }
    rs[r + R_CUR_OK] = 1;
    rs[r + R_CUR_TICK] = tick | 0;
    const eh = h * cap + d;
    // Equal to the newest sent row? The int slots inline (a call per ghost shows in profiles), strings rarely exist.
    let eq = this.entryOk[eh] === 1;
    const hist = this.hist;
    for (let i = 0, eo = eh * this.stride, n = layout.slotCount; eq && i < n; i++) eq = hist[co + i] === hist[eo + i];
    if (eq && layout.stringCount > 0) eq = rowsEqual(0, hist, co, hist, co, layout.stringCount, this.histStrs, so, this.histStrs, eh * this.sstride);
    rs[r + R_EQ_HEAD] = eq ? 1 : 0;
  }

  /** Offset of the current row in `hist` / `histStrs` (after `current` for this tick; valid until the store grows). */
  curOffset(d: number): number {
    return (this.rs[d * R_STRIDE + R_CUR_SLOT]! * this.cap + d) * this.stride;
  }

  curStrOffset(d: number): number {
    return (this.rs[d * R_STRIDE + R_CUR_SLOT]! * this.cap + d) * this.sstride;
  }

  /** Ring slot of the sent row for `tick` (the current row, quantized for `tick`), making it the head the first time. */
  push(d: number, tick: Tick): number {
    const rs = this.rs, r = d * R_STRIDE;
    const h = rs[r + R_HEAD]!;
    const cap = this.cap;
    if (this.entryOk[h * cap + d] === 1 && rs[r + R_HEAD_TICK] === (tick | 0)) return h;
    const slot = rs[r + R_CUR_SLOT]!;
    const e = slot * cap + d;
    if (this.entryOk[h * cap + d] !== 1 || rs[r + R_EQ_HEAD] !== 1) rs[r + R_RUN_START] = tick | 0;
    rs[r + R_EQ_HEAD] = 1;
    rs[r + R_HEAD] = slot;
    rs[r + R_HEAD_TICK] = tick | 0;
    this.entryTick[e] = tick | 0;
    this.entryOk[e] = 1;
    return slot;
  }

  /** True when ring slot `slot` of ghost d still holds its row sent at `tick`. */
  has(d: number, slot: number, tick: Tick): boolean {
    const e = slot * this.cap + d;
    return slot >= 0 && this.entryOk[e] === 1 && this.entryTick[e] === (tick | 0);
  }

  /** Offset of ring slot `slot` of ghost d in `hist` (valid until the store grows). */
  histOffset(d: number, slot: number): number {
    return (slot * this.cap + d) * this.stride;
  }

  histStrOffset(d: number, slot: number): number {
    return (slot * this.cap + d) * this.sstride;
  }

  /** True when every row sent since `tick` (a sent row) equals the current row: the client has the current state. */
  unchangedSince(d: number, tick: Tick): boolean {
    return this.rs[d * R_STRIDE + R_EQ_HEAD] === 1 && !isNewer(this.rs[d * R_STRIDE + R_RUN_START]! >>> 0, tick);
  }
}
