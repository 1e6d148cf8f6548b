// Scratch of the snapshot encoder, reused by every encode: the records of the encode, its despawns, and the
// per-tick body cache.

import { BitWriter } from '../bits.ts';
import { BitSink } from './codes.ts';

/** A copy of `a` with length `n` (grown or cut). */
export function resized<A extends NumArray>(a: A, n: number): A {
  const b = new (a.constructor as new (n: number) => A)(n);
  b.set(a.subarray(0, Math.min(a.length, n)));
  return b;
}

type NumArray = Int32Array | Uint32Array | Uint8Array | Float64Array;

/** Replace each array `keys` of `o` with a copy of length n (grown or cut). */
export function resizeAll<K extends string>(o: { [k in K]: NumArray }, keys: readonly K[], n: number): void {
  for (const k of keys) o[k] = resized(o[k], n);
}

export class Records {
  n = 0;
  dense = new Int32Array(0);
  /** 1: a spawn record. */
  spawn = new Uint8Array(0);
  /** Baseline ages as written: tick − b0, b0 − b1 (0 = none). */
  age0 = new Int32Array(0);
  age1 = new Int32Array(0);
  /** Body bits [off, off + len) of the body arena. */
  off = new Int32Array(0);
  len = new Int32Array(0);
  /** Estimated record bits (id gap to the previous record, explicit baselines). */
  bits = new Int32Array(0);
  prio = new Float64Array(0);
  /** 1: the record goes into the message. */
  sel = new Uint8Array(0);

  reserve(n: number): void {
    if (this.dense.length >= n) return;
    const cap = Math.max(64, n, this.dense.length * 2);
    resizeAll(this, ['dense', 'spawn', 'age0', 'age1', 'off', 'len', 'bits', 'prio', 'sel'], cap);
  }
}

/** Despawns of the current connection: keys id · 2^21 + dense index, sorted by id. */
export class Despawns {
  n = 0;
  keys = new Float64Array(64);

  push(id: number, d: number): void {
    if (this.n === this.keys.length) this.keys = resized(this.keys, this.n * 2);
    this.keys[this.n++] = id * 2 ** 21 + d;
  }

  sort(): void {
    if (this.n > 1) this.keys.subarray(0, this.n).sort();
  }

  id(j: number): number {
    return Math.floor(this.keys[j]! / 2 ** 21);
  }

  dense(j: number): number {
    return this.keys[j]! % 2 ** 21;
  }
}

/** Cached bodies per ghost per tick; more distinct keys are encoded but not remembered. */
const WAYS = 4;

/** Per-tick cache of ghost bodies, shared by all connections: a body depends only on (ghost, baselines, view). */
export class BodyCache {
  /** Every body encoded this tick, back to back. */
  readonly w = new BitWriter(64 * 1024);
  readonly sink = new BitSink();
  private epoch = 1;
  private stamp = new Int32Array(0);
  private count = new Uint8Array(0);
  /** Per way: key, bit offset and length of the body, and whether it used the prediction. */
  private keys = new Int32Array(0);
  off = new Int32Array(0);
  len = new Int32Array(0);
  b1 = new Uint8Array(0);

  ensure(cap: number): void {
    if (this.stamp.length >= cap) return;
    [this.stamp, this.count, this.keys] = [resized(this.stamp, cap), resized(this.count, cap), resized(this.keys, cap * WAYS)];
    [this.off, this.len, this.b1] = [resized(this.off, cap * WAYS), resized(this.len, cap * WAYS), resized(this.b1, cap * WAYS)];
  }

  clear(): void {
    this.epoch++;
    this.sink.begin(this.w.reset());
  }

  /** Index of the cached body of ghost d for `key`, or -1. */
  find(d: number, key: number): number {
    if (this.stamp[d] !== this.epoch) return -1;
    for (let i = d * WAYS, end = i + this.count[d]!; i < end; i++) if (this.keys[i] === key) return i;
    return -1;
  }

  /** Remember a body, unless the ghost's ways are full. */
  add(d: number, key: number, off: number, len: number, b1: boolean): void {
    if (this.stamp[d] !== this.epoch) {
      this.stamp[d] = this.epoch;
      this.count[d] = 0;
    }
    const n = this.count[d]!;
    if (n >= WAYS) return;
    const i = d * WAYS + n;
    this.count[d] = n + 1;
    this.keys[i] = key;
    this.off[i] = off;
    this.len[i] = len;
    this.b1[i] = b1 ? 1 : 0;
  }
}
