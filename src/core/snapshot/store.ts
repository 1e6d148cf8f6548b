// The encoder's ghost store, shared by all connections: id → dense index; a ring of the last
// SNAPSHOT_GHOST_HISTORY rows each ghost was sent with (every baseline points into it); the current row,
// quantized once per tick into the slot after the head, so sending it only moves the head.

import { NetcodeError } from '../errors.ts';
import { isNewer, type Tick } from '../clock/tick.ts';
import { SNAPSHOT_GHOST_HISTORY } from '../wire.ts';
import type { TypeKernel } from './kernels.ts';
import { badValue, quantizeRow, type TypeLayout } from './layout.ts';
import { resizeAll } from './scratch.ts';

const H = SNAPSHOT_GHOST_HISTORY;
/** Dense indices fit 21 bits (sent-record packing in ghost-states.ts). */
export const MAX_DENSE = 1 << 21;

export class GhostStore {
  cap = 0;
  used = 0;
  readonly ids = new Map<number, number>();
  private readonly free: number[] = [];
  /** Slots that may become free: freed at the next tick, so states split off within a tick can still refer to them. */
  private readonly maybeFree: number[] = [];
  id = new Uint32Array(0);
  typeId = new Int32Array(0);
  owner = new Float64Array(0);
  /** Server tick each ghost was spawned at (sent in spawn records, for predicted-spawn classification). */
  spawnTick = new Float64Array(0);
  /** Connection states whose state for the ghost is not NONE. */
  refs = new Int32Array(0);
  destroyed = new Uint8Array(0);
  /** The current row is ring slot `curSlot` (the one after the head until sent), quantized at `curTick` when `curOk`. */
  curOk = new Uint8Array(0);
  curTick = new Int32Array(0);
  curSlot = new Int32Array(0);
  /** 1: the current row equals the newest sent one (the ring head, sent at `headTick`; `runStart`: first tick of its run of equal rows). */
  eqHead = new Uint8Array(0);
  head = new Int32Array(0);
  headTick = new Int32Array(0);
  runStart = new Int32Array(0);
  /** Slots (and strings) per row: the most any ghost type needs. */
  readonly stride: number;
  readonly sstride: number;
  /** Sent rows at hist[(slot · cap + d) · stride], slot-major; each row's tick (entryTick) and whether it is valid (entryOk). */
  hist = new Int32Array(0);
  histStrs: string[] = [];
  entryTick = new Int32Array(0);
  entryOk = new Uint8Array(0);

  constructor(
    readonly layouts: readonly TypeLayout[],
    private readonly kernels: readonly TypeKernel[],
  ) {
    this.stride = Math.max(1, ...layouts.map((l) => l.slotCount));
    this.sstride = Math.max(0, ...layouts.map((l) => l.stringCount));
  }

  private grow(min: number): void {
    const cap = Math.max(64, this.cap * 2, min);
    if (cap > MAX_DENSE) throw new NetcodeError('usage', `react-netcode: more than ${MAX_DENSE} ghosts in the snapshot encoder; forget() destroyed ghosts.`);
    resizeAll(this, ['id', 'typeId', 'owner', 'spawnTick', 'refs', 'destroyed', 'curOk', 'curTick', 'curSlot'], cap);
    resizeAll(this, ['eqHead', 'head', 'headTick', 'runStart'], cap);
    // Slot-major arrays are laid out by capacity: move each slot's block.
    const old = this.cap;
    const relayout = <A extends { [i: number]: unknown }>(a: A, per: number, b: A): A => {
      for (let slot = 0; slot < H; slot++) for (let i = 0; i < old * per; i++) b[slot * cap * per + i] = a[slot * old * per + i]!;
      return b;
    };
    this.entryTick = relayout(this.entryTick, 1, new Int32Array(cap * H));
    this.entryOk = relayout(this.entryOk, 1, new Uint8Array(cap * H));
    this.hist = relayout(this.hist, this.stride, new Int32Array(cap * H * this.stride));
    this.histStrs = relayout(this.histStrs, this.sstride, new Array<string>(cap * H * this.sstride).fill(''));
    this.cap = cap;
  }

