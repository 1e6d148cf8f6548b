// A ghost as a client's snapshot decoder knows it: type, owner, the values it
// reports, and a ring of the last SNAPSHOT_GHOST_HISTORY rows it received (by
// snapshot tick), which later records name as their baselines.

import { SNAPSHOT_GHOST_HISTORY } from '../wire.ts';
import type { Tick } from '../tick.ts';
import type { FieldSlot, TypeLayout } from './layout.ts';

const H = SNAPSHOT_GHOST_HISTORY;

export class ClientGhost {
  readonly ticks = new Int32Array(H);
  readonly rows: Int32Array;
  readonly strs: string[];
  /** Ring slot of the newest row; rows held. */
  head = H - 1;
  count = 0;
  readonly view: readonly FieldSlot[];
  readonly values: Record<string, unknown>;

  constructor(
    readonly id: number,
    readonly layout: TypeLayout,
    readonly owner: number,
    localNetworkId: number,
  ) {
    this.rows = new Int32Array(H * layout.slotCount);
    this.strs = new Array<string>(H * layout.stringCount).fill('');
    this.view = layout.views[owner === localNetworkId ? 0 : 1];
    this.values = layout.codec.defaults() as Record<string, unknown>;
  }

  /** Ring slot of the row received at `tick`, or -1. */
  find(tick: Tick): number {
    const t = tick | 0;
    for (let k = 0, s = this.head; k < this.count; k++, s = s === 0 ? H - 1 : s - 1) if (this.ticks[s] === t) return s;
    return -1;
  }

  /** Store the row received at `tick` (ticks only increase) and return its slot. */
  append(tick: Tick, src: Int32Array, so: number, strs: readonly string[], sso: number): number {
    const s = this.head + 1 === H ? 0 : this.head + 1;
    const n = this.layout.slotCount;
    const sn = this.layout.stringCount;
    for (let i = 0, o = s * n; i < n; i++) this.rows[o + i] = src[so + i]!;
    for (let i = 0; i < sn; i++) this.strs[s * sn + i] = strs[sso + i]!;
    this.ticks[s] = tick | 0;
    this.head = s;
    if (this.count < H) this.count++;
    return s;
  }
}
