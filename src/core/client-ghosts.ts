// The client's ghost host: decodes snapshots into a World, keeps each ghost's
// ConfirmedHistory (authoritative samples by tick), runs the interpolation
// timeline, and writes what remote ghosts should show into their components.
// Lifecycle events (spawn, update, despawn) are raised here.

import { Emitter, type Listenable } from './emitter.ts';
import { NetcodeError } from './errors.ts';
import { FlatHistory } from './flat-history.ts';
import { InterpolationTimeline, sampleFlatAt, setSampleTime } from './interpolation/index.ts';
import type { Protocol } from './protocol.ts';
import type { Schema, SchemaCodec, Values } from './schema.ts';
import { SnapshotDecoder, type DecodedSnapshot } from './snapshot/index.ts';
import { tickDiff, type Tick } from './clock/tick.ts';
import type { SpawnCandidate } from './spawning.ts';
import { SystemRunner, type SystemDef, type SystemError, type SystemHooks } from './system.ts';
import { EngineWorld, type Ghost } from './world.ts';
import { typed } from './typed-ghosts.ts';

export type GhostEvents<P extends Protocol> = {
  /** A ghost appeared (from a snapshot). React components key on `ghost.handle`. */
  spawn: (ghost: Ghost<P>) => void;
  /** New confirmed state for a ghost arrived (high rate: once per ghost per snapshot). */
  update: (ghost: Ghost<P>, tick: Tick) => void;
  /** A ghost was destroyed on the server, left relevance, or was not resynced after a resume. */
  despawn: (ghost: Ghost<P>) => void;
  /** A predicted spawn was adopted by its server twin (it keeps its handle; `ghost.id` is now the server's). */
  matched: (ghost: Ghost<P>) => void;
  /** A ghost switched between predicted and interpolated (prediction switching). */
  mode: (ghost: Ghost<P>, mode: 'predicted' | 'interpolated') => void;
};

export interface ClientGhostOptions {
  /** Ticks of confirmed history kept per ghost (default 64; rounded up to a power of two). */
  historyTicks?: number;
  /** A ghost absent from snapshots for this long is marked `stale` (default 2,000 ms). */
  staleAfterMs?: number;
  /** Most ticks the timeline extrapolates past the newest snapshot (default 20). */
  maxExtrapolationTicks?: number;
}

/** Per-ghost client state beside the Ghost itself. */
export interface GhostRecord {
  readonly ghost: Ghost;
  readonly codec: SchemaCodec<Schema>;
  /** The confirmed states by tick (flat storage: `get(tick)` builds a new object, `forEach` passes one reused object). */
  readonly history: FlatHistory;
  /** Newest tick with authoritative state for this ghost (partial snapshots: each ghost has its own). */
  confirmedTick: Tick;
  /** The confirmed state of `confirmedTick` (a copy of that tick of `history`, read by the rollback), undefined when none. */
  latest: Values<Schema> | undefined;
  /** No confirmed state for `staleAfterMs`: shown frozen, flagged for the app. */
  stale: boolean;
}

/** A record as the host keeps it: with the object `latest` points to once the ghost is confirmed. */
interface Held extends GhostRecord {
  readonly store: Values<Schema>;
}

/** Set by ClientGhosts' static block: emits on a ClientGhosts' private emitter (see `ghostSwitchedMode`). */
let emitMode: (ghosts: ClientGhosts<Protocol>, ghost: Ghost, mode: 'predicted' | 'interpolated') => void;

/**
 * @internal A ghost switched between predicted and interpolated: the `mode` event of `ghosts.events`.
 * The mode switcher's; a function of this module, not a member, so a game (which only listens) cannot fake it.
 */
export function ghostSwitchedMode<P extends Protocol>(ghosts: ClientGhosts<P>, ghost: Ghost, mode: 'predicted' | 'interpolated'): void {
  emitMode(ghosts as unknown as ClientGhosts<Protocol>, ghost, mode);
}

export class ClientGhosts<P extends Protocol> {
  static {
    emitMode = (ghosts, ghost, mode) => ghosts.emitter.emit('mode', typed<Protocol>(ghost), mode);
  }

