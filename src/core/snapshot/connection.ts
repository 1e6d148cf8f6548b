// Per-connection snapshot state. Connections whose clients have exactly the same
// ghosts, baselines and acks share a Group: one member encodes the tick, the
// others get a copy of its message. A member whose acks or inputs differ splits
// off into a group cloned from the state before that tick's encode, so sharing a
// group never changes what a client receives — it only saves the work. (What
// every connection of one encoder does share is each ghost's history ring of
// SNAPSHOT_GHOST_HISTORY rows, which moves on whenever any of them is sent the
// ghost: a client whose newest acked baseline has left it, after a long run of
// lost snapshots or acks, gets that ghost without a delta sooner than it would
// from an encoder of its own. Fuzzed: with a larger ring the two agree.)

import type { Tick } from '../tick.ts';
import { GhostStates } from './ghost-states.ts';

/** A message a group encoded at `tick`, with what a follower must match to reuse it. */
export class Group {
  readonly states = new GhostStates();
  /** The connections in this group. */
  readonly members: ConnectionSnapshotState[] = [];
  /** Encodes so far; a member that took part in the latest one has the same epoch. */
  epoch = 0;
  /** `states` as they were before the encode at `tick` (kept while the group has several members). */
  pre: GhostStates | undefined;
  tick: Tick = 0;
  /** A message for `tick` exists; it may be reused when `shareable`. */
  hasMsg = false;
  shareable = false;
  /** The group's latest encode took the steady path (it is likely to again). */
  steadyOk = false;
  msg = new Uint8Array(0);
  view = new Uint8Array(0);
  /** Identity of the encode arguments the message was made from. */
  ghosts: unknown = undefined;
  inputs: unknown = undefined;
  predicted: unknown = undefined;
  /** Owners of view-dependent ghosts in the message: such an owner sees different fields. */
  viewOwners = new Float64Array(8);
  viewOwnerCount = 0;
  /** Sorted snapshot ticks whose acks were applied just before the encode at `tick`. */
  applied = new Int32Array(64);
  appliedCount = 0;
  /** Groups split off at `tick` from `pre` (siblings with the same acks join them). */
  readonly children: Group[] = [];

  /** Keep a copy of the message encoded at `tick` for followers. */
  keep(msg: Uint8Array): void {
    if (this.msg.length < msg.length) this.msg = new Uint8Array(Math.max(msg.length, this.msg.length * 2));
    this.msg.set(msg);
    this.view = this.msg.subarray(0, msg.length);
    this.hasMsg = true;
  }

  addViewOwner(owner: number): void {
    for (let i = 0; i < this.viewOwnerCount; i++) if (this.viewOwners[i] === owner) return;
    if (this.viewOwnerCount === this.viewOwners.length) {
      const next = new Float64Array(this.viewOwnerCount * 2);
      next.set(this.viewOwners);
      this.viewOwners = next;
    }
    this.viewOwners[this.viewOwnerCount++] = owner;
  }

  isViewOwner(networkId: number): boolean {
    for (let i = 0; i < this.viewOwnerCount; i++) if (this.viewOwners[i] === networkId) return true;
    return false;
  }

  /** Whether snapshot `t` was still unacked before the encode at `tick` (and may be acked). */
  ackableBefore(t: Tick): boolean {
    if (t === this.tick || !this.states.sent.has(t)) return false;
    if (!this.states.isAcked(t)) return true;
    for (let i = 0; i < this.appliedCount; i++) if (this.applied[i] === (t | 0)) return true;
    return false;
  }
}

/** One connection's snapshot state. Create with `SnapshotEncoder.createConnectionState`. */
export class ConnectionSnapshotState {
  /** @internal The group whose states this connection is in. */
  group: Group;
  /** @internal Acked snapshot ticks not yet applied (acks are applied at the next encode). */
  pending = new Int32Array(64);
  pendingCount = 0;
  /** @internal The group epoch this connection last took part in. */
  epoch = 0;
  lastTick: Tick = 0;
  hasEncoded = false;
  disposed = false;

  constructor(
    readonly networkId: number,
    group: Group,
  ) {
    this.group = group;
    group.members.push(this);
  }

  /** @internal Remember that the client decoded the snapshot of `tick`. */
  addPending(tick: Tick): void {
    const t = tick | 0;
    for (let i = 0; i < this.pendingCount; i++) if (this.pending[i] === t) return;
    if (this.pendingCount === this.pending.length) {
      if (this.pendingCount >= 4096) return; // never encoded for: acks of unknown ticks are dropped anyway
      const next = new Int32Array(this.pendingCount * 2);
      next.set(this.pending);
      this.pending = next;
    }
    this.pending[this.pendingCount++] = t;
  }

  /** @internal The pending acks that matter against `g` (sorted, into `out`); returns the count. */
  effectiveAcks(g: Group, before: boolean, out: Int32Array): number {
    let n = 0;
    for (let i = 0; i < this.pendingCount; i++) {
      const t = this.pending[i]! >>> 0;
      const ok = before ? g.ackableBefore(t) : g.states.canAck(t);
      if (!ok || n >= out.length) continue;
      // Insertion sort (a few entries; no subarray view per call): ascending as int32.
      let j = n++;
      for (; j > 0 && out[j - 1]! > (t | 0); j--) out[j] = out[j - 1]!;
      out[j] = t | 0;
    }
    return n;
  }
}
