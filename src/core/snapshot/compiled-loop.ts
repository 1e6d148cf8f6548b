// The steady path's per-ghost loop as ONE generated function per protocol
// (steady-path.ts runs it first): the bookkeeping of encodeSteady's loop with each
// ghost type's record code (compiled-steady.ts `recordCode`) inlined, so there is no
// call per ghost, and one bit accumulator runs across all the records of the message.
// It handles the common ghost — live, acked at a baseline still in the ring, not yet
// quantized this tick, its body not in the per-tick cache — and stops at the first
// ghost that is not (or that the TS loop must reject), handing its state back: the TS
// loop goes on from there with the same state. So the bytes are the TS loop's bit for
// bit (test/core/snapshot/steady.test.ts encodes every scenario both ways).
// Where code generation is not allowed, or the protocol has too many ghost types for
// one function (V8 stops optimizing very large functions), there is none.

import { CODE_LENGTH, CODE_TABLE_SIZE, CODE_VALUE } from './codes.ts';
import { COMBO_ARGS, COMBO_PARAMS } from './compiled-delta.ts';
import { recordCode, steadyHelpers, SW_B1, SW_EQUAL, SW_SKIPPED } from './compiled-steady.ts';
import { F_B0, F_B1 } from './format.ts';
import { G_A0S, G_A0T, G_A1S, G_A1T, G_LAST_SENT, G_SENT_ANY, G_SINCE, G_ST, G_STRIDE, ST_LIVE } from './ghost-states.ts';
import type { TypeLayout } from './layout.ts';
import { MAX_AGE_TICKS } from './priority.ts';
import { R_CUR_OK, R_CUR_SLOT, R_CUR_TICK, R_EQ_HEAD, R_HEAD, R_RUN_START, R_STRIDE } from './store.ts';
import { SNAPSHOT_GHOST_HISTORY } from '../wire.ts';
import type { BitSink } from './codes.ts';
import type { BodyCache } from './cache.ts';
import type { Group } from './connection.ts';
import type { IntMap } from './intmap.ts';
import type { SnapshotGhost } from './encoder.ts';

/**
 * What the loop reads and the state it carries (in and out): filled by encodeSteady, one
 * object per EncodeCore. `i` is the first ghost to do; on return, the first one not done.
 */
export class SteadyLoopState {
  ghosts: readonly SnapshotGhost[] = [];
  lastDense = new Int32Array(0);
  sid = new Uint32Array(0);
  sdestroyed = new Uint8Array(0);
  stypeId = new Int32Array(0);
  sowner = new Float64Array(0);
  ids!: IntMap;
  used = 0;
  gs = new Int32Array(0);
  rs = new Int32Array(0);
  entryOk = new Uint8Array(0);
  entryTick = new Int32Array(0);
  hist = new Int32Array(0);
  histStrs: string[] = [];
  cap = 0;
  stride = 0;
  sstride = 0;
  tick = 0;
  nid = 0;
  refreshTicks = 0;
  budgetBits = 0;
  group!: Group;
  predicted: ((g: SnapshotGhost) => boolean) | undefined = undefined;
  cache!: BodyCache;
  cacheEmpty = true;
  sink!: BitSink;
  dense = new Int32Array(0);
  // Carried state (encodeSteady's loop variables).
  i = 0;
  prevId = -1;
  prev = -1;
  p0 = -1;
  p1 = -1;
  hx = 0;
  est = 0;
  n = 0;
}

/** Runs from `s.i`; returns the index of the first ghost not done (the state in `s`), or -1 when the encode must fall back (encodeSteady's null). */
export type SteadyLoop = (s: SteadyLoopState) => number;

/** Ghost types (× views) above this are not inlined into one function. */
const MAX_CASES = 12;

