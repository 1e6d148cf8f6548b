// Client-side predicted spawning (NFE's PredictedGhostSpawnList + classification):
// a ctx.spawn in prediction creates a predicted spawn on the first full prediction of
// its tick, re-binds to it when that tick is resimulated, and is adopted (same object
// and handle) by its server twin when a snapshot brings it — or destroyed, with its
// side-effect reverts run once, when resimulation no longer emits it or the deadline passes.

import type { ClientGhosts } from './client-ghosts.ts';
import type { ClientPrediction } from './prediction.ts';
import type { Protocol } from './protocol.ts';
import { tickWindowClassifier, type PredictedSpawnInfo, type SpawnCandidate, type SpawnClassifier } from './spawning.ts';
import { tickDiff, type Tick } from './clock/tick.ts';
import { InputReports } from './input/reports.ts';
import type { Ghost } from './world.ts';
import { typed } from './typed-ghosts.ts';

interface Entry extends PredictedSpawnInfo {
  /** Set before each classification (the reports move on). */
  ranBy: Tick | undefined;
  readonly ordinal: number;
  seen: boolean;
  readonly reverts: (() => void)[];
}

export interface PredictedSpawnOptions {
  /** Default classification window: spawn ticks less than this apart match (default 5). */
  windowTicks?: number;
  /**
   * An unmatched predicted spawn is destroyed once the interpolation tick and the newest snapshot pass the tick the server
   * ran its press at (its spawn tick, or later by the input reports) plus this (default 4 snapshot intervals).
   */
  graceTicks?: number;
}

export class PredictedSpawns<P extends Protocol> {
  private readonly pending: Entry[] = [];
  /** Matched spawns, kept while their tick can still be resimulated, so a re-run ctx.spawn does not spawn twice. */
  private readonly matched: Entry[] = [];
  /**
   * Our ghosts that arrived from a snapshot with no predicted spawn to adopt them (after a stall the
   * server's answer can come before the client predicted the tick): a later first-time prediction of
   * the same spawn binds to the twin instead of spawning a second one.
   */
  private readonly orphans: { id: number; type: string; owner: number; spawnTick: Tick }[] = [];
  private readonly classifiers = new Map<string, SpawnClassifier>();
  private readonly fallback: SpawnClassifier;
  private readonly graceTicks: number;
  private countTick: Tick | undefined;
  private readonly ordinals = new Map<string, number>();
  /** Spawns adopted by their server twin / destroyed unmatched, since creation. */
  readonly stats = { predicted: 0, matched: 0, rejected: 0, late: 0 };

  constructor(
    private readonly ghosts: ClientGhosts<P>,
    options: PredictedSpawnOptions = {},
    private readonly onListenerError: (e: unknown) => void = () => {},
    /** The server's reports on our inputs: when they missed their ticks, a press ran later than predicted. */
    private readonly reports: InputReports = new InputReports(),
    /** Ticks between two Pings (the reports' cadence). */
    private readonly pingTicks = 6,
  ) {
    this.fallback = tickWindowClassifier(options.windowTicks ?? 5);
    const protocol = ghosts.world.protocol;
    this.graceTicks = options.graceTicks ?? Math.ceil((4 * protocol.tickRate) / protocol.snapshotRate);
    for (const g of protocol.ghostList) if (g.type.classify) this.classifiers.set(g.name, g.type.classify);
  }

  /** @internal Wire this list into the client's prediction runner, snapshot classification and rollbacks. */
  attach(prediction: ClientPrediction<P> | undefined, localNetworkId: () => number): void {
    this.ghosts.spawnHooks = {
      interceptSpawn: (type, _owner, tick, flags) => {
        const ghost = this.intercept(type, tick, flags.isResimulating);
        return ghost ? typed<P>(ghost) : ghost;
      },
      spawned: (ghost, tick, rebound) => this.spawned(ghost, tick, rebound),
      revertIfRejected: (ghost, revert) => this.addRevert(ghost, revert),
    };
    this.ghosts.classify = (candidate) => this.classify(candidate, localNetworkId());
    if (prediction) {
      prediction.resimulationHooks = {
        begin: (from) => this.beginResimulation(from),
        end: (from, last) => this.endResimulation(from, last),
        beforeTick: (tick) => this.beginTick(tick),
      };
    }
  }

  /**
   * Use `classify` for new ghosts of `type` (e.g. spawnIdClassifier()); undefined restores the protocol's or the default. Returns the
   * previous one.
   */
  setClassifier(type: string, classify: SpawnClassifier | undefined): SpawnClassifier | undefined {
    const before = this.classifiers.get(type);
    if (classify) this.classifiers.set(type, classify);
    else this.classifiers.delete(type);
    return before;
  }