  readonly world: EngineWorld<P>;
  /** Spawn, update, despawn, matched and mode events: listen with `on` (emitting is the engine's, through `emitter`). */
  readonly events: Listenable<GhostEvents<P>>;
  private readonly emitter: Emitter<GhostEvents<P>>;
  readonly timeline: InterpolationTimeline;
  private readonly records = new Map<number, Held>();
  /** typeId → the histories and latest-state objects of removed ghosts, for the next ghosts of that type. */
  private readonly pool = new Map<number, Pick<Held, 'history' | 'store'>[]>();
  private decoder: SnapshotDecoder | undefined;
  /** Ghosts kept across a resume until the server re-sends them (same handle) or the deadline passes. */
  private limbo = new Map<number, Held>();
  private limboDeadline = 0;
  private readonly historyTicks: number;
  private readonly staleAfterTicks: number;
  private readonly maxExtrapolationTicks: number;
  private rejected = 0;
  /** @internal World seed for ctx.rng (from the Welcome). */
  seed = 0;
  private nextLocalId = 0x8000_0000;
  /** @internal Supplies `ctx.input(ghost)` in prediction (set by the client engine). */
  inputProvider: (ghost: Ghost<P>, tick: Tick) => Record<string, unknown> | undefined = () => undefined;
  /** @internal Supplies `ctx.inputCount` (running counts) in prediction. */
  rawInputProvider: (ghost: Ghost<P>, tick: Tick) => Record<string, unknown> | undefined = () => undefined;
  /** @internal Spawn hooks of the prediction stage (predicted spawning), set by the client engine. */
  spawnHooks: Pick<SystemHooks<P>, 'interceptSpawn' | 'spawned' | 'revertIfRejected'> = {};
  /** @internal Pairs a new snapshot ghost with a predicted spawn (adopted: same object and handle). */
  classify: ((candidate: SpawnCandidate) => Ghost | undefined) | undefined;
  /** The system runner of this client's world (prediction and presentation stages). */
  readonly systems: SystemRunner<P>;
  /**
   * A system threw (prediction or presentation). Set by the client engine to report it; the
   * runner then skips that system for this run and goes on. The default rethrows.
   * @internal
   */
  onSystemError: (error: SystemError) => void = (error) => {
    throw error;
  };

  constructor(
    private readonly protocol: P,
    options: ClientGhostOptions = {},
    onListenerError: (e: unknown) => void = () => {},
    systems: readonly SystemDef<P>[] = [],
  ) {
    this.world = new EngineWorld(protocol, { isServer: false });
    const seedOf = (): number => this.seed;
    this.systems = new SystemRunner(this.world, systems, {
      get seed() {
        return seedOf();
      },
      input: (ghost, tick) => this.inputProvider(ghost, tick) as never,
      rawInput: (ghost, tick) => this.rawInputProvider(ghost, tick),
      interceptSpawn: (type, owner, tick, flags) => this.spawnHooks.interceptSpawn?.(type, owner, tick, flags),
      spawned: (ghost, tick, rebound) => this.spawnHooks.spawned?.(ghost, tick, rebound),
      revertIfRejected: (ghost, revert) => this.spawnHooks.revertIfRejected?.(ghost, revert),
      onError: (error) => this.onSystemError(error),
      // Client-side ids (predicted spawns) have the top bit set so they never collide with server ids.
      allocateId: () => (this.nextLocalId = (((this.nextLocalId + 1) | 0x8000_0000) >>> 0)),
    });
    this.events = this.emitter = new Emitter(onListenerError);
    this.historyTicks = options.historyTicks ?? 64;
    if (!(Number.isInteger(this.historyTicks) && this.historyTicks >= 1 && this.historyTicks <= 2 ** 30)) {
      throw new NetcodeError('usage', `react-netcode: historyTicks must be an integer in 1..2^30 (got ${String(options.historyTicks)}); the default is 64.`);
    }
    this.staleAfterTicks = Math.ceil(((options.staleAfterMs ?? 2000) / 1000) * protocol.tickRate);
    this.maxExtrapolationTicks = options.maxExtrapolationTicks ?? 20;
    this.timeline = new InterpolationTimeline({
      tickRate: protocol.tickRate, snapshotRate: protocol.snapshotRate, maxExtrapolationTicks: this.maxExtrapolationTicks,
    });
  }

