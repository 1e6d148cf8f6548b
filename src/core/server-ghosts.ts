// The server's ghost host: the authoritative World, the systems that simulate it
// each tick, and per-connection snapshots (relevancy → priority/budget → delta
// against acked baselines). NetServer owns one and calls it from its tick.

import type { Connection } from './connection.ts';
import { describeError, HandlerError, isNetcodeError, NetcodeError } from './errors.ts';
import { checkSpawnInit, isSnapshotTick, type Protocol } from './protocol.ts';
import { SnapshotEncoder, type ConnectionSnapshotState, type SnapshotGhost } from './snapshot/index.ts';
import { SystemRunner, type SystemDef } from './system.ts';
import type { Tick } from './clock/tick.ts';
import { EngineWorld, type Ghost, type GhostNames, type GhostValues } from './world.ts';

/** Decides whether `connection` receives `ghost` (e.g. a radius). Owned ghosts are always relevant to their owner. */
export type Relevancy<P extends Protocol> = (connection: Connection, ghost: Ghost<P>) => boolean;

export interface ServerGhostOptions<P extends Protocol> {
  systems?: readonly SystemDef<P>[];
  /** World seed for `ctx.rng`; clients must use the same (it travels in the Welcome). */
  seed: number;
  /** Snapshot byte budget per connection (default 1200). */
  snapshotBudgetBytes?: number;
  /** The snapshot encoder's ack ladder (default [1, 2, 5]; false: off). */
  snapshotAckLadder?: readonly number[] | false;
  relevancy?: Relevancy<P>;
  /** Importance of a ghost in the priority accumulator (default 1). */
  importance?: (ghost: Ghost<P>) => number;
  /**
   * Most ghosts one owner's input may spawn per tick (default 5, the NFE sample's clamp); extra ctx.spawn calls are refused with a warning.
   */
  maxSpawnsPerOwnerPerTick?: number;
  warn?: (message: string) => void;
  /** A contained failure: a system or callback threw, a ghost held an unsendable value, a snapshot failed to encode. */
  onError?: (error: NetcodeError, connection?: Connection) => void;
  /** The owner's input for a tick with running counts (ctx.inputCount). */
  rawInput?: (ghost: Ghost<P>, tick: Tick) => Record<string, unknown> | undefined;
  /** The owner's interpolation view for a tick (ctx.interpolationView). */
  interpolationView?: (ghost: Ghost<P>, tick: Tick) => { tick: Tick; fraction: number } | undefined;
}

interface Peer {
  state: ConnectionSnapshotState;
  /** Reused per snapshot: the ghosts relevant to this connection (when a relevancy callback is set). */
  readonly relevant: SnapshotGhost[];
}

/**
 * Ghosts with an owner are in every connection's snapshot, at the top priority: their owner predicts them
 * and needs their confirmed state at each snapshot tick, and for everyone else they are other players'
 * avatars, which move anyway. One function for every connection, so that connections with the same acks
 * share one encode, owners included (a function per owner made each of them encode alone: with 32 players
 * owning one ghost each, 32 encodes per snapshot instead of one).
 */
const owned = (g: SnapshotGhost): boolean => g.owner !== 0;

/** A Ghost seen through the encoder's eyes (no copy: `values` is the live components object). */
class GhostView implements SnapshotGhost {
  constructor(
    readonly ghost: Ghost,
    public importance: number,
  ) {}
  get id(): number {
    return this.ghost.id;
  }
  get typeId(): number {
    return this.ghost.typeId;
  }
  get owner(): number {
    return this.ghost.owner;
  }
  get spawnTick(): number {
    return this.ghost.spawnTick;
  }
  get values(): Record<string, unknown> {
    return this.ghost.components as Record<string, unknown>;
  }
}

export class ServerGhosts<P extends Protocol> {
  readonly world: EngineWorld<P>;
  private readonly runner: SystemRunner<P>;
  private encoder: SnapshotEncoder;
  private readonly peers = new Map<Connection, Peer>();
  private readonly views = new Map<number, GhostView>();
  private nextId = 1;
  /** The last input of each connection, replicated to other clients when the protocol asks for it. Filled by the input stage. */
  readonly lastInputs = new Map<number, Record<string, unknown>>();
  private readonly inputList: { networkId: number; values: Record<string, unknown> }[] = [];
  private inputCount = 0;
  private readonly listInput = (values: Record<string, unknown>, networkId: number): void => {
    const entry = this.inputList[this.inputCount++];
    if (entry === undefined) this.inputList.push({ networkId, values });
    else {
      entry.networkId = networkId;
      entry.values = values;
    }
  };
  currentTick: Tick = 0;

