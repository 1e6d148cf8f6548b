// Scratch of the snapshot decoder: a message is parsed completely into these
// arrays (records, their new rows, despawn ids) before anything is committed, so a
// malformed message leaves the decoder exactly as it was. Reused across decodes.

import type { ClientGhost } from './client-ghost.ts';

/** Record outcomes: update; spawn of a new id; spawn of an id the client has (same type/owner: an update); spawn replacing a different ghost. */
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
    if (this.id.length >= n) return;
    this.id = new Float64Array(n);
    this.kind = new Uint8Array(n);
    this.type = new Int32Array(n);
    this.owner = new Float64Array(n);
    this.off = new Int32Array(n);
    this.so = new Int32Array(n);
  }

  /** Offset of a fresh row of n slots (grows `rows`, keeping earlier rows). */
  allocRow(n: number): number {
    const off = this.used;
    if (off + n > this.rows.length) {
      const next = new Int32Array(Math.max(off + n, this.rows.length * 2));
      next.set(this.rows);
      this.rows = next;
    }
    this.used = off + n;
    return off;
  }

  allocStrs(n: number): number {
    const off = this.usedStrs;
    for (let i = this.strs.length; i < off + n; i++) this.strs.push('');
    this.usedStrs = off + n;
    return off;
  }

  /** True when this message despawns `id` (despawn ids are ascending). */
  isDespawned(id: number): boolean {
    let lo = 0;
    let hi = this.nd - 1;
    const d = this.despawn;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = d[mid]!;
      if (v === id) return true;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
}