  alloc(id: number, typeId: number, owner: number, spawnTick: number): number {
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
    this.refs[d] = this.destroyed[d] = this.curOk[d] = 0;
    this.head[d] = H - 1;
    this.clearRing(d);
    return d;
  }

  /** The ghost is gone from the game; its slot is freed once no connection state refers to it. */
  destroy(d: number): void {
    if (this.destroyed[d] === 1) return;
    this.ids.delete(this.id[d]!);
    this.destroyed[d] = 1;
    this.curOk[d] = 0;
    this.clearRing(d);
    if (this.refs[d] === 0) this.maybeFree.push(d);
  }

  private clearRing(d: number): void {
    for (let slot = 0; slot < H; slot++) this.entryOk[slot * this.cap + d] = 0;
  }

  unref(d: number): void {
    if (--this.refs[d]! === 0 && this.destroyed[d] === 1) this.maybeFree.push(d);
  }

  /** Start of a tick (after the groups' splits): slots of destroyed ghosts nobody refers to become reusable. */
  flushFree(): void {
    for (const d of this.maybeFree) if (this.refs[d] === 0 && this.destroyed[d] === 1 && !this.free.includes(d)) this.free.push(d);
    this.maybeFree.length = 0;
  }

  /** Quantize `values` for `tick` into the current row (the slot after the head; once per tick). Throws WireError. */
  current(d: number, tick: Tick, values: Record<string, unknown>): void {
    if (this.curOk[d] === 1 && this.curTick[d] === (tick | 0)) return;
    const layout = this.layouts[this.typeId[d]!]!;
    const h = this.head[d]!;
    const slot = h + 1 === H ? 0 : h + 1;
    const e = slot * this.cap + d, co = e * this.stride, so = e * this.sstride;
    this.curOk[d] = this.entryOk[e] = 0;
    this.curSlot[d] = slot;
    if (!this.kernels[layout.typeId]!.quantize(values, this.hist, co, this.histStrs, so)) {
      const bad = quantizeRow(layout.fields, values, this.hist, co, this.histStrs, so);
      if (bad >= 0) throw badValue(this.id[d]!, layout.name, layout.fields[bad]!, values);
      throw new NetcodeError('usage', `react-netcode: ghost ${this.id[d]} (${layout.name}) has values its fields cannot send; check them with the ghost codec's validate().`);
    }
    this.curOk[d] = 1;
    this.curTick[d] = tick | 0;
    const eh = h * this.cap + d;
    let eq = this.entryOk[eh] === 1;
    for (let i = 0, eo = eh * this.stride; eq && i < layout.slotCount; i++) eq = this.hist[co + i] === this.hist[eo + i];
    for (let i = 0, eso = eh * this.sstride; eq && i < layout.stringCount; i++) eq = this.histStrs[so + i] === this.histStrs[eso + i];
    this.eqHead[d] = eq ? 1 : 0;
  }

  /** Ring slot of the sent row for `tick` (the current row, quantized for `tick`), making it the head the first time. */
  push(d: number, tick: Tick): number {
    const h = this.head[d]!;
    const t = tick | 0;
    if (this.entryOk[h * this.cap + d] === 1 && this.headTick[d] === t) return h;
    const slot = this.curSlot[d]!;
    if (this.entryOk[h * this.cap + d] !== 1 || this.eqHead[d] !== 1) this.runStart[d] = t;
    this.eqHead[d] = 1;
    this.head[d] = slot;
    this.headTick[d] = t;
    this.entryTick[slot * this.cap + d] = t;
    this.entryOk[slot * this.cap + d] = 1;
    return slot;
  }

  /** True when ring slot `slot` of ghost d still holds its row sent at `tick`. */
  has(d: number, slot: number, tick: Tick): boolean {
    const e = slot * this.cap + d;
    return slot >= 0 && this.entryOk[e] === 1 && this.entryTick[e] === (tick | 0);
  }

  /** True when every row sent since `tick` (a sent row) equals the current row: the client has the current state. */
  unchangedSince(d: number, tick: Tick): boolean {
    return this.eqHead[d] === 1 && !isNewer(this.runStart[d]! >>> 0, tick);
  }
}
