// Connections whose clients have the same ghosts, baselines and acks share a Group: one member encodes the
// tick, the others copy its message. At each tick's start members whose acks differ split off and groups
// whose states converged merge; a member that cannot take the message (other ghosts, inputs or view) splits
// off from the states before that encode. Sharing never changes what a client receives.

import type { Tick } from '../clock/tick.ts';
import { GhostStates } from './ghost-states.ts';
import { LadderSeat, type AckLadder } from './ladder.ts';
import { resized } from './scratch.ts';
import type { GhostStore } from './store.ts';

/** A set of connections in identical states, and the message its latest encode made. */
export class Group {
  readonly states = new GhostStates();
  readonly members: ConnectionSnapshotState[] = [];
  /** Encodes so far; members that took part in the latest one have this epoch. */
  epoch = 0;
  /** `states` as they were before the encode at `tick` (kept while the group has several members). */
  pre: GhostStates | undefined;
  tick: Tick = 0;
  /** A message for `tick` exists; members may take it when `shareable` and the arguments match. */
  hasMsg = false;
  shareable = false;
  view = new Uint8Array(0);
  private msg = new Uint8Array(0);
  /** Identity of the encode arguments the message was made from. */
  ghosts: unknown = undefined;
  inputs: unknown = undefined;
  predicted: unknown = undefined;
  /** Owners of view-dependent ghosts in the message: such an owner sees other fields. */
  readonly viewOwners: number[] = [];
  /** Groups split off at `tick` from `pre` (members with the same arguments join them). */
  readonly children: Group[] = [];

  keep(msg: Uint8Array, tick: Tick): void {
    if (this.msg.length < msg.length) this.msg = new Uint8Array(Math.max(msg.length, this.msg.length * 2));
    this.msg.set(msg);
    this.view = this.msg.subarray(0, msg.length);
    this.hasMsg = true;
    this.tick = tick;
  }

  addViewOwner(owner: number): void {
    if (!this.viewOwners.includes(owner)) this.viewOwners.push(owner);
  }
}

/** One connection's snapshot state. Create with `SnapshotEncoder.createConnectionState`. */
export class ConnectionSnapshotState extends LadderSeat {
  /** @internal The group whose states this connection is in. */
  group: Group;
  /** @internal Acked snapshot ticks not yet applied (acks are applied at the start of the next tick). */
  pending = new Int32Array(64);
  pendingCount = 0;
  /** @internal After `settle`: the first `usable` pending acks count this tick (the rest wait on the ladder). */
  usable = 0;
  /** @internal The group epoch this connection last took part in. */
  epoch = 0;
  lastTick: Tick = 0;
  hasEncoded = false;
  disposed = false;

  constructor(
    readonly networkId: number,
    group: Group,
  ) {
    super();
    this.group = group;
    group.members.push(this);
  }

  addPending(tick: Tick): void {
    const t = tick | 0;
    for (let i = 0; i < this.pendingCount; i++) if (this.pending[i] === t) return;
    if (this.pendingCount === this.pending.length) {
      if (this.pendingCount >= 4096) return; // never encoded for: acks of unknown ticks are dropped anyway
      this.pending = resized(this.pending, this.pendingCount * 2);
    }
    this.pending[this.pendingCount++] = t;
  }

  /** @internal Keep the pending acks that change `states`, ascending; count the usable ones (the ladder's rung). */
  settle(states: GhostStates, ladder: AckLadder | undefined): void {
    let n = 0;
    for (let i = 0; i < this.pendingCount; i++) {
      const t = this.pending[i]!;
      if (!states.canAck(t >>> 0)) continue;
      let j = n++;
      for (; j > 0 && this.pending[j - 1]! > t; j--) this.pending[j] = this.pending[j - 1]!;
      this.pending[j] = t;
    }
    this.pendingCount = n;
    let u = 0;
    if (ladder === undefined) u = n;
    else while (u < n && ladder.usable(this, this.pending[u]! >>> 0)) u++; // ages fall along ascending ticks
    this.usable = u;
  }

  sameAcks(other: ConnectionSnapshotState): boolean {
    if (other.usable !== this.usable) return false;
    for (let i = 0; i < this.usable; i++) if (this.pending[i] !== other.pending[i]) return false;
    return true;
  }

  consume(): void {
    const u = this.usable;
    if (u === 0) return;
    this.pending.copyWithin(0, u, this.pendingCount);
    this.pendingCount -= u;
    this.usable = 0;
  }
}

