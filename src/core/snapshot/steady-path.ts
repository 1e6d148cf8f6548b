// The steady-state encode path (EncodeCore.encode tries it first): one pass over the
// ghost list that quantizes and writes each record straight into the message, used when
// the general path would send every candidate in list order. It reads EncodeCore's
// internals directly (the members marked "steady path" there); same bytes as the general
// path, proved by test/core/snapshot/steady.test.ts.

import type { Tick } from '../tick.ts';
import { isNewer as isNewerImport } from '../tick.ts';
import { CODE_LENGTH as CODE_LENGTH_, CODE_TABLE_SIZE as CODE_TABLE_SIZE_, codeBits as codeBitsImport, copyBits as copyBitsImport } from './codes.ts';
import type { Group } from './connection.ts';
import { SW_B1 as SW_B1_, SW_EQUAL as SW_EQUAL_, SW_SKIPPED as SW_SKIPPED_ } from './compiled-steady.ts';
import type { EncodeCore } from './encode-core.ts';
import { usage } from './usage.ts';
import type { SnapshotGhost } from './encoder.ts';
import { F_B0 as F_B0_, F_B1 as F_B1_ } from './format.ts';
import { MSG_HEADER_BITS } from './message.ts';
import { G_A0S as G_A0S_, G_A0T as G_A0T_, G_A1S as G_A1S_, G_A1T as G_A1T_, G_LAST_SENT as G_LAST_SENT_, G_SENT_ANY as G_SENT_ANY_, G_SINCE as G_SINCE_, G_ST as G_ST_, G_STRIDE as G_STRIDE_, REC_UPDATE as REC_UPDATE_, ST_LIVE as ST_LIVE_, type GhostStates } from './ghost-states.ts';
import { MAX_AGE_TICKS as MAX_AGE_TICKS_ } from './priority.ts';
import { R_CUR_OK as R_CUR_OK_, R_CUR_SLOT as R_CUR_SLOT_, R_CUR_TICK as R_CUR_TICK_, R_EQ_HEAD as R_EQ_HEAD_, R_HEAD as R_HEAD_, R_HEAD_TICK as R_HEAD_TICK_, R_RUN_START as R_RUN_START_, R_STRIDE as R_STRIDE_ } from './store.ts';
import { SNAPSHOT_GHOST_HISTORY } from '../wire.ts';

// Module-local copies of the imports used per ghost: where modules run as CommonJS
// (tsx, some bundlers), every use of an imported binding is a getter call.
const H = SNAPSHOT_GHOST_HISTORY;
const codeBits = codeBitsImport, copyBits = copyBitsImport, CODE_LENGTH = CODE_LENGTH_, CODE_TABLE_SIZE = CODE_TABLE_SIZE_;
const isNewer = isNewerImport;
const R_CUR_OK = R_CUR_OK_, R_CUR_SLOT = R_CUR_SLOT_, R_CUR_TICK = R_CUR_TICK_, R_EQ_HEAD = R_EQ_HEAD_, R_HEAD = R_HEAD_, R_HEAD_TICK = R_HEAD_TICK_, R_RUN_START = R_RUN_START_, R_STRIDE = R_STRIDE_;
const SW_B1 = SW_B1_, SW_EQUAL = SW_EQUAL_, SW_SKIPPED = SW_SKIPPED_;
const F_B0 = F_B0_, F_B1 = F_B1_;
const REC_UPDATE = REC_UPDATE_;
const G_A0S = G_A0S_, G_A0T = G_A0T_, G_A1S = G_A1S_, G_A1T = G_A1T_, G_LAST_SENT = G_LAST_SENT_, G_SENT_ANY = G_SENT_ANY_, G_SINCE = G_SINCE_, G_ST = G_ST_, G_STRIDE = G_STRIDE_;
const ST_LIVE = ST_LIVE_;
const MAX_AGE_TICKS = MAX_AGE_TICKS_;

/** Bits of the prefix code of v (from the table when small). */
function codeLen(v: number): number {
  return v < CODE_TABLE_SIZE ? CODE_LENGTH[v]! : codeBits(v);
}

