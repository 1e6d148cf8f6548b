// Client prediction with rollback (stages 4 and 8 of the client frame, docs/architecture.md).
// Predicted ghosts run the shared systems ahead of the server at predictedTick with
// the local inputs; when a snapshot brings confirmed state for tick S, they roll
// back to S and resimulate to the newest predicted tick (policy 'always'), or only
// when a field is off by more than its tolerance (policy 'check'). The difference a
// resimulation makes to the shown transform becomes a decaying VisualCorrection.

import { Emitter, type Listenable } from './emitter.ts';
import { NetcodeError } from './errors.ts';
import { vec3Distance, type Quat, type Vec3 } from './field.ts';
import type { TickHistory } from './history.ts';
import { createPredicted, keepShown, mispredictions, record, restore, restoreFrom, type Predicted, type Shown } from './prediction-state.ts';
import type { ClientGhosts, GhostRecord } from './client-ghosts.ts';
import type { Protocol } from './protocol.ts';
import type { Schema, Values } from './schema.ts';
import type { VisualCorrection } from './smoothing/index.ts';
import { correct, renderPredicted, unmoved } from './prediction-view.ts';
import type { RunFlags, SystemRunner } from './system.ts';
import { tickAdd, tickDiff, type Tick } from './clock/tick.ts';
import type { Ghost } from './world.ts';

import { DEFAULT_MAX_ROLLBACK_TICKS, type Misprediction, type PredictionEvents, type PredictionOptions, type PredictionStats, type RollbackPolicy } from './prediction-options.ts';

export { DEFAULT_MAX_ROLLBACK_TICKS } from './prediction-options.ts';
export type { CorrectionRecord, Misprediction, PredictionEvents, PredictionOptions, PredictionStats, RollbackPolicy } from './prediction-options.ts';

/** The run flags of a first-time tick and of a resimulated one (shared: no object per tick). */
const FIRST_TIME: RunFlags = Object.freeze({ isFirstTimeFullyPredictingTick: true });
const RESIMULATING: RunFlags = Object.freeze({ isResimulating: true });

export class ClientPrediction<P extends Protocol> {
  private readonly emitter = new Emitter<PredictionEvents>();
  /** Misprediction, correction and rollbackCapped events: listen with `on` (emitting is the engine's). */
  readonly events: Listenable<PredictionEvents> = this.emitter;
  readonly stats: PredictionStats = {
    rollbacks: 0, skipped: 0, resimulatedTicks: 0, catchUpTicks: 0, corrections: 0, mispredictions: 0, skippedTicks: 0, heldFrames: 0,
  };
  /** True while resimulating (NetworkTime.isResimulating). */
  get resimulating(): boolean { return this.resimulatingNow; }
  private resimulatingNow = false;
  private readonly states = new Map<number, Predicted>();
  private readonly policy: RollbackPolicy;
  /** Deepest rollback (ticks): `maxRollbackTicks`. */
  readonly maxRollback: number;
  private readonly maxTicksPerFrame: number;
  /** The newest range of ticks skipped by the per-frame cap (inclusive), for explaining corrections. */
  get lastSkip(): { readonly from: Tick; readonly to: Tick } | undefined { return this.skipRange; }
  private skipRange: { from: Tick; to: Tick } | undefined;
  /** Newest tick simulated for real; undefined until prediction starts. */
  get lastTick(): Tick | undefined { return this.simulatedTo; }
  private simulatedTo: Tick | undefined;
  /** The snapshot tick the last rollback used. */
  private rolledBackTo: Tick | undefined;
  /** The predicted ghosts, kept across frames and collected again only when the world's structure or a ghost's mode changed. */
  private readonly list: Predicted[] = [];
  /** The world's version and mode version the list was collected at (-1: collect at the next use). */
  private collectedVersion = -1;
  private collectedModes = -1;