  constructor(
    private readonly protocol: P,
    private readonly options: ServerGhostOptions<P>,
    input: (ghost: Ghost<P>, tick: Tick) => Record<string, unknown> | undefined,
  ) {
    this.world = new EngineWorld(protocol, { isServer: true });
    this.encoder = this.createEncoder();
    this.runner = new SystemRunner(this.world, options.systems ?? [], {
      seed: options.seed,
      input: input as never,
      allocateId: () => this.allocateId(),
      onSpawn: (g) => this.track(g),
      onDespawn: (g) => this.untrack(g),
      interceptSpawn: (type, owner, tick) => this.clampSpawn(type, owner, tick),
      // A throwing system is skipped for this tick (its spawns/despawns so far apply) and reported.
      onError: (error) => this.fail(error),
      ...(options.rawInput ? { rawInput: options.rawInput } : {}),
      ...(options.interpolationView ? { interpolationView: options.interpolationView } : {}),
    });
  }

  private readonly spawnsThisTick = new Map<number, number>();
  private spawnTickSeen: Tick | undefined;

  /** The per-owner spawn clamp: refuse (null) beyond maxSpawnsPerOwnerPerTick in one tick. */
  private clampSpawn(type: string, owner: number, tick: Tick): null | undefined {
    if (owner === 0) return undefined;
    if (this.spawnTickSeen !== tick) {
      this.spawnTickSeen = tick;
      this.spawnsThisTick.clear();
    }
    const n = (this.spawnsThisTick.get(owner) ?? 0) + 1;
    this.spawnsThisTick.set(owner, n);
    const max = this.options.maxSpawnsPerOwnerPerTick ?? 5;
    if (n <= max) return undefined;
    if (n === max + 1) this.options.warn?.(`react-netcode: networkId ${owner} tried to spawn more than ${max} ghosts in tick ${tick} (a "${type}"); extra spawns are refused. Raise maxSpawnsPerOwnerPerTick if this is intended.`);
    this.refusedSpawns++;
    return null;
  }

  /** Spawns refused by the per-owner clamp. */
  refusedSpawns = 0;

  private allocateId(): number {
    const id = this.nextId;
    this.nextId = (this.nextId + 1) >>> 0 || 1;
    return id;
  }

  private track(ghost: Ghost<P>): void {
    this.views.set(ghost.id, new GhostView(ghost, 1));
  }

  private untrack(ghost: Ghost<P>): void {
    if (!this.views.delete(ghost.id)) return;
    this.encoder.forget(ghost.id);
  }

  /** Spawn a ghost outside systems (e.g. a player's character when it joins). */
  spawn<K extends GhostNames<P>>(type: K, init?: Partial<GhostValues<P, K>>, options: { owner?: number } = {}): Ghost<P, K> {
    const entry = this.protocol.ghostByName.get(type);
    if (entry !== undefined) checkSpawnInit(entry, init, 'server.spawn');
    const ghost = this.world.add(type, this.allocateId(), options.owner ?? 0, this.currentTick, init);
    this.track(ghost);
    return ghost;
  }

  /** Destroy a ghost outside systems. */
  despawn(ghost: Ghost<P>): void {
    if (!ghost.alive || this.world.get(ghost.id) !== ghost) return;
    this.world.remove(ghost.id);
    this.untrack(ghost);
  }

  /** Destroy every ghost owned by `networkId` (NFE's LinkedEntityGroup rule when a connection leaves for good). */
  destroyOwnedBy(networkId: number): number {
    const owned: Ghost<P>[] = [];
    for (const g of this.world.all()) if (g.owner === networkId) owned.push(g);
    for (const g of owned) this.despawn(g);
    return owned.length;
  }

  /** Run the server stage (shared + server systems) for `tick`. */
  simulate(tick: Tick): void {
    this.currentTick = tick;
    this.runner.run('server', tick);
  }

  /** Start (or restart, after a resume) snapshots for a connection: fresh baselines, everything re-sent. */
  attach(connection: Connection): void {
    this.detach(connection);
    const networkId = connection.networkId;
    const state = this.encoder.createConnectionState(networkId);
    this.peers.set(connection, { state, relevant: [] });
  }

  detach(connection: Connection): void {
    const peer = this.peers.get(connection);
    if (!peer) return;
    this.encoder.disposeConnectionState(peer.state);
    this.peers.delete(connection);
    this.lastInputs.delete(connection.networkId);
  }

  /** True on ticks when snapshots go out (`snapshotRate` per second, spread evenly over ticks; see protocol.isSnapshotTick). */
  isSnapshotTick(): boolean {
    return isSnapshotTick(this.protocol, this.currentTick);
  }

  /** Start this tick's snapshots; false when they cannot be sent this tick (reported). */
  beginSnapshots(tick: Tick): boolean {
    this.encoder.beginTick(tick);
    // Entries kept and rewritten by index (`length = 0` would drop the array's storage at every
    // snapshot); forEach, not for…of: no [key, value] pair per player.
    this.inputCount = 0;
    if (this.protocol.replicateInputs) this.lastInputs.forEach(this.listInput);
    this.inputList.length = this.inputCount;
    // Without a relevancy callback every connection gets the same list, so connections in the
    // same ack state can share one encode (the encoder compares the array and option objects).
    const all = this.allGhosts;
    if (!this.options.relevancy) {
      try {
        this.collect(all, undefined);
      } catch (error) {
        this.fail(new HandlerError('importance', tick, error));
        return false;
      }
    }
    return true;
  }

