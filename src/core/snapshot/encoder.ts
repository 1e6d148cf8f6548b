// Server side of snapshots: per connection and tick, the ghosts that fit the budget by priority, against the
// connection's newest acked baselines (encode.ts). Connections in identical states share one encode (groups.ts).

import type { Protocol } from '../protocol.ts';
import { isNewer, type Tick } from '../clock/tick.ts';
import { DEFAULT_SNAPSHOT_BUDGET_BYTES, MIN_SNAPSHOT_BUDGET_BYTES } from '../wire.ts';
import { EncodePass } from './encode.ts';
import { GhostStates } from './ghost-states.ts';
import { ConnectionSnapshotState, Groups, type Group } from './groups.ts';
import { kernelsFor, type KernelMode } from './kernels.ts';
import { AckLadder, DEFAULT_ACK_LADDER } from './ladder.ts';
import { compileLayouts } from './layout.ts';
import { GhostStore } from './store.ts';
import { NetcodeError } from '../errors.ts';

/** One ghost offered to a connection this tick. `values` must be the same for every connection within a tick. */
export interface SnapshotGhost {
  readonly id: number;
  readonly typeId: number;
  /** Owner's networkId (0 = none). Immutable for the ghost's life, like typeId. */
  readonly owner: number;
  readonly values: Record<string, unknown>;
  /** Server tick the ghost was spawned at (default: the tick it was first encoded); sent in spawn records. */
  readonly spawnTick?: number;
  /** Priority weight (default 1, clamped to [1/256, 256]). */
  readonly importance?: number;
}

export interface SnapshotInput {
  readonly networkId: number;
  readonly values: Record<string, unknown>;
}

export interface SnapshotEncoderOptions {
  /** Most bytes per snapshot message (default 1200, at least 64). */
  budgetBytes?: number;
  /** An unchanged ghost the client has is re-sent after this many ticks without a send (default: tickRate), ~4 bits. */
  refreshTicks?: number;
  /**
   * Ages (in this encoder's ticks) at which a connection's acks count as baselines, the rung chosen per connection
   * from its ack delay (default [1, 2, 5]; ladder.ts). `false`: every ack counts at the next tick.
   */
  ackLadder?: readonly number[] | false;
  /**
   * Merge behind (default true): a connection behind a lost snapshot rejoins its group as soon as their newest
   * baselines agree, predicting from a second baseline all their clients hold. Off: only once its states are equal.
   */
  mergeBehind?: boolean;
  /** @internal 'reference': the reference quantizer and body writer, as where code generation is not allowed (tests compare). */
  kernels?: KernelMode;
}

export interface SnapshotEncodeOptions {
  /** Whether the recipient predicts the ghost: predicted ghosts are sent in every snapshot, first. */
  predicted?: (g: SnapshotGhost) => boolean;
  /** The last input of each player (a quarter of the budget at most; the rest wait). */
  inputs?: readonly SnapshotInput[];
}

export class SnapshotEncoder {
  readonly budgetBytes: number;
  readonly refreshTicks: number;
  private readonly store: GhostStore;
  private readonly pass: EncodePass;
  private readonly groups: Groups;
  /** @internal */
  readonly ladder: AckLadder | undefined;
  /** @internal Encodes so far (the other connections took a copy of one). */
  encodes = 0;
  private tick: Tick = 0;
  private hasTick = false;
  /** New connections join this group until it first encodes. */
  private nursery: Group | undefined;

  constructor(protocol: Protocol, options: SnapshotEncoderOptions = {}) {
    this.budgetBytes = options.budgetBytes ?? DEFAULT_SNAPSHOT_BUDGET_BYTES;
    this.refreshTicks = options.refreshTicks ?? protocol.tickRate;
    if (!Number.isInteger(this.budgetBytes) || this.budgetBytes < MIN_SNAPSHOT_BUDGET_BYTES) {
      throw new NetcodeError('usage', `react-netcode: snapshot budgetBytes ${this.budgetBytes} is invalid; pass an integer >= ${MIN_SNAPSHOT_BUDGET_BYTES} (default ${DEFAULT_SNAPSHOT_BUDGET_BYTES}).`);
    }
    if (!Number.isInteger(this.refreshTicks) || this.refreshTicks < 1) throw new NetcodeError('usage', `react-netcode: snapshot refreshTicks ${this.refreshTicks} is invalid; pass an integer >= 1.`);
    const layouts = compileLayouts(protocol);
    const kernels = kernelsFor(layouts, options.kernels ?? 'compiled');
    this.store = new GhostStore(layouts, kernels);
    this.pass = new EncodePass(protocol, layouts, kernels, this.store, this.budgetBytes, this.refreshTicks);
    const ladder = options.ackLadder ?? DEFAULT_ACK_LADDER;
    this.ladder = ladder === false ? undefined : new AckLadder(ladder);
    this.groups = new Groups(this.store, this.ladder, options.mergeBehind ?? true);
  }