/** Every group of one encoder, and the moves between them. */
export class Groups {
  readonly list: Group[] = [];
  /** Groups emptied this tick (a child may still be consulted), spare from the next one on. */
  private readonly emptied: Group[] = [];
  private readonly spare: Group[] = [];
  private readonly who: ConnectionSnapshotState[] = [];

  constructor(
    private readonly store: GhostStore,
    private readonly ladder: AckLadder | undefined,
    private readonly mergeBehind: boolean,
  ) {}

  create(): Group {
    const g = this.spare.pop() ?? new Group();
    g.epoch = 0;
    g.hasMsg = false;
    g.ghosts = g.inputs = g.predicted = undefined;
    g.viewOwners.length = 0;
    g.children.length = 0;
    this.list.push(g);
    return g;
  }

  /** Move `state` into `to` as having taken part in its encode `epoch`, releasing its old group when that empties. */
  move(state: ConnectionSnapshotState, to: Group, epoch: number): void {
    const from = state.group;
    state.epoch = epoch;
    if (from === to) return;
    from.members.splice(from.members.indexOf(state), 1);
    if (from.members.length === 0) this.remove(from);
    state.group = to;
    to.members.push(state);
  }

  /** True when another group has the same newest acked tick as `g` (their encodes may share bodies). */
  sharesAcks(g: Group): boolean {
    for (const o of this.list) if (o !== g && o.states.newestAck === g.states.newestAck) return true;
    return false;
  }

  remove(g: Group): void {
    g.states.release(this.store);
    this.list.splice(this.list.indexOf(g), 1);
    this.emptied.push(g);
  }

  /** A new group for `who`: from the states `g` had before its encode at `g.tick` (`before`), or from its states now. */
  fork(g: Group, who: readonly ConnectionSnapshotState[], before: boolean): Group {
    const child = this.create();
    child.states.copyRecords(before ? g.pre! : g.states);
    child.states.adopt(g.states, before ? g.tick : undefined, this.store);
    if (before) g.children.push(child);
    // Split off by its acks, it was given the same arguments as `g` (so it may merge back this tick).
    else [child.ghosts, child.inputs, child.predicted] = [g.ghosts, g.inputs, g.predicted];
    for (const m of who) this.move(m, child, 0);
    return child;
  }

  /** Start of a tick: members that missed their group's latest encode split off; acks are applied; converged groups merge. */
  beginTick(): void {
    while (this.emptied.length > 0) this.spare.push(this.emptied.pop()!);
    for (let i = 0, n = this.list.length; i < n; i++) {
      const g = this.list[i]!;
      this.who.length = 0;
      for (const m of g.members) if (m.epoch !== g.epoch) this.who.push(m);
      if (this.who.length > 0) this.fork(g, this.who, true);
    }
    for (let i = 0, n = this.list.length; i < n; i++) this.applyAcks(this.list[i]!);
    this.merge();
  }

  /** Apply each member's acks; members whose acks differ from the first member's split off first, with theirs. */
  private applyAcks(g: Group): void {
    const lead = g.members[0];
    if (lead === undefined) return;
    let differ = false;
    for (const m of g.members) {
      this.ladder?.observe(m);
      m.settle(g.states, this.ladder);
      differ ||= !m.sameAcks(lead);
    }
    while (differ) {
      const who = this.who;
      who.length = 0;
      for (const m of g.members) if (!m.sameAcks(lead) && (who.length === 0 || m.sameAcks(who[0]!))) who.push(m);
      differ = who.length > 0;
      if (differ) this.ack(this.fork(g, who, false), who[0]!);
    }
    this.ack(g, lead);
  }

  private ack(g: Group, acks: ConnectionSnapshotState): void {
    for (let i = 0; i < acks.usable; i++) g.states.ackTick(this.store, acks.pending[i]! >>> 0);
    for (const m of g.members) m.consume();
  }

  /** Merge groups that were given the same arguments and whose states are the same again (or, merging behind, alike enough). */
  private merge(): void {
    for (let i = 0; i < this.list.length; i++) {
      const a = this.list[i]!;
      for (let j = i + 1; j < this.list.length; j++) {
        const b = this.list[j]!;
        if (!a.states.hasEncoded || a.ghosts !== b.ghosts || a.inputs !== b.inputs || a.predicted !== b.predicted) continue;
        if (!a.states.merge(b.states, this.store.used, this.mergeBehind)) continue;
        while (b.members.length > 0) this.move(b.members[b.members.length - 1]!, a, a.epoch);
        j--;
      }
    }
  }
}