function source(layouts: readonly TypeLayout[]): string {
  const H = SNAPSHOT_GHOST_HISTORY;
  const cl = (v: string): string => `(${v} < ${CODE_TABLE_SIZE} ? CL[${v}] : h.codeBits(${v}))`;
  // Drain the accumulator into the sink before leaving: cached bodies and the TS loop read the writer.
  const drain = 'if (n > 0) { sink.put(acc >>> 0, n); acc = 0; n = 0; }';
  const cases: string[] = [];
  for (const layout of layouts) {
    const views = layout.viewDependent ? [0, 1] : [0];
    for (const v of views) {
      const labels = layout.viewDependent ? `case ${layout.typeId * 2 + v}:` : `case ${layout.typeId * 2}: case ${layout.typeId * 2 + 1}:`;
      // Record-code locals named like SteadyWriter's parameters, from the loop's.
      const params = `const values = _g.values, row = hist, co = _e * stride, eo = entryOk[_eh] === 1 ? _eh * stride : -1, skipIfEq = _skip, strs = histStrs, cso = _e * sstride, eso = _eh * sstride, b0o = _e0 * stride, b0so = _e0 * sstride, b1o = _b1 >= 0 ? (_b1 * cap + _d) * stride : -1, dt0 = _age0, dt1 = _age1, gap = _gap, p0 = _q0, p1 = _q1;`;
      const code = recordCode(layout, layout.views[v]!, (e) => `{ r = ${e}; break rec; }`, `{ ${drain} return -1; }`, true);
      cases.push(`${labels} rec: { const enums = ENUMS[${layout.typeId}]; ${params}\n${code}\n} break;`);
    }
  }
  const hasLin = layouts.map((l) => (l.hasLin ? 1 : 0)).join(', ');
  const viewDep = layouts.map((l) => (l.viewDependent ? 1 : 0)).join(', ');
  return `'use strict';
const QS = new Float64Array(4);
const HASLIN = new Uint8Array([${hasLin}]), VIEWDEP = new Uint8Array([${viewDep}]);
return function steadyLoop(X) {
const ghosts = X.ghosts, N = ghosts.length, lastDense = X.lastDense, LDN = lastDense.length;
const sid = X.sid, sdestroyed = X.sdestroyed, stypeId = X.stypeId, sowner = X.sowner, ids = X.ids, used = X.used;
const gs = X.gs, rs = X.rs, entryOk = X.entryOk, entryTick = X.entryTick, hist = X.hist, histStrs = X.histStrs;
const cap = X.cap, stride = X.stride, sstride = X.sstride, tick = X.tick, tk = tick | 0, nid = X.nid;
const refreshTicks = X.refreshTicks, budgetBits = X.budgetBits, group = X.group, predicted = X.predicted;
const cache = X.cache, cacheEmpty = X.cacheEmpty, sink = X.sink, dense = X.dense;
let _prevId = X.prevId, _prev = X.prev, _p0 = X.p0, _p1 = X.p1, _hx = X.hx, _est = X.est, _cnt = X.n;
let acc = 0, n = 0;
let _i = X.i;
for (; _i < N; _i++) {
  const _g = ghosts[_i];
  const _id = _g.id;
  // Anything the TS loop rejects, or does itself, stops here (before this ghost changes any state).
  if (!(_id > _prevId) || _id !== _id >>> 0) break;
  let _d = _i < LDN ? lastDense[_i] : -1;
  if (!(_d >= 0 && _d < used && sid[_d] === _id && sdestroyed[_d] === 0)) _d = ids.get(_id);
  if (_d < 0) break;
  const _go = _d * ${G_STRIDE};
  if (gs[_go + ${G_ST}] !== ${ST_LIVE}) break;
  const _typeId = _g.typeId;
  if (stypeId[_d] !== _typeId || sowner[_d] !== _g.owner) break;
  lastDense[_i] = _d;
  const _ro = _d * ${R_STRIDE};
  if (rs[_ro + ${R_CUR_OK}] === 1 && rs[_ro + ${R_CUR_TICK}] === tk) break;
  const _h = rs[_ro + ${R_HEAD}];
  const _next = _h + 1 === ${H} ? 0 : _h + 1;
  const _a0 = gs[_go + ${G_A0S}], _t0 = gs[_go + ${G_A0T}];
  if (_a0 < 0 || _a0 === _next) break;
  const _e0 = _a0 * cap + _d;
  if (entryOk[_e0] !== 1 || entryTick[_e0] !== _t0) break;
  const _owner = sowner[_d];
  const _view = _owner === nid ? 0 : 1;
  let _age = gs[_go + ${G_SENT_ANY}] === 1 ? (tick - gs[_go + ${G_LAST_SENT}]) | 0 : ((tick - gs[_go + ${G_SINCE}]) | 0) + 1;
  _age = _age < 1 ? 1 : _age > ${MAX_AGE_TICKS} ? ${MAX_AGE_TICKS} : _age;
  const _mayskip = _age < refreshTicks && !((((rs[_ro + ${R_RUN_START}] >>> 0) - (_t0 >>> 0)) | 0) > 0);
  const _age0 = (tick - _t0) | 0;
  let _b1 = -1, _age1 = 0;
  const _a1 = gs[_go + ${G_A1S}], _t1 = gs[_go + ${G_A1T}];
  if (HASLIN[_typeId] === 1 && _a1 >= 0 && _a1 !== _next && entryOk[_a1 * cap + _d] === 1 && entryTick[_a1 * cap + _d] === _t1) {
    const _dt1 = (_t0 - _t1) | 0;
    if (_dt1 > 0 && _age0 <= 4 * _dt1) { _b1 = _a1; _age1 = _dt1; }
  }
  const _vd = VIEWDEP[_typeId] === 1;
  const _key = (_a0 + 1) | ((_b1 + 1) << 8) | ((_vd ? _view + 1 : 0) << 16);
  if (!cacheEmpty && cache.find(_d, _key) >= 0) break;
  // From here on this ghost is done here.
  _prevId = _id;
  if (_vd && _owner !== 0) group.addViewOwner(_owner);
  const _q0 = _p0, _q1 = _p1;
  const _recStart = sink.bitLength + n;
  const _gap = _id - _prev - 1;
  const _gapLen = ${cl('_gap')};
  // store.beginCurrent: the slot after the head drops its row and takes the current one.
  const _e = _next * cap + _d;
  rs[_ro + ${R_CUR_OK}] = 0;
  entryOk[_e] = 0;
  rs[_ro + ${R_CUR_SLOT}] = _next;
  const _eh = _h * cap + _d;
  const _skip = _mayskip && !(predicted !== undefined && predicted(_g));
  let r = 0;
  switch (_typeId * 2 + _view) {
${cases.join('\n')}
  default: { ${drain} return -1; }
  }
  // store.endCurrent
  rs[_ro + ${R_CUR_OK}] = 1;
  rs[_ro + ${R_CUR_TICK}] = tk;
  rs[_ro + ${R_EQ_HEAD}] = (r & ${SW_EQUAL}) !== 0 ? 1 : 0;
  if ((r & ${SW_SKIPPED}) !== 0) continue;
  const _usedB1 = (r & ${SW_B1}) !== 0;
  const _a1w = _usedB1 ? _age1 : 0;
  const _off = _recStart + _gapLen + 2 + (_age0 === _q0 && _a1w === _q1 ? 0 : ${cl('_age0')} + (_age0 !== 0 ? ${cl('_a1w')} : 0));
  const _bodyLen = sink.bitLength + n - _off;
  cache.add(_d, _key, _off, _bodyLen, _usedB1 ? ${F_B0 | F_B1} : ${F_B0});
  if (_age0 !== _q0 || _a1w !== _q1) { _p0 = _age0; _p1 = _a1w; _hx = ${cl('_age0')} + (_age0 !== 0 ? ${cl('_a1w')} : 0); }
  _est += _gapLen + 2 + _hx + _bodyLen;
  if (_est > budgetBits) { ${drain} return -1; }
  _prev = _id;
  dense[_cnt++] = _d;
}
${drain}
X.i = _i; X.prevId = _prevId; X.prev = _prev; X.p0 = _p0; X.p1 = _p1; X.hx = _hx; X.est = _est; X.n = _cnt;
return _i;
};`;
}

/** The steady loop for a protocol's layouts; undefined where code generation is not allowed or the types are too many. */
export function compileSteadyLoop(layouts: readonly TypeLayout[]): SteadyLoop | undefined {
  const cases = layouts.reduce((k, l) => k + (l.viewDependent ? 2 : 1), 0);
  if (cases === 0 || cases > MAX_CASES) return undefined;
  try {
    const enums = layouts.map((l) => l.fields.map((s) => s.enumIndex));
    return (new Function('h', 'CV', 'CL', 'ENUMS', ...COMBO_PARAMS, source(layouts)) as (...a: unknown[]) => SteadyLoop)(steadyHelpers, CODE_VALUE, CODE_LENGTH, enums, ...COMBO_ARGS);
  } catch {
    return undefined;
  }
}