  /** Predicted spawns still waiting for their server twin. */
  get waiting(): readonly PredictedSpawnInfo[] {
    return this.pending;
  }

  /** @internal Before every prediction run of a tick (first time or resimulated): spawn calls are counted per run. */
  beginTick(tick: Tick): void {
    this.countTick = tick;
    if (this.ordinals.size > 0) this.ordinals.clear(); // clear() allocates a new table even when empty
  }

  private ordinal(type: string, tick: Tick): number {
    if (this.countTick !== tick) this.beginTick(tick);
    const n = this.ordinals.get(type) ?? 0;
    this.ordinals.set(type, n + 1);
    return n;
  }

  /** @internal SystemHooks.interceptSpawn for the prediction stage. */
  intercept(type: string, tick: Tick, isResimulating: boolean): Ghost | null | undefined {
    const ordinal = this.ordinal(type, tick);
    if (!isResimulating) {
      this.lastOrdinal = ordinal;
      return undefined;
    }
    const same = (e: Entry) => e.spawnTick === tick && e.type === type && e.ordinal === ordinal;
    if (this.matched.some(same)) return null; // its server twin already took over
    const entry = this.pending.find(same);
    if (!entry) {
      this.lastOrdinal = ordinal;
      return undefined; // the corrected past spawns something new: a new predicted spawn
    }
    entry.seen = true;
    return entry.ghost;
  }

  private lastOrdinal = 0;

  /** @internal SystemHooks.spawned: register a new predicted spawn — or, when its server twin is already here, discard it. */
  spawned(ghost: Ghost, tick: Tick, rebound: boolean): void | 'discard' {
    if (rebound) return;
    if (this.orphans.length > 0 && this.bindToOrphan(ghost, tick)) return 'discard';
    ghost.mode = 'predicted';
    ghost.origin = 'predicted';
    this.pending.push({
      ghost, type: ghost.type, owner: ghost.owner, spawnTick: tick, ranBy: undefined, ordinal: this.lastOrdinal, seen: true, reverts: [],
    });
    this.ghosts.addLocal(ghost);
    this.stats.predicted++;
  }

  /** A first-time predicted spawn whose twin already arrived: the twin counts as matched, the new ghost never joins. */
  private bindToOrphan(ghost: Ghost, tick: Tick): boolean {
    const entry: Entry = {
      ghost, type: ghost.type, owner: ghost.owner, spawnTick: tick, ranBy: this.reports.appliedBy(tick),
      ordinal: this.lastOrdinal, seen: true, reverts: [],
    };
    for (let i = 0; i < this.orphans.length; i++) {
      const o = this.orphans[i]!;
      const twin = o.type === ghost.type ? this.ghosts.record(o.id)?.ghost : undefined;
      if (!twin || !twin.alive) continue;
      const candidate: SpawnCandidate = { ...o, values: twin.components as Record<string, unknown> };
      if (this.pick(candidate, [entry], ghost.owner) !== entry) continue;
      this.orphans.splice(i, 1);
      this.matched.push(entry);
      this.stats.matched++;
      this.stats.late++;
      return true;
    }
    return false;
  }

  /** @internal SystemHooks.revertIfRejected. */
  addRevert(ghost: Ghost, revert: () => void): void {
    this.pending.find((e) => e.ghost === ghost)?.reverts.push(revert);
  }

  /** @internal Before resimulating from `fromTick`: spawns after it do not exist yet; they must be emitted again. */
  beginResimulation(fromTick: Tick): void {
    for (let i = 0; i < this.pending.length; i++) {
      const e = this.pending[i]!;
      if (tickDiff(e.spawnTick, fromTick) > 0) {
        e.seen = false;
        if (e.ghost.alive) this.ghosts.world.remove(e.ghost.id);
      }
    }
  }

  /** @internal After resimulating to `lastTick`: spawns the prediction no longer emits were wrong. */
  endResimulation(fromTick: Tick, lastTick: Tick): void {
    if (this.pending.length === 0) return;
    for (const e of [...this.pending]) {
      if (!e.seen && tickDiff(e.spawnTick, fromTick) > 0 && tickDiff(lastTick, e.spawnTick) >= 0) this.reject(e);
    }
  }

  /** @internal A new ghost arrived in a snapshot: our predicted spawn to adopt it with, if any. */
  classify(candidate: SpawnCandidate, localNetworkId: number): Ghost | undefined {
    const ofType = this.pending.filter((e) => e.type === candidate.type && e.ghost.alive);
    for (const e of ofType) e.ranBy = this.ranBy(e.spawnTick, candidate.spawnTick);
    const result = ofType.length === 0 ? undefined : this.pick(candidate, ofType, localNetworkId);
    const entry = result === undefined ? undefined : this.pending.find((e) => e.ghost === result.ghost);
    if (!entry) {
      // Ours, and nothing predicted it (yet): a later first-time prediction of it binds to it.
      if (candidate.owner === localNetworkId && this.classifiers.has(candidate.type)) {
        this.orphans.push({ id: candidate.id, type: candidate.type, owner: candidate.owner, spawnTick: candidate.spawnTick });
      }
      return undefined;
    }
    this.pending.splice(this.pending.indexOf(entry), 1);
    this.matched.push(entry);
    this.stats.matched++;
    return entry.ghost;
  }

