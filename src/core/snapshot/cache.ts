// Per-tick cache of encoded ghost bodies, shared by all connections: a body depends
// only on (ghost, baselines, view), so clients that acked the same snapshots reuse
// the bits instead of re-encoding them. Cleared by SnapshotEncoder.beginTick.

import { BitWriter } from '../bits.ts';
import { BitSink } from './codes.ts';

/** Cached bodies per ghost per tick; more distinct keys are encoded but not remembered. */
const WAYS = 4;

export class BodyCache {
  /** Every body encoded this tick, back to back. */
  readonly w = new BitWriter(64 * 1024);
  readonly sink = new BitSink();
  private epoch = 1;
  private stamp = new Int32Array(0);
  private count = new Uint8Array(0);
  private keys = new Int32Array(0);
  /** Bit offset and length of each cached body, and its flags (bit 0: used b1). */
  off = new Int32Array(0);
  len = new Int32Array(0);
  flags = new Uint8Array(0);

  ensure(cap: number): void {
    if (this.stamp.length >= cap) return;
    const grow = <A extends Int32Array | Uint8Array>(a: A, n: number): A => {
      const b = new (a.constructor as new (n: number) => A)(n);
      b.set(a);
      return b;
    };
    this.stamp = grow(this.stamp, cap);
    this.count = grow(this.count, cap);
    this.keys = grow(this.keys, cap * WAYS);
    this.off = grow(this.off, cap * WAYS);
    this.len = grow(this.len, cap * WAYS);
    this.flags = grow(this.flags, cap * WAYS);
  }

  /** Forget every body (a new tick). */
  clear(): void {
    this.epoch++;
    this.w.reset();
    this.sink.begin(this.w);
  }

  /** Index of the cached body of ghost d for `key`, or -1. */
  find(d: number, key: number): number {
    if (this.stamp[d] !== this.epoch) return -1;
    const n = this.count[d]!;
    for (let i = d * WAYS, end = i + n; i < end; i++) if (this.keys[i] === key) return i;
    return -1;
  }

  /** Remember a body; returns its index, or -1 when the ghost's ways are full (the body stays usable through off/len). */
  add(d: number, key: number, off: number, len: number, flags: number): number {
    if (this.stamp[d] !== this.epoch) {
      this.stamp[d] = this.epoch;
      this.count[d] = 0;
    }
    const n = this.count[d]!;
    if (n >= WAYS) return -1;
    const i = d * WAYS + n;
    this.count[d] = n + 1;
    this.keys[i] = key;
    this.off[i] = off;
    this.len[i] = len;
    this.flags[i] = flags;
    return i;
  }
}