  constructor(
    private readonly ghosts: ClientGhosts<P>,
    private readonly runner: SystemRunner<P>,
    private readonly options: PredictionOptions = {},
    private readonly log: (message: string) => void = () => {},
  ) {
    this.policy = options.rollback ?? 'check';
    this.maxRollback = options.maxRollbackTicks ?? DEFAULT_MAX_ROLLBACK_TICKS;
    this.maxTicksPerFrame = options.maxTicksPerFrame ?? 30;
    if (!Number.isInteger(this.maxTicksPerFrame) || this.maxTicksPerFrame < 1) {
      throw new NetcodeError('usage', `react-netcode: prediction.maxTicksPerFrame must be an integer >= 1 (got ${String(options.maxTicksPerFrame)}); the default is 30.`);
    }
  }

  /**
   * After a pause (page hidden): the server simulated the paused ticks without our input,
   * so do not replay them. The next advance starts at the then-current predicted tick and
   * every predicted ghost catches up from its confirmed state.
   * @internal
   */
  skipAhead(): void {
    this.skipping = true;
  }

  private skipping = false;

  /** @internal Force a rollback check on the next advance (e.g. a ghost just became predicted and must catch up). */
  invalidate(): void {
    this.rolledBackTo = undefined;
  }

  /** @internal Forget everything (new session). */
  reset(): void {
    this.states.clear();
    this.list.length = 0;
    this.collectedVersion = -1;
    this.simulatedTo = undefined;
    this.rolledBackTo = undefined;
    this.skipRange = undefined;
  }

  /** The values to render for a predicted ghost (frame-interpolated + correction), or undefined if it is not predicted. */
  view(ghost: Ghost): Values<Schema> | undefined {
    return this.states.get(ghost.handle)?.view;
  }

  correction(ghost: Ghost): VisualCorrection | undefined {
    return this.states.get(ghost.handle)?.correction;
  }

  /**
   * Predicted history of a ghost (tests and debug views). Its values are materialized from flat storage:
   * `get(tick)` builds a new object, `forEach` passes one object reused between calls.
   */
  history(ghost: Ghost): TickHistory<Values<Schema>> | undefined {
    return this.states.get(ghost.handle)?.history;
  }

  /** @internal Called around every resimulation (predicted spawning takes spawns after `fromTick` out, drops those not emitted again). */
  resimulationHooks: { begin?(fromTick: Tick): void; end?(fromTick: Tick, lastTick: Tick): void; beforeTick?(tick: Tick): void } = {};

  // Keyed by ghost.handle: stable when a predicted spawn is adopted and takes the server's id.
  private state(rec: GhostRecord): Predicted {
    let s = this.states.get(rec.ghost.handle);
    if (s && s.rec !== rec) {
      this.states.delete(rec.ghost.handle);
      s = undefined;
    }
    if (!s) {
      s = createPredicted(rec, this.maxRollback + 8, this.options.correction);
      this.states.set(rec.ghost.handle, s);
    }
    return s;
  }

  /** Predicted ghosts now in the world (drops state of ghosts that left or stopped being predicted). */
  private collect(): Predicted[] {
    const list = this.list;
    // Keyed by ghost.handle, which never changes.
    for (const s of this.states.values()) {
      const rec = this.ghosts.record(s.rec.ghost.id);
      if (!rec || rec !== s.rec || rec.ghost.mode !== 'predicted') this.states.delete(s.rec.ghost.handle);
    }
    // Overwritten in place, then cut to length: `length = 0` would drop the array's storage every time.
    let n = 0;
    for (const g of this.ghosts.world.all()) {
      if (g.mode !== 'predicted') continue;
      const rec = this.ghosts.record(g.id);
      if (rec) list[n++] = this.state(rec);
    }
    list.length = n;
    this.collectedVersion = this.ghosts.world.version;
    this.collectedModes = this.ghosts.world.modeVersion;
    return list;
  }

  /**
   * The predicted ghosts now. Which ghosts there are changes only with a spawn, a despawn, a predicted
   * spawn adopted (each bumps the world's version) or a mode change (the world's modeVersion): the
   * list is collected again only then, not per frame nor per tick.
   */
  private current(): Predicted[] {
    const world = this.ghosts.world;
    return world.version === this.collectedVersion && world.modeVersion === this.collectedModes ? this.list : this.collect();
  }