  /**
   * `ranBy` of a spawn at `spawnTick`, seen when a ghost spawned at `now` arrives: the reports' bound; while they do not
   * tell, undefined (the press may have run late) only when they are overdue, their newest more than a Ping period and
   * graceTicks older than `now` (an uplink spike delays the Pings too), and else the spawn tick: a later ghost is then
   * no late twin.
   */
  private ranBy(spawnTick: Tick, now: Tick): Tick | undefined {
    const by = this.reports.appliedBy(spawnTick);
    if (by !== undefined) return by;
    const newest = this.reports.newestTick;
    return newest === undefined || tickDiff(now, newest) > this.pingTicks + this.graceTicks ? undefined : spawnTick;
  }

  /** The classifier's choice for `candidate` among `predicted` (a throwing classifier is reported and matches nothing). */
  private pick(candidate: SpawnCandidate, predicted: readonly PredictedSpawnInfo[], localId: number): PredictedSpawnInfo | undefined {
    try {
      const custom = this.classifiers.get(candidate.type);
      const result = custom?.(candidate, predicted, localId) ?? this.fallback(candidate, predicted, localId);
      return result === undefined || result === 'notOurs' ? undefined : result;
    } catch (error) {
      this.onListenerError(error);
      return undefined;
    }
  }

  /**
   * Per frame: destroy predicted spawns whose twin is overdue; forget matched ones too old
   * to be resimulated. Overdue = both the interpolation tick and the newest snapshot received
   * are more than graceTicks past the tick by which the server ran the press (the spawn tick,
   * or later when the server's input reports say our inputs missed their ticks around it: a
   * jitter spike on the uplink, a server stall); the server's word has moved on without the
   * twin. The snapshot condition keeps a stalled page (timers and deliveries late, the clock
   * already ahead) or a burst of lost snapshots from rejecting spawns whose twin simply has
   * not been received yet. Reports that do not tell (no Pong since) hold a spawn for at most
   * maxRollbackTicks more.
   * @internal
   */
  expire(interpolationTick: Tick, newestSnapshotTick: Tick | undefined, predictedTick: Tick, maxRollbackTicks: number): void {
    if (newestSnapshotTick === undefined) return;
    const horizon = tickDiff(newestSnapshotTick, interpolationTick) < 0 ? newestSnapshotTick : interpolationTick;
    // Copied only when there is any (reject() takes entries out): no array per frame otherwise.
    if (this.pending.length > 0) for (const e of [...this.pending]) if (this.overdue(e, horizon, maxRollbackTicks)) this.reject(e);
    for (let i = this.matched.length - 1; i >= 0; i--) {
      if (tickDiff(predictedTick, this.matched[i]!.spawnTick) > maxRollbackTicks) this.matched.splice(i, 1);
    }
    for (let i = this.orphans.length - 1; i >= 0; i--) {
      const o = this.orphans[i]!;
      if (tickDiff(predictedTick, o.spawnTick) > maxRollbackTicks || !this.ghosts.record(o.id)) this.orphans.splice(i, 1);
    }
  }

  private overdue(e: Entry, horizon: Tick, maxRollbackTicks: number): boolean {
    const age = tickDiff(horizon, e.spawnTick);
    if (age <= this.graceTicks) return false;
    if (age > this.graceTicks + maxRollbackTicks) return true;
    const applied = this.reports.appliedBy(e.spawnTick);
    return applied !== undefined && tickDiff(horizon, applied) > this.graceTicks;
  }

  /**
   * The session ended (leave, a close, a resume that failed): no server will confirm the spawns still
   * waiting, so each is rejected — its reverts run once — and everything else is forgotten.
   * @internal
   */
  clear(): void {
    for (const e of [...this.pending]) this.reject(e);
    this.pending.length = 0;
    this.matched.length = 0;
    this.orphans.length = 0;
  }

  private reject(e: Entry): void {
    const i = this.pending.indexOf(e);
    if (i < 0) return;
    this.pending.splice(i, 1);
    this.stats.rejected++;
    for (let r = e.reverts.length - 1; r >= 0; r--) {
      try {
        e.reverts[r]!();
      } catch (error) {
        this.onListenerError(error);
      }
    }
    e.reverts.length = 0;
    this.ghosts.removeLocal(e.ghost);
  }
}
