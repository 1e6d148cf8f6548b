// Server side of snapshots: per connection and tick, a message with the ghosts that
// fit the byte budget by priority, each against the connection's newest acked
// baselines (encode-core.ts). Connections in identical states share one encode
// (connection.ts groups); bodies are shared across connections per tick.

import type { Protocol } from '../protocol.ts';
import { isNewer, type Tick } from '../tick.ts';
import { DEFAULT_SNAPSHOT_BUDGET_BYTES, MIN_SNAPSHOT_BUDGET_BYTES } from '../wire.ts';
import { ConnectionSnapshotState, Group } from './connection.ts';
import { EncodeCore } from './encode-core.ts';
import { usage } from './usage.ts';
import { GhostStates } from './ghost-states.ts';
import { compileLayouts } from './layout.ts';
import { GhostStore } from './store.ts';

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
  /**
   * An unchanged ghost whose current state the client has acked is re-sent only after
   * this many ticks without a send (default: tickRate, i.e. about once a second), so its
   * confirmed tick on the client never goes stale by more than that. It then costs ~4 bits.
   */
  refreshTicks?: number;
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
  private readonly core: EncodeCore;
  private tick: Tick = 0;
  private hasTick = false;
  /** New connections join this group until it first encodes (identical empty states). */
  private nursery: Group | undefined;
  private acks = new Int32Array(64);
  /** Connection states not disposed. */
  private live = 0;

  constructor(protocol: Protocol, options: SnapshotEncoderOptions = {}) {
    this.budgetBytes = options.budgetBytes ?? DEFAULT_SNAPSHOT_BUDGET_BYTES;
    this.refreshTicks = options.refreshTicks ?? protocol.tickRate;
    if (!Number.isInteger(this.budgetBytes) || this.budgetBytes < MIN_SNAPSHOT_BUDGET_BYTES) throw usage(`snapshot budgetBytes ${this.budgetBytes} is invalid; pass an integer >= ${MIN_SNAPSHOT_BUDGET_BYTES} (default ${DEFAULT_SNAPSHOT_BUDGET_BYTES}).`);
    if (!Number.isInteger(this.refreshTicks) || this.refreshTicks < 1) throw usage(`snapshot refreshTicks ${this.refreshTicks} is invalid; pass an integer >= 1.`);
    const layouts = compileLayouts(protocol);
    this.store = new GhostStore(layouts);
    this.core = new EncodeCore(protocol, layouts, this.store, this.budgetBytes, this.refreshTicks);
  }

  createConnectionState(networkId: number): ConnectionSnapshotState {
    if (!Number.isInteger(networkId) || networkId < 0 || networkId > 0xffff_ffff) throw usage(`networkId ${networkId} is invalid; pass the connection's uint32 networkId.`);
    if (this.nursery === undefined || this.nursery.states.hasEncoded) this.nursery = new Group();
    this.live++;
    return new ConnectionSnapshotState(networkId, this.nursery);
  }

  /** The connection is gone: release what it held (destroyed ghosts it still knew are freed). */
  disposeConnectionState(state: ConnectionSnapshotState): void {
    if (state.disposed) return;
    const g = state.group;
    g.members.splice(g.members.indexOf(state), 1);
    if (g.members.length === 0) g.states.release(this.store);
    state.disposed = true;
    this.live--;
  }

  /** Start server tick `tick` (clears the per-tick body cache). `encode` calls it when the tick changes. */
  beginTick(tick: Tick): void {
    this.tick = tick >>> 0;
    this.hasTick = true;
    this.core.cache.clear();
    this.store.flushFree();
  }

  /**
   * Optional: quantize this tick's ghosts up front (like a change-tracking step right
   * after the simulation), so the encodes only diff and write. `encode` quantizes any
   * ghost not prepared for its tick itself. Throws WireError on a value a field cannot send.
   */
  prepare(tick: Tick, ghosts: readonly SnapshotGhost[]): void {
    tick = tick >>> 0;
    if (!this.hasTick || tick !== this.tick) this.beginTick(tick);
    this.core.prepare(tick, ghosts);
  }

  /** The ghost was destroyed: connections that have it get a despawn; its id may be reused afterwards. */
  forget(ghostId: number): void {
    const d = this.store.ids.get(ghostId >>> 0);
    if (d >= 0 && ghostId === ghostId >>> 0) this.store.destroy(d);
  }

  /** Handle a SnapshotAck body: the client decoded `newestTick` and every tick − 1 − i whose mask bit i is set. Applied at the next encode. */
  ack(state: ConnectionSnapshotState, newestTick: Tick, mask: number): void {
    if (state.disposed) return;
    const g = state.group;
    const newest = newestTick >>> 0;
    if (this.mayMatter(g, newest)) state.addPending(newest);
    for (let i = 0; i < 32; i++) {
      const t = (newest - 1 - i) >>> 0;
      if ((mask >>> i) & 1 && this.mayMatter(g, t)) state.addPending(t);
    }
  }

  /**
   * Whether an ack of `t` can still change anything for a member of `g`: the snapshot is
   * known, and not already acked in the group's states before its latest encode (an ack
   * applied earlier is also in `pre`, the states a member that splits off starts from).
   * The mask repeats the last 32 acks every time; without this, each of them would be
   * kept and re-checked at every encode of every member of the group.
   */
  private mayMatter(g: Group, t: Tick): boolean {
    if (!g.states.sent.has(t)) return false;
    if (!g.states.isAcked(t)) return true;
    for (let i = 0; i < g.appliedCount; i++) if (g.applied[i] === (t | 0)) return true;
    return false;
  }

  /**
   * Encode the Snapshot message for one connection (kind byte first). `ghosts` are the
   * ghosts relevant to it this tick, sorted by id; one it had and no longer gets is
   * despawned on that client (repeated until acked). At most one call per connection per
   * tick, ticks increasing. Returns a view valid until the next encode.
   * Connections given the same `ghosts` (and `inputs`, `predicted`) arrays at a tick
   * may share one encode.
   */
  encode(state: ConnectionSnapshotState, tick: Tick, ghosts: readonly SnapshotGhost[], options: SnapshotEncodeOptions = {}): Uint8Array {
    tick = tick >>> 0;
    if (state.disposed) throw usage('this ConnectionSnapshotState was disposed; create a new one for the connection.');
    if (state.hasEncoded && !isNewer(tick, state.lastTick)) throw usage(`snapshot tick ${tick} is not after the connection's previous snapshot (${state.lastTick}); encode at most once per tick, ticks increasing.`);
    if (!this.hasTick || tick !== this.tick) this.beginTick(tick);
    let g = state.group;
    if (state.epoch !== g.epoch) {
      // The group encoded without this member; its states are the ones from before that encode.
      if (g.hasMsg && g.tick === tick && state.epoch === g.epoch - 1) {
        const shared = this.follow(state, g, tick, ghosts, options) ?? this.followChild(state, g, tick, ghosts, options);
        if (shared !== undefined) return this.done(state, tick, shared);
        g = this.fork(g, [state]);
      } else g = this.fork(g, g.members.filter((m) => m.epoch !== g.epoch));
    }
    return this.done(state, tick, this.lead(state, g, tick, ghosts, options));
  }

  /** Encode for the whole group: apply this member's acks, encode, keep the message for the others. */
  private lead(state: ConnectionSnapshotState, g: Group, tick: Tick, ghosts: readonly SnapshotGhost[], options: SnapshotEncodeOptions): Uint8Array {
    // Members that missed the previous encode go on from the states before it, apart.
    if (g.members.some((m) => m.epoch !== g.epoch)) this.fork(g, g.members.filter((m) => m.epoch !== g.epoch));
    const s = g.states;
    if (g.members.length > 1) s.copyInto((g.pre ??= new GhostStates()));
    if (g.applied.length < state.pendingCount) g.applied = new Int32Array(state.pendingCount * 2);
    g.appliedCount = state.effectiveAcks(g, false, g.applied);
    for (let i = 0; i < g.appliedCount; i++) s.ackTick(this.store, g.applied[i]! >>> 0);
    state.pendingCount = 0;
    g.children.length = 0;
    g.hasMsg = false;
    g.tick = tick;
    // Every connection in this group, steady last time: no other encode of this tick will look up its bodies.
    this.core.logBodies = !(g.members.length === this.live && g.steadyOk);
    const msg = this.core.encode(s, state.networkId, g, tick, ghosts, options.predicted, options.inputs);
    // Kept even for a lone member: siblings that split off at this tick may follow it.
    g.keep(msg);
    g.shareable = !g.isViewOwner(state.networkId);
    g.ghosts = ghosts;
    g.inputs = options.inputs;
    g.predicted = options.predicted;
    state.epoch = ++g.epoch;
    return msg;
  }

  /** The group's message for this member, when it may have it: same arguments, same acks, same view. */
  private follow(state: ConnectionSnapshotState, g: Group, tick: Tick, ghosts: readonly SnapshotGhost[], options: SnapshotEncodeOptions): Uint8Array | undefined {
    if (!g.hasMsg || g.tick !== tick || !g.shareable || g.ghosts !== ghosts || g.inputs !== options.inputs || g.predicted !== options.predicted || g.isViewOwner(state.networkId)) return undefined;
    if (this.acks.length < state.pendingCount) this.acks = new Int32Array(state.pendingCount * 2);
    const n = state.effectiveAcks(g, true, this.acks);
    if (n !== g.appliedCount) return undefined;
    for (let i = 0; i < n; i++) if (this.acks[i] !== g.applied[i]) return undefined;
    state.pendingCount = 0;
    this.move(state, g);
    state.epoch = g.epoch;
    return g.view;
  }

  /** Follow a group that split off the member's group at this tick (same states before it, same acks). */
  private followChild(state: ConnectionSnapshotState, g: Group, tick: Tick, ghosts: readonly SnapshotGhost[], options: SnapshotEncodeOptions): Uint8Array | undefined {
    for (const child of g.children) {
      const msg = this.follow(state, child, tick, ghosts, options);
      if (msg !== undefined) return msg;
    }
    return undefined;
  }

  /** A new group for `who`, from the states `g` had before its latest encode. */
  private fork(g: Group, who: readonly ConnectionSnapshotState[]): Group {
    const child = new Group();
    g.pre!.copyInto(child.states);
    child.states.shareSent(g.states, g.tick);
    child.states.retain(this.store);
    g.children.push(child);
    for (const m of who) {
      this.move(m, child);
      m.epoch = 0;
    }
    return child;
  }

  private move(state: ConnectionSnapshotState, to: Group): void {
    const from = state.group;
    if (from === to) return;
    from.members.splice(from.members.indexOf(state), 1);
    if (from.members.length === 0) from.states.release(this.store);
    state.group = to;
    to.members.push(state);
  }

  private done(state: ConnectionSnapshotState, tick: Tick, msg: Uint8Array): Uint8Array {
    state.lastTick = tick;
    state.hasEncoded = true;
    return msg;
  }
}