  /** The client side of a ghost: confirmed history, confirmed tick, staleness. */
  record(ghost: Ghost<P> | number): GhostRecord | undefined {
    return this.records.get(typeof ghost === 'number' ? ghost : ghost.id);
  }

  /** Snapshots rejected as malformed (dropped, not acked). */
  get rejectedSnapshots(): number {
    return this.rejected;
  }

  /** @internal A snapshot was rejected as malformed (the client engine, which catches what applySnapshot throws). */
  countRejected(): void {
    this.rejected++;
  }

  /** @internal */
  get ackTick(): Tick {
    return this.decoder?.ackTick ?? 0;
  }

  /** @internal */
  get ackMask(): number {
    return this.decoder?.ackMask ?? 0;
  }

  /**
   * Handshake done. A fresh session starts from an empty world; a resumed one keeps
   * its ghosts in limbo until the server re-sends them (kept, same handle) or `resyncMs` passes.
   * @internal
   */
  begin(networkId: number, resumed: boolean, nowMs: number, seed: number, resyncMs = 3000): void {
    this.world.localNetworkId = networkId;
    this.seed = seed;
    this.decoder = new SnapshotDecoder(this.protocol, networkId);
    this.timeline.reset();
    if (!resumed) {
      this.clear();
      return;
    }
    for (const [id, rec] of this.records) this.limbo.set(id, rec);
    this.limboDeadline = nowMs + resyncMs;
  }

  /** @internal Forget everything (a new session that did not resume). Despawn events fire for every ghost. */
  clear(): void {
    for (const rec of [...this.records.values()]) this.remove(rec);
    this.limbo.clear();
  }

  /**
   * Decode and apply one snapshot; null when it is a duplicate or older than the newest (dropped). Throws WireError (state untouched) when
   * it is malformed.
   * @internal
   */
  applySnapshot(data: Uint8Array, nowMs: number): DecodedSnapshot | null {
    if (!this.decoder) return null;
    const snap = this.decoder.decode(data);
    if (!snap) return null;
    const tick = snap.tick;
    // Indexed loops over the decoder's arrays: for-of here built an iteration result per entry.
    const { despawns, spawns, updates } = snap;
    for (let i = 0; i < despawns.length; i++) {
      const rec = this.records.get(despawns[i]!);
      if (rec) this.remove(rec);
    }
    for (let i = 0; i < spawns.length; i++) {
      const s = spawns[i]!;
      let rec = this.records.get(s.id);
      if (rec && (rec.ghost.typeId !== s.typeId || rec.ghost.owner !== s.owner)) {
        this.remove(rec);
        rec = undefined;
      }
      if (rec) this.limbo.delete(s.id);
      else if ((rec = this.adopt(s))) {
        // A predicted spawn became this ghost: same object and handle, now with the server's id.
      } else {
        rec = this.add(s.id, s.typeId, s.owner, s.spawnTick);
        // Show the spawn state at once, never the schema defaults: 'spawn' listeners see it too.
        rec.codec.copy(s.values as Values<Schema>, rec.ghost.components as Values<Schema>, true);
        this.emitter.emit('spawn', typed<P>(rec.ghost));
      }
      this.confirm(rec, tick, s.values);
    }
    for (let i = 0; i < updates.length; i++) {
      const u = updates[i]!;
      const rec = this.records.get(u.id);
      if (rec) this.confirm(rec, tick, u.values);
    }
    this.timeline.onSnapshot(tick, nowMs);
    return snap;
  }

  /**
   * Advance the interpolation timeline and write what each remote ghost shows into its
   * components. With `predicting`, predicted ghosts are left to the prediction loop;
   * without it they show their newest confirmed state.
   * @internal
   */
  frame(nowMs: number, predicting = false): void {
    if (this.limbo.size > 0 && nowMs >= this.limboDeadline) {
      for (const rec of [...this.limbo.values()]) this.remove(rec);
      this.limbo.clear();
    }
    const timeline = this.timeline.update(nowMs);
    // Staleness is measured against the estimated server tick, so it also shows when snapshots stop coming.
    const serverTick = timeline.newestSnapshotTick === undefined ? undefined : Math.floor(timeline.estimatedServerTick) >>> 0;
    setSampleTime(timeline.tick, timeline.fraction);
    for (const rec of this.records.values()) {
      if (serverTick !== undefined) rec.stale = tickDiff(serverTick, rec.confirmedTick) > this.staleAfterTicks;
      const ghost = rec.ghost;
      if (ghost.mode === 'interpolated') {
        const components = ghost.components as Values<Schema>;
        sampleFlatAt(rec.codec, rec.history, components, this.maxExtrapolationTicks);
      } else if (!predicting) {
        // Prediction off (or not started): show the newest confirmed state.
        const latest = rec.latest;
        if (latest) rec.codec.copy(latest, ghost.components as Values<Schema>, true);
      }
    }
    this.systems.run('presentation', timeline.tick);
  }

