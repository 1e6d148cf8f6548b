// The worlds a smoothed client recorded at its snapshot ticks, for rollbacks to them (peer.ts).

import type { Entry } from './body.ts';

/** The world of one snapshot tick (smoothed mode, clients): its bytes and, per entry, its handle and body cache. */
export interface WorldRecord {
  tick: number;
  bytes: Uint8Array | undefined;
  n: number;
  entries: Entry[];
  handles: number[];
  simulated: boolean[];
  cache: Float64Array;
}

/** How far back (ticks) world records are kept: the prediction engine's default maxRollbackTicks. */
const HISTORY_TICKS = 64;

/** The record to reuse for `tick`: its own, a free one, or one older than the history; else a new one. */
export function recordSlot(records: WorldRecord[], tick: number): WorldRecord {
  let free: WorldRecord | undefined;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    if (r.tick === tick) return r;
    if (free === undefined && (r.bytes === undefined || ((tick - r.tick) >>> 0) > HISTORY_TICKS)) free = r;
  }
  if (free !== undefined) return free;
  const rec: WorldRecord = { tick: -1, bytes: undefined, n: 0, entries: [], handles: [], simulated: [], cache: new Float64Array(0) };
  records.push(rec);
  return rec;
}


/** Internal (tests): whether a recording reuses the previous bytes when nothing moved since (else it always takes a snapshot). */
export const recording = { skipQuiet: true };