  /**
   * Bring prediction up to `targetTick`: roll back to the newest confirmed snapshot if it is
   * new, then simulate every tick after the last one for real (each once, first time).
   * `beforeTick(t)` commits and sends the input of t before it is simulated.
   * @internal
   */
  advance(targetTick: Tick, beforeTick: (tick: Tick) => void, maxTicksPerFrame = this.maxTicksPerFrame, committedThrough?: Tick): number {
    let list = this.current();
    // Never run more than maxRollbackTicks past the newest snapshot (no snapshots for that long: the
    // server or the link stalled): every later rollback stays resimulatable, and no input is committed
    // for ticks the server could not queue. Prediction holds; it skips ahead when snapshots resume.
    const snap = this.ghosts.timeline.newestSnapshotTick;
    if (snap !== undefined && tickDiff(targetTick, snap) > this.maxRollback) {
      targetTick = tickAdd(snap, this.maxRollback);
      this.stats.heldFrames++;
    }
    if (this.skipping && this.simulatedTo !== undefined) {
      this.skipping = false;
      this.simulatedTo = tickAdd(targetTick, -1);
      this.rolledBackTo = undefined;
      for (const s of list) {
        s.history.clear();
        s.correction.reset();
      }
    }
    if (this.simulatedTo === undefined) {
      this.simulatedTo = tickAdd(targetTick, -1);
      for (const s of list) record(s, this.simulatedTo);
    }
    // A stall (more ticks due than a frame may run): never fall behind. First simulate the ticks whose
    // input is committed (and sent: with input delay, a few ticks ahead of prediction), so each press
    // is predicted once; then restart from the server's newest state when it is past our prediction,
    // and skip to the newest maxTicksPerFrame ticks.
    let skipAfter: Tick | undefined;
    let keep = 0;
    const due = tickDiff(targetTick, this.simulatedTo);
    if (due > maxTicksPerFrame) {
      keep = committedThrough === undefined ? 0 : Math.max(0, Math.min(due, tickDiff(committedThrough, this.simulatedTo)));
      if (keep > 0) skipAfter = tickAdd(this.simulatedTo, keep);
      else this.afterStall(list, targetTick, maxTicksPerFrame);
    }
    this.rollback(this.current());
    let ran = 0;
    const budget = maxTicksPerFrame + keep;
    while (tickDiff(targetTick, this.simulatedTo) > 0 && ran < budget) {
      const t = tickAdd(this.simulatedTo, 1);
      beforeTick(t);
      this.resimulationHooks.beforeTick?.(t);
      this.runner.run('prediction', t, FIRST_TIME);
      list = this.current();
      for (let i = 0; i < list.length; i++) if (list[i]!.rec.ghost.alive) record(list[i]!, t);
      this.simulatedTo = t;
      ran++;
      if (t === skipAfter) {
        skipAfter = undefined;
        this.afterStall(this.current(), targetTick, maxTicksPerFrame);
      }
    }
    return ran;
  }

  /** After a stall: restart from the newest snapshot if it is past our prediction, then skip to the newest `cap` ticks. */
  private afterStall(list: readonly Predicted[], target: Tick, cap: number): void {
    this.restartFromSnapshot(list);
    if (tickDiff(target, this.simulatedTo!) > cap) this.skipTo(tickAdd(target, -cap));
  }