  /** Offer a new snapshot ghost to the predicted-spawn classifier; on a match re-key the predicted ghost. */
  private adopt(
    s: { id: number; typeId: number; owner: number; spawnTick: Tick; values: Record<string, unknown> },
  ): Held | undefined {
    if (!this.classify) return undefined;
    const type = this.protocol.ghostList[s.typeId]!.name;
    const local = this.classify({ id: s.id, type, owner: s.owner, spawnTick: s.spawnTick, values: s.values });
    if (!local) return undefined;
    const rec = this.records.get(local.id);
    if (!rec || rec.ghost !== local) return undefined;
    this.records.delete(local.id);
    this.world.rekey(typed<P>(local), s.id);
    this.records.set(s.id, rec);
    local.origin = 'matched';
    rec.confirmedTick = s.spawnTick;
    rec.latest = rec.history.read(s.spawnTick, rec.store) ? rec.store : undefined;
    this.emitter.emit('matched', typed<P>(local));
    return rec;
  }

  /** @internal A predicted spawn made by this client's prediction: it gets a record (no confirmed state yet). */
  addLocal(ghost: Ghost): GhostRecord {
    const rec = this.held(ghost, ghost.spawnTick);
    this.records.set(ghost.id, rec);
    this.emitter.emit('spawn', typed<P>(ghost));
    return rec;
  }

  /** @internal Destroy a predicted spawn that was never confirmed. */
  removeLocal(ghost: Ghost): void {
    const rec = this.records.get(ghost.id);
    if (rec && rec.ghost === ghost) this.remove(rec);
    else if (ghost.alive) this.world.remove(ghost.id);
  }

  private add(id: number, typeId: number, owner: number, tick: Tick): Held {
    const ghost = this.world.add(this.protocol.ghostList[typeId]!.name, id, owner, tick);
    ghost.origin = 'snapshot';
    const rec = this.held(ghost, tick);
    this.records.set(id, rec);
    return rec;
  }

  /** A new record for `ghost`, its history and latest-state object from the pool of its type when there are some. */
  private held(ghost: Ghost, tick: Tick): Held {
    const codec = this.protocol.ghostList[ghost.typeId]!.codec;
    const spare = this.poolFor(ghost.typeId).pop();
    const history = spare?.history ?? new FlatHistory(codec, this.historyTicks);
    return { ghost, codec, history, store: spare?.store ?? codec.defaults(), confirmedTick: tick, latest: undefined, stale: false };
  }

  private confirm(rec: Held, tick: Tick, values: Record<string, unknown>): void {
    rec.history.record(values as Values<Schema>, tick);
    if (tickDiff(tick, rec.confirmedTick) >= 0) {
      rec.confirmedTick = tick;
      rec.latest = rec.codec.copy(values as Values<Schema>, rec.store);
    }
    rec.stale = false;
    this.emitter.emit('update', typed<P>(rec.ghost), tick);
  }

  private remove(rec: Held): void {
    if (this.records.get(rec.ghost.id) !== rec) return;
    this.records.delete(rec.ghost.id);
    this.limbo.delete(rec.ghost.id);
    if (rec.ghost.alive) this.world.remove(rec.ghost.id);
    rec.history.clear();
    rec.latest = undefined;
    this.poolFor(rec.ghost.typeId).push({ history: rec.history, store: rec.store });
    this.emitter.emit('despawn', typed<P>(rec.ghost));
  }

  private poolFor(typeId: number): Pick<Held, 'history' | 'store'>[] {
    let pool = this.pool.get(typeId);
    if (!pool) this.pool.set(typeId, (pool = []));
    return pool;
  }
}