  createConnectionState(networkId: number): ConnectionSnapshotState {
    if (!Number.isInteger(networkId) || networkId < 0 || networkId > 0xffff_ffff) throw new NetcodeError('usage', `react-netcode: networkId ${networkId} is invalid; pass the connection's uint32 networkId.`);
    let n = this.nursery;
    if (n === undefined || n.states.hasEncoded || n.members.length === 0) n = this.nursery = this.groups.create();
    return new ConnectionSnapshotState(networkId, n);
  }

  /** The connection is gone: release what it held (destroyed ghosts it still knew are freed). */
  disposeConnectionState(state: ConnectionSnapshotState): void {
    if (state.disposed) return;
    const g = state.group;
    g.members.splice(g.members.indexOf(state), 1);
    if (g.members.length === 0) {
      this.groups.remove(g);
      if (this.nursery === g) this.nursery = undefined;
    }
    state.disposed = true;
  }

  /** Start server tick `tick`: acks received so far are applied. `encode` calls it at a new tick. */
  beginTick(tick: Tick): void {
    this.tick = tick >>> 0;
    this.hasTick = true;
    this.pass.beginTick(this.tick);
    this.ladder?.begin(this.tick);
    // Groups first: states split off from before an encode take references on the ghosts they know, so those stay allocated.
    this.groups.beginTick();
    this.store.flushFree();
  }

  /** The ghost was destroyed: connections that have it get a despawn; its id may be reused afterwards. */
  forget(ghostId: number): void {
    const d = this.store.ids.get(ghostId >>> 0);
    if (d !== undefined && ghostId === ghostId >>> 0) this.store.destroy(d);
  }

  /** A SnapshotAck: the client decoded `newestTick` and each tick − 1 − i of mask bit i; applied at a later tick. */
  ack(state: ConnectionSnapshotState, newestTick: Tick, mask: number): void {
    if (state.disposed) return;
    const s = state.group.states;
    const newest = newestTick >>> 0;
    state.hear(newest);
    if (s.canAck(newest)) state.addPending(newest);
    for (let i = 0; i < 32; i++) {
      const t = (newest - 1 - i) >>> 0;
      if ((mask >>> i) & 1 && s.canAck(t)) state.addPending(t);
    }
  }

  /**
   * The Snapshot message for one connection (kind byte first), a view valid until the next encode. `ghosts`: the
   * ghosts relevant to it, sorted by id (one it no longer gets is despawned). Once per connection per tick, ticks
   * increasing. Connections given the same `ghosts`, `inputs` and `predicted` at a tick may share one encode.
   */
  encode(state: ConnectionSnapshotState, tick: Tick, ghosts: readonly SnapshotGhost[], options: SnapshotEncodeOptions = {}): Uint8Array {
    tick = tick >>> 0;
    if (state.disposed) throw new NetcodeError('usage', 'react-netcode: this ConnectionSnapshotState was disposed; create a new one for the connection.');
    if (state.hasEncoded && !isNewer(tick, state.lastTick)) {
      throw new NetcodeError('usage', `react-netcode: snapshot tick ${tick} is not after the connection's previous snapshot (${state.lastTick}); encode at most once per tick, ticks increasing.`);
    }
    if (!this.hasTick || tick !== this.tick) this.beginTick(tick);
    let g = state.group;
    let msg: Uint8Array | undefined;
    if (g.hasMsg && g.tick === tick) {
      // Another member encoded this tick: take its message, or that of a group split off at this tick, or split off.
      msg = this.follow(state, g, ghosts, options);
      for (let i = 0; msg === undefined && i < g.children.length; i++) msg = this.follow(state, g.children[i]!, ghosts, options);
      if (msg === undefined) g = this.groups.fork(g, [state], true);
    }
    msg ??= this.lead(state, g, ghosts, options);
    state.lastTick = tick;
    state.hasEncoded = true;
    return msg;
  }

  /** Encode for the whole group and keep the message for the others. */
  private lead(state: ConnectionSnapshotState, g: Group, ghosts: readonly SnapshotGhost[], options: SnapshotEncodeOptions): Uint8Array {
    if (g.members.length > 1) (g.pre ??= new GhostStates()).copyRecords(g.states);
    g.children.length = 0;
    // Bodies are remembered only when another group may use them (one with the same newest ack).
    this.pass.cacheBodies = this.groups.sharesAcks(g);
    const msg = this.pass.encode(g.states, state.networkId, g, ghosts, options.predicted, options.inputs);
    g.keep(msg, this.tick);
    g.shareable = !g.viewOwners.includes(state.networkId);
    g.ghosts = ghosts;
    g.inputs = options.inputs;
    g.predicted = options.predicted;
    state.epoch = ++g.epoch;
    this.encodes++;
    return msg;
  }

  /** `g`'s message of this tick for `state`, when it may have it: same arguments, and neither it nor the lead sees other fields. */
  private follow(
    state: ConnectionSnapshotState, g: Group, ghosts: readonly SnapshotGhost[], options: SnapshotEncodeOptions,
  ): Uint8Array | undefined {
    if (!g.hasMsg || g.tick !== this.tick || !g.shareable || g.viewOwners.includes(state.networkId)) return undefined;
    if (g.ghosts !== ghosts || g.inputs !== options.inputs || g.predicted !== options.predicted) return undefined;
    this.groups.move(state, g, g.epoch);
    return g.view;
  }
}