/**
 * The steady-state path: one pass over the ghost list that quantizes each ghost, writes
 * its record (header and body against its acked baselines) straight into the records
 * stream, and keeps its dense index for the commit — no candidate rows, priorities,
 * selection or per-record message assembly. It applies when the general path would send
 * every candidate in list order with no despawns, which it checks as it goes:
 *
 * - every listed ghost is LIVE for this state and its newest acked baseline is still in
 *   the ring (so no spawn record, no body against the defaults); with as many known
 *   ghosts as listed ones (checked by the caller) nothing is left to despawn;
 * - the records' size estimates (computed exactly as `collect` does) fit the space the
 *   general path's `select` allows, so it would select every candidate, and the message
 *   then fits the budget, so it would not drop any.
 *
 * Records are the ones `write` puts in the stream (same id gaps, same baseline runs,
 * same bodies: the body writers are shared, bodies already in the per-tick cache are
 * copied), so the message is byte for byte the general path's (test/core/snapshot/
 * steady.test.ts encodes random scenarios both ways). Returns null, having changed
 * nothing but the current rows (quantized once per tick anyway), the body cache (every
 * body it logged is valid, so the general path reuses them; with `core.logBodies` off it
 * logs none and the general path writes them again) and position hints, as soon
 * as a condition fails: the caller then runs the general path. A pass that outgrows the
 * whole budget stops there, so a budget-bound encode wastes at most about one budget's
 * worth of records.
 */