  /**
   * After an encode threw: reset every field its codec cannot send to the default (a system
   * wrote NaN, an integer out of range, an overlong string …), reporting each; true when one was.
   * Only on that failure path: the encoder's own quantization is the check on every tick.
   */
  private repair(tick: Tick): boolean {
    let repaired = false;
    for (const g of this.views.values()) {
      const entry = this.protocol.ghostList[g.typeId]!;
      const values = g.values;
      for (const key of entry.codec.keys) {
        const f = entry.codec.schema[key]!;
        const problem = f.validate(values[key]);
        if (problem === null) continue;
        values[key] = f.copy(f.defaultValue(), values[key]);
        repaired = true;
        this.fail(new NetcodeError('handler', `react-netcode: ghost ${g.id} (${entry.name}) field "${key}" ${problem} at tick ${tick}; a system wrote a value the field cannot send. It was reset to the field's default.`));
      }
    }
    return repaired;
  }

  private fail(error: NetcodeError, connection?: Connection): void {
    this.failures++;
    this.options.onError?.(error, connection);
  }

  /** Contained failures (systems, callbacks, unsendable values, encodes) since creation. */
  failures = 0;

  private readonly allGhosts: SnapshotGhost[] = [];
  /** The same for every connection (see `owned`). */
  private readonly encodeOptions = { predicted: owned, inputs: this.inputList };

  private collect(out: SnapshotGhost[], connection: Connection | undefined): void {
    const relevancy = this.options.relevancy;
    const importance = this.options.importance;
    // Written by index and cut to length at the end (also when a callback throws): `length = 0` first
    // would drop the array's storage at every snapshot tick.
    let n = 0;
    try {
      for (const ghost of this.world.all()) {
        if (connection && relevancy && ghost.owner !== connection.networkId && !relevancy(connection, ghost)) continue;
        const view = this.views.get(ghost.id);
        if (!view) continue;
        if (importance) view.importance = importance(ghost);
        out[n++] = view;
      }
    } finally {
      out.length = n;
    }
  }

  /**
   * Encode this tick's snapshot for one connection (a view, valid until the next encode), or
   * undefined. Contained: a throwing relevancy/importance callback skips this connection's
   * snapshot for the tick; an encode that throws is reported, unsendable ghost values are
   * reset to their defaults and every connection starts over from fresh baselines, so a
   * failure never spreads to the next tick.
   */
  snapshotFor(connection: Connection, tick: Tick): Uint8Array | undefined {
    const peer = this.peers.get(connection);
    if (!peer) return undefined;
    let ghosts: SnapshotGhost[] = this.allGhosts;
    if (this.options.relevancy) {
      ghosts = peer.relevant;
      try {
        this.collect(ghosts, connection);
      } catch (error) {
        this.fail(new HandlerError('relevancy or importance', tick, error), connection);
        return undefined;
      }
    }
    try {
      return this.encoder.encode(peer.state, tick, ghosts, this.encodeOptions);
    } catch (error) {
      // The throw may have left the encoder's shared state half-updated (connections in the same
      // state share one encode): repair what the ghosts hold, then start every connection over
      // from fresh baselines — their next snapshots carry every ghost in full, as after a resume.
      const failure = new NetcodeError(isNetcodeError(error) ? error.code : 'internal', `react-netcode: the snapshot of tick ${tick} for networkId ${connection.networkId} failed to encode: ${describeError(error)} Every connection's snapshots restart from fresh baselines.`);
      failure.cause = error;
      this.fail(failure, connection);
      this.repair(tick);
      this.rebuildEncoder();
      return undefined;
    }
  }

  /** A new encoder, and a fresh snapshot state for every attached connection in it. */
  private rebuildEncoder(): void {
    this.encodesBefore += this.encoder.encodes;
    this.encoder = this.createEncoder();
    for (const [connection, peer] of this.peers) peer.state = this.encoder.createConnectionState(connection.networkId);
    this.rebuilds++;
  }

  private createEncoder(): SnapshotEncoder {
    const ladder = this.options.snapshotAckLadder;
    const budgetBytes = this.options.snapshotBudgetBytes ?? 1200;
    return new SnapshotEncoder(this.protocol, ladder === undefined ? { budgetBytes } : { budgetBytes, ackLadder: ladder });
  }

  /** Times the snapshot encoder was rebuilt after a failed encode. */
  rebuilds = 0;
  private encodesBefore = 0;

  /** Snapshot messages encoded since creation: connections with the same acks share one. */
  get encodes(): number {
    return this.encodesBefore + this.encoder.encodes;
  }

  ack(connection: Connection, tick: Tick, mask: number): void {
    const peer = this.peers.get(connection);
    if (peer) this.encoder.ack(peer.state, tick, mask);
  }
}