  /**
   * After a stall, when the server's newest snapshot is past everything we predicted: every predicted
   * ghost confirmed at that tick restarts from its confirmed state (a correction, smoothed, whose
   * cause is 'stall'), and prediction goes on from that tick.
   */
  private restartFromSnapshot(list: readonly Predicted[]): void {
    const last = this.simulatedTo!;
    const snap = this.ghosts.timeline.newestSnapshotTick;
    if (snap === undefined || tickDiff(snap, last) <= 0) return;
    for (const s of list) {
      const confirmed = s.rec.confirmedTick === snap ? s.rec.latest : undefined;
      if (!confirmed) continue;
      const components = s.rec.ghost.components as Record<string, unknown>;
      const before = s.position ? { ...(components[s.position] as Vec3) } : undefined;
      const beforeRot = s.rotation ? { ...(components[s.rotation] as Quat) } : undefined;
      s.codec.copy(confirmed, components as Values<Schema>, true);
      s.history.clear();
      record(s, snap);
      if (before && s.position) this.corrected(s, before, beforeRot, snap, last);
    }
    this.rolledBackTo = snap;
    this.skipRange = { from: tickAdd(last, 1), to: snap };
    this.stats.skippedTicks += tickDiff(snap, last);
    this.simulatedTo = snap;
  }

  /**
   * Skip prediction ahead to `tick` (a stall): the ticks in between are never simulated for the first
   * time; the client commits no input for ticks the server has already passed, so a press made during
   * the stall is counted in the first input committed after it, and predicted there.
   */
  private skipTo(tick: Tick): void {
    const last = this.simulatedTo!;
    if (tickDiff(tick, last) <= 0) return;
    this.skipRange = { from: this.skipRange && tickDiff(this.skipRange.to, last) === 0 ? this.skipRange.from : tickAdd(last, 1), to: tick };
    this.stats.skippedTicks += tickDiff(tick, last);
    this.simulatedTo = tick;
  }

  /** A resimulation or restart moved what a ghost shows: smooth it and report it (when above the correction's minimum). */
  private corrected(s: Predicted, before: Vec3, beforeRot: Quat | undefined, tick: Tick, fromTick: Tick): void {
    if (!correct(s, before, beforeRot)) return;
    this.stats.corrections++;
    const g = s.rec.ghost;
    // Not Math.hypot: it returned a new heap number per correction.
    const distance = vec3Distance(before, (g.components as unknown as Shown).position);
    this.emitter.emit('correction', { ghostId: g.id, type: g.type, local: g.isLocal, tick, fromTick, distance });
  }

