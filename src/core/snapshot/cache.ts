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
  /**
   * Bodies logged by the steady encode path and not indexed yet (ghost, key | flags << 24,
   * offset, length): written in list order, cheaper than `add`'s per-ghost ways, and
   * indexed by the first `find` or `add` after them — never, when no other encode of the
   * tick looks a body up (a tick whose connections all share one encode).
   */
  private logN = 0;
  /** Four ints per logged body: ghost, key | flags << 24, offset, length. */
  private log4 = new Int32Array(256);

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
    this.logN = 0;
    this.w.reset();
    this.sink.begin(this.w);
  }

  /** Index of the cached body of ghost d for `key`, or -1. */
  find(d: number, key: number): number {
    if (this.logN !== 0) this.index();
    if (this.stamp[d] !== this.epoch) return -1;
    const n = this.count[d]!;
    for (let i = d * WAYS, end = i + n; i < end; i++) if (this.keys[i] === key) return i;
    return -1;
  }

  /** Remember a body; returns its index, or -1 when the ghost's ways are full (the body stays usable through off/len). */
  add(d: number, key: number, off: number, len: number, flags: number): number {
    if (this.logN !== 0) this.index();
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

  /** Room in the log for `n` more bodies. */
  reserveLog(n: number): void {
    const need = (this.logN + n) * 4;
    if (this.log4.length >= need) return;
    const next = new Int32Array(Math.max(need, this.log4.length * 2));
    next.set(this.log4.subarray(0, this.logN * 4));
    this.log4 = next;
  }

  /**
   * Remember a body like `add`, later (room reserved with `reserveLog`; `key` < 2^24,
   * `flags` < 2^7). For the steady path, which logs at most one body per ghost per pass.
   */
  log(d: number, key: number, off: number, len: number, flags: number): void {
    const o = this.logN++ * 4;
    const l = this.log4;
    l[o] = d;
    l[o + 1] = key | (flags << 24);
    l[o + 2] = off;
    l[o + 3] = len;
  }

  /** Index the logged bodies. */
  private index(): void {
    const n = this.logN;
    this.logN = 0;
    const l = this.log4;
    for (let o = 0; o < n * 4; o += 4) {
      const k = l[o + 1]!;
      this.add(l[o]!, k & 0xffffff, l[o + 2]!, l[o + 3]!, k >>> 24);
    }
  }
}
