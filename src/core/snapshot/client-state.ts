// The decoder's state: each ghost it knows (type, owner, values, a ring of the last SNAPSHOT_GHOST_HISTORY
// rows received, the baselines of later records), and the scratch a message is parsed into before commit.

import type { Tick } from '../clock/tick.ts';
import { SNAPSHOT_GHOST_HISTORY } from '../wire.ts';
import type { FieldSlot, TypeLayout } from './layout.ts';
import { resized, resizeAll } from './scratch.ts';

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

/** Record outcomes: update; spawn of a new id; spawn of an id it has (same type and owner: an update); spawn replacing another ghost. */
export const R_UPDATE = 0, R_NEW = 1, R_RESPAWN = 2, R_REPLACE = 3;

export class ParseScratch {
  nd = 0;
  nr = 0;
  ni = 0;
  despawn = new Float64Array(64);
  id = new Float64Array(64);
  kind = new Uint8Array(64);
  type = new Int32Array(64);
  owner = new Float64Array(64);
  spawnAge = new Float64Array(64);
  ghost: (ClientGhost | undefined)[] = [];
  /** Row offset in `rows` and string offset in `strs` of each record. */
  off = new Int32Array(64);
  so = new Int32Array(64);
  rows = new Int32Array(1024);
  strs: string[] = [];
  used = 0;
  usedStrs = 0;

  reserveDespawns(n: number): void {
    if (this.despawn.length < n) this.despawn = new Float64Array(n);
  }

  reserveRecords(n: number): void {
    if (this.id.length < n) resizeAll(this, ['id', 'kind', 'type', 'owner', 'spawnAge', 'off', 'so'], n);
  }

  /** Offset of a fresh row of n slots (grows `rows`, keeping earlier rows). */
  allocRow(n: number): number {
    const off = this.used;
    if (off + n > this.rows.length) this.rows = resized(this.rows, Math.max(off + n, this.rows.length * 2));
    this.used = off + n;
    return off;
  }

  allocStrs(n: number): number {
    const off = this.usedStrs;
    for (let i = this.strs.length; i < off + n; i++) this.strs.push('');
    this.usedStrs = off + n;
    return off;
  }
}