  /** Roll back to the newest snapshot tick when it is new and (policy 'check') something differs. */
  private rollback(list: readonly Predicted[]): void {
    const snapTick = this.ghosts.timeline.newestSnapshotTick;
    const last = this.simulatedTo;
    if (snapTick === undefined || last === undefined || snapTick === this.rolledBackTo) return;
    const fromTick = this.rolledBackTo ?? snapTick;
    this.rolledBackTo = snapTick;
    const depth = tickDiff(last, snapTick);
    if (depth < 0) return; // the snapshot is ahead of our prediction (just after a jump): nothing to redo
    if (depth > this.maxRollback) {
      this.capped(list, snapTick, last, depth);
      return;
    }
    // Policy 'always' restores each ghost right after comparing it (one pass); 'check' compares all first.
    const always = this.policy === 'always';
    const found = this.compare(list, snapTick, always);
    const needed = always || found === 'differs';
    if (!needed && found !== 'catchUp') {
      this.stats.skipped++;
      return;
    }
    if (needed) this.stats.rollbacks++;
    if (!always) for (let i = 0; i < list.length; i++) restore(list[i]!, snapTick);
    this.resimulate(list, snapTick, last, needed);
    if (!needed) return; // a catch-up changes nothing that was shown: no correction
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      if (s.position && !unmoved(s)) this.corrected(s, s.beforePos, s.rotation ? s.beforeRot : undefined, snapTick, fromTick);
    }
  }

  /** Too deep to resimulate: every ghost confirmed at `snapTick` takes its confirmed state as it is and predicts on from there. */
  private capped(list: readonly Predicted[], snapTick: Tick, last: Tick, depth: number): void {
    for (const s of list) {
      if (s.rec.confirmedTick !== snapTick) continue;
      const confirmed = s.rec.latest;
      if (!confirmed) continue;
      this.emitter.emit('rollbackCapped', s.rec.ghost.id, depth);
      s.codec.copy(confirmed, s.rec.ghost.components as Values<Schema>, true);
      record(s, last);
    }
    if (this.policy === 'check') this.stats.skipped++; // nothing was compared, nothing resimulated
  }

  /**
   * Compare each ghost's prediction for `snapTick` with its confirmed state (reporting mispredictions);
   * with `restore`, restore each ghost right after. 'catchUp': a ghost has no prediction of its own for
   * that tick (prediction just started, or it just became predicted) and must be resimulated from it.
   */
  private compare(list: readonly Predicted[], snapTick: Tick, andRestore: boolean): 'same' | 'differs' | 'catchUp' {
    let differs = false;
    let catchUp = false;
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      const confirmed = s.rec.confirmedTick === snapTick ? s.rec.latest : undefined;
      const slot = s.history.slot(snapTick);
      const h = s.history;
      if (confirmed && slot >= 0 && andRestore) {
        // One call compares and, when nothing is beyond its tolerance, restores; else report, then restore.
        const components = keepShown(s);
        if (s.kernels.settle(confirmed, h.data, h.other, slot, components, s.readsLocal && s.rec.ghost.isLocal)) {
          if (this.differs(s, snapTick, confirmed)) differs = true;
          s.kernels.restore(confirmed, h.data, h.other, slot, components);
        }
        continue;
      }
      if (confirmed) {
        if (slot < 0) catchUp = true;
        else if (s.kernels.beyond(h.data, h.other, slot, confirmed, s.readsLocal && s.rec.ghost.isLocal)) {
          if (this.differs(s, snapTick, confirmed)) differs = true;
        }
      }
      if (andRestore) restoreFrom(s, snapTick, slot, confirmed);
    }
    return differs ? 'differs' : catchUp ? 'catchUp' : 'same';
  }

  /** Resimulate snapTick+1 … last from the restored state, recording each tick. */
  private resimulate(list: readonly Predicted[], snapTick: Tick, last: Tick, needed: boolean): void {
    this.resimulatingNow = true;
    this.resimulationHooks.begin?.(snapTick);
    try {
      for (let t = tickAdd(snapTick, 1); tickDiff(last, t) >= 0; t = tickAdd(t, 1)) {
        this.resimulationHooks.beforeTick?.(t);
        this.runner.run('prediction', t, RESIMULATING);
        for (let i = 0; i < list.length; i++) if (list[i]!.rec.ghost.alive) record(list[i]!, t);
        if (needed) this.stats.resimulatedTicks++;
        else this.stats.catchUpTicks++;
      }
    } finally {
      this.resimulatingNow = false;
      this.resimulationHooks.end?.(snapTick, last);
    }
  }

  /**
   * Report each field of a prediction beyond its tolerance (the cheap check found one); true when any is.
   * With no listener and no log, only counted: no report object per field.
   */
  private differs(s: Predicted, tick: Tick, confirmed: Values<Schema>): boolean {
    const heard = Boolean(this.options.logMispredictions) || this.emitter.has('misprediction');
    s.history.read(tick, s.previous);
    const n = mispredictions(s, tick, s.previous, confirmed, heard ? this.report : undefined);
    if (!heard) this.stats.mispredictions += n;
    return n > 0;
  }

  private readonly report = (m: Misprediction): void => {
    this.stats.mispredictions++;
    this.emitter.emit('misprediction', m);
    if (this.options.logMispredictions) this.log(`react-netcode: misprediction ${m.type}#${m.ghostId}.${m.field} at tick ${m.tick}: predicted ${JSON.stringify(m.predicted)}, confirmed ${JSON.stringify(m.confirmed)} (distance ${m.distance}, tolerance ${m.tolerance})`);
  };

  /** @internal Per render frame: each predicted ghost's view, frame-interpolated between its last two ticks plus its correction. */
  render(fraction: number, dtMs: number): void {
    renderPredicted(this.states.values(), fraction, dtMs);
  }
}
