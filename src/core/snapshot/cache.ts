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
  private logD = new Int32Array(64);
  private logKey = new Int32Array(64);
  private logOff = new Int32Array(64);
  private logLen = new Int32Array(64);

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
    const need = this.logN + n;
    if (this.logD.length >= need) return;
    const size = Math.max(need, this.logD.length * 2);
    const grow = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
      const b = new Int32Array(size);
      b.set(a.subarray(0, this.logN));
      return b;
    };
    this.logD = grow(this.logD);
    this.logKey = grow(this.logKey);
    this.logOff = grow(this.logOff);
    this.logLen = grow(this.logLen);
  }

  /**
   * Remember a body like `add`, later (room reserved with `reserveLog`; `key` < 2^24,
   * `flags` < 2^7). For the steady path, which logs at most one body per ghost per pass.
   */
  log(d: number, key: number, off: number, len: number, flags: number): void {
    const i = this.logN++;
    this.logD[i] = d;
    this.logKey[i] = key | (flags << 24);
    this.logOff[i] = off;
    this.logLen[i] = len;
  }

  /** Index the logged bodies. */
  private index(): void {
    const n = this.logN;
    this.logN = 0;
    for (let i = 0; i < n; i++) {
      const k = this.logKey[i]!;
      this.add(this.logD[i]!, k & 0xffffff, this.logOff[i]!, this.logLen[i]!, k >>> 24);
    }
  }
}