export function encodeSteady(core: EncodeCore, state: GhostStates, nid: number, group: Group, tick: Tick, ghosts: readonly SnapshotGhost[], predicted: ((g: SnapshotGhost) => boolean) | undefined, inputBits: number): Uint8Array | null {
  const store = core.store;
  const cache = core.cache;
  const sink = cache.sink;
  const base = core.base;
  const sent = core.cand;
  const refreshTicks = core.refreshTicks;
  const logBodies = core.logBodies;
  const budgetBits = core.budgetBytes * 8;
  sent.reserve(ghosts.length);
  if (logBodies) cache.reserveLog(ghosts.length);
  if (core.lastDense.length < ghosts.length) {
    const next = new Int32Array(Math.max(64, ghosts.length, core.lastDense.length * 2)).fill(-1);
    next.set(core.lastDense);
    core.lastDense = next;
  }
  state.ensure(store.cap);
  // Bodies cached by earlier encodes of this tick are all in the writer once flushed (viewed from the first hit on: bits
  // written later only come after them, and a view taken after the writer grew still holds them).
  sink.flush();
  let cached: Uint8Array | undefined;
  // Nothing written to the body cache yet this tick: no body to find in it.
  const cacheEmpty = sink.bitLength === 0;
  // The records start at the bit phase they have in the message when every listed ghost is sent (header:
  // kind, CRC, tick, despawn count 0, record count), so the message takes them as whole bytes. The pad
  // bits belong to no body.
  const pad = (MSG_HEADER_BITS + CODE_LENGTH[0]! + codeLen(ghosts.length) - sink.bitLength) & 7;
  if (pad !== 0) {
    sink.put(0, pad);
    sink.flush();
  }
  const start = sink.bitLength;
  // The connection's per-ghost records (ghost-states.ts G_*), one 32-byte record per ghost.
  const gs = state.g;
  // The store's arrays, read directly (a method call per lookup shows in profiles); the store cannot grow during this pass.
  const cap = store.cap, stride = store.stride, sstride = store.sstride, used = store.used;
  const sid = store.id, sdestroyed = store.destroyed, sowner = store.owner, stypeId = store.typeId;
  // Loaded once: the calls in the loop could change any field as far as the compiler knows.
  const layouts = core.layouts, steadyWriters = core.steadyWriters;
  // The store's ring-state records (store.ts R_*), one 32-byte record per ghost.
  const rs = store.rs;
  const entryOk = store.entryOk, entryTick = store.entryTick;
  const hist = store.hist, histStrs = store.histStrs;
  const lastDense = core.lastDense;
  const tk = tick | 0;
  let n = 0;
  let prevId = -1;
  // Id of the previous record, baseline ages of the previous explicit header, estimated bits.
  let prev = -1;
  let p0 = -1;
  let p1 = -1;
  // Bits of the explicit baseline ages (p0, p1) in a header.
  let hx = 0;
  let est = 0;
  for (let i = 0; i < ghosts.length; i++) {
    const g = ghosts[i]!;
    const id = g.id;
    if (!(id > prevId) || id !== id >>> 0) throw usage(`snapshot ghosts must be sorted by id, unique uint32 ids; got ${id} after ${prevId}.`);
    prevId = id;
    // store.holds on the index this position had last time, else the id map.
    let d = i < lastDense.length ? lastDense[i]! : -1;
    if (!(d >= 0 && d < used && sid[d] === id && sdestroyed[d] === 0)) d = store.ids.get(id);
    const go = d * G_STRIDE;
    if (d < 0 || gs[go + G_ST] !== ST_LIVE) return null;
    if (stypeId[d] !== g.typeId || sowner[d] !== g.owner) throw usage(`ghost ${id} changed its typeId or owner; they are immutable — forget(${id}) and spawn a new ghost.`);
    lastDense[i] = d;
    const ro = d * R_STRIDE;
    // Ring slot of the current row (quantized, or about to be: the one after the head, whose
    // oldest row is then dropped), so no baseline is read from it.
    const isCur = rs[ro + R_CUR_OK] === 1 && rs[ro + R_CUR_TICK] === tk;
    const h = rs[ro + R_HEAD]!;
    const next = isCur ? rs[ro + R_CUR_SLOT]! : h + 1 === H ? 0 : h + 1;
    const a0 = gs[go + G_A0S]!;
    const t0 = gs[go + G_A0T]!;
    // store.has(d, a0, t0)
    if (a0 < 0 || a0 === next) return null;
    const e0 = a0 * cap + d;
    if (entryOk[e0] !== 1 || entryTick[e0] !== t0) return null;
    const layout = layouts[g.typeId]!;
    const owner = sowner[d]!;
    const view = owner === nid ? 0 : 1;
    if (layout.viewDependent && owner !== 0) group.addViewOwner(owner);
    let age = gs[go + G_SENT_ANY] === 1 ? (tick - gs[go + G_LAST_SENT]!) | 0 : ((tick - gs[go + G_SINCE]!) | 0) + 1;
    age = age < 1 ? 1 : age > MAX_AGE_TICKS ? MAX_AGE_TICKS : age;
    // Skipped when unchanged since the acked baseline and not due for a refresh (as in `collect`); this part needs no current row.
    const mayskip = age < refreshTicks && !isNewer(rs[ro + R_RUN_START]! >>> 0, t0 >>> 0);
    const age0 = (tick - t0) | 0;
    let b1 = -1;
    let age1 = 0;
    const a1 = gs[go + G_A1S]!;
    const t1 = gs[go + G_A1T]!;
    if (layout.hasLin && a1 >= 0 && a1 !== next && entryOk[a1 * cap + d] === 1 && entryTick[a1 * cap + d] === t1) {
      const dt1 = (t0 - t1) | 0;
      if (dt1 > 0 && age0 <= 4 * dt1) {
        b1 = a1;
        age1 = dt1;
      }
    }
    const key = (a0 + 1) | ((b1 + 1) << 8) | ((layout.viewDependent ? view + 1 : 0) << 16);
    const fused = steadyWriters[layout.typeId];
    const q0 = p0, q1 = p1;
    const recStart = sink.bitLength;
    const gapLen = codeLen(id - prev - 1);
    let a1w: number;
    let bodyLen: number;
    if (fused !== undefined && !isCur && (cacheEmpty || cache.find(d, key) < 0)) {
      // The common case: one generated call quantizes, compares with the newest sent row, and writes the record.
      // store.beginCurrent: the slot after the head drops its row and takes the current one.
      const e = next * cap + d;
      rs[ro + R_CUR_OK] = 0;
      entryOk[e] = 0;
      rs[ro + R_CUR_SLOT] = next;
      const eh = h * cap + d;
      const skipIfEq = mayskip && !(predicted !== undefined && predicted(g));
      const eo = entryOk[eh] === 1 ? eh * stride : -1, b1o = b1 >= 0 ? (b1 * cap + d) * stride : -1;
      const r =
        layout.stringCount === 0
          ? fused[view]!(g.values, hist, e * stride, eo, skipIfEq, e0 * stride, b1o, age0, age1, sink, id - prev - 1, q0, q1)
          : fused[view]!(g.values, hist, e * stride, eo, skipIfEq, e0 * stride, b1o, age0, age1, sink, id - prev - 1, q0, q1, histStrs, e * sstride, eh * sstride, e0 * sstride);
      if (r < 0) return null; // a bad value: the general path quantizes again and throws, naming the field
      // store.endCurrent
      rs[ro + R_CUR_OK] = 1;
      rs[ro + R_CUR_TICK] = tk;
      rs[ro + R_EQ_HEAD] = (r & SW_EQUAL) !== 0 ? 1 : 0;
      if ((r & SW_SKIPPED) !== 0) continue;
      const usedB1 = (r & SW_B1) !== 0;
      a1w = usedB1 ? age1 : 0;
      const off = recStart + gapLen + 2 + (age0 === q0 && a1w === q1 ? 0 : codeLen(age0) + (age0 !== 0 ? codeLen(a1w) : 0));
      bodyLen = sink.bitLength - off;
      if (logBodies) cache.log(d, key, off, bodyLen, usedB1 ? F_B0 | F_B1 : F_B0);
    } else {
      store.current(d, tick, g.values);
      if (mayskip && store.unchangedSince(d, t0 >>> 0) && !(predicted !== undefined && predicted(g))) continue;
      const hit = cache.find(d, key);
      if (hit >= 0) {
        a1w = (cache.flags[hit]! & F_B1) !== 0 ? age1 : 0;
        core.header(sink, id - prev - 1, age0, a1w, q0, q1);
        bodyLen = cache.len[hit]!;
        copyBits(sink, (cached ??= cache.w.view()), cache.off[hit]!, bodyLen);
      } else {
        base.b0 = store.hist;
        base.b0o = store.histOffset(d, a0);
        base.b0s = store.histStrs;
        base.b0so = store.histStrOffset(d, a0);
        base.b1 = null;
        if (b1 >= 0) {
          base.b1 = store.hist;
          base.b1o = store.histOffset(d, b1);
          base.dt0 = age0;
          base.dt1 = age1;
        }
        const write = core.writers[layout.typeId]![view]!;
        const co = store.curOffset(d), cso = store.curStrOffset(d);
        // Guess that the body uses b1 when there is one; if not, write the record again.
        a1w = b1 >= 0 ? age1 : 0;
        core.header(sink, id - prev - 1, age0, a1w, q0, q1);
        let off = sink.bitLength;
        let usedB1 = write(sink, store.hist, co, store.histStrs, cso, base);
        if (usedB1 !== b1 >= 0) {
          sink.rewind(recStart);
          a1w = usedB1 ? age1 : 0;
          core.header(sink, id - prev - 1, age0, a1w, q0, q1);
          off = sink.bitLength;
          usedB1 = write(sink, store.hist, co, store.histStrs, cso, base);
        }
        bodyLen = sink.bitLength - off;
        cache.add(d, key, off, bodyLen, usedB1 ? F_B0 | F_B1 : F_B0);
      }
    }
    if (age0 !== q0 || a1w !== q1) {
      p0 = age0;
      p1 = a1w;
      hx = codeLen(age0) + (age0 !== 0 ? codeLen(a1w) : 0);
    }
    // The estimate `collect` makes for this record (the sum decides whether everything is selected):
    // id gap (the first record's gap is its id, as written), header bits and explicit baseline ages (hx,
    // the same for every record until they change), body.
    est += gapLen + 2 + hx + bodyLen;
    if (est > budgetBits) return null;
    prev = id;
    sent.dense[n++] = d;
  }
  sink.flush();
  // `select` takes everything when the estimates fit what is left after the header, counts and inputs.
  if (est > budgetBits - MSG_HEADER_BITS - codeBits(0) - codeBits(n) - inputBits) return null;
  const msg = core.msg;
  msg.writeRecords(tick, n, cache.w.view(), start, sink.bitLength);
  if (msg.bitLength > budgetBits) return null;
  // Sent: as `commit` records it, with store.push and SentSnapshot.push inlined (the current row becomes the ring head).
  const rec = state.record(tick, n);
  rec.reserve(n);
  const entries = rec.entries;
  const dense = sent.dense;
  for (let k = 0; k < n; k++) {
    const d = dense[k]!;
    const ro = d * R_STRIDE;
    gs[d * G_STRIDE + G_LAST_SENT] = tk;
    gs[d * G_STRIDE + G_SENT_ANY] = 1;
    let slot = rs[ro + R_HEAD]!;
    const eh = slot * cap + d;
    // Not pushed yet this tick (by another group's encode): the current row becomes the head.
    if (entryOk[eh] !== 1 || rs[ro + R_HEAD_TICK] !== tk) {
      if (entryOk[eh] !== 1 || rs[ro + R_EQ_HEAD] !== 1) rs[ro + R_RUN_START] = tk;
      slot = rs[ro + R_CUR_SLOT]!;
      const e = slot * cap + d;
      rs[ro + R_EQ_HEAD] = 1;
      rs[ro + R_HEAD] = slot;
      rs[ro + R_HEAD_TICK] = tk;
      entryTick[e] = tk;
      entryOk[e] = 1;
    }
    entries[k] = ((d << 9) | (slot << 2) | REC_UPDATE) >>> 0;
  }
  rec.n = n;
  state.sent.set(tick, rec);
  state.lastTick = tick;
  state.hasEncoded = true;
  return msg.finish();
}
