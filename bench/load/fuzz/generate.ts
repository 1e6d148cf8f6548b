// The structure-aware packet generator: every message kind a client may send, built
// from the protocol's own schemas (input, join, RPC payloads) — valid, with field-level
// extremes (values.ts), truncated or extended, as a Batch (nested, lying about its
// lengths, mixed kinds), with kinds wrong for the connection's state or direction, and
// random mutations of captured real packets. Seeded: the same seed, the same packets.
import { BitWriter } from '../../../src/core/bits.ts';
import { systemsFingerprint } from '../../../src/core/build-check.ts';
import type { Protocol } from '../../../src/core/protocol.ts';
import { Rng } from '../../../src/core/rng.ts';
import type { Schema, SchemaCodec } from '../../../src/core/schema.ts';
import type { Channel } from '../../../src/core/transport.ts';
import { field, type Field } from '../../../src/core/field.ts';
import { MAX_BUILD_ID_LENGTH, MAX_REASON_LENGTH, MessageKind, RELIABLE_ONLY_KINDS, WIRE_VERSION } from '../../../src/core/wire.ts';
import { fuzzSystems } from './protocol.ts';
import { pick, u32, writeField, writeVarUintExtreme, type Mode } from './values.ts';

const SYSTEMS_HASH = systemsFingerprint(fuzzSystems).hash;

/** What a fuzzing connection knows of its state on the server (from what it received). */
export interface PeerView {
  state: 'pending' | 'connected' | 'in-game';
  /** The newest server tick it heard of (Welcome, Pong, Snapshot). */
  serverTick: number;
  /** Snapshot ticks received lately (valid acks name them). */
  snapshotTicks: readonly number[];
}

export type Variant = 'valid' | 'extreme' | 'truncated' | 'extended' | 'mutated';

export interface Packet {
  readonly bytes: Uint8Array;
  readonly channel: Channel;
  readonly variant: Variant;
}

/** Client kinds and how often each is drawn (server → client kinds and unknown ones too: a client must not send them). */
const KINDS: readonly (readonly [number, number])[] = [
  [MessageKind.Input, 24],
  [MessageKind.Rpc, 16],
  [MessageKind.Batch, 12],
  [MessageKind.Join, 9],
  [MessageKind.Hello, 8],
  [MessageKind.Ping, 8],
  [MessageKind.SnapshotAck, 8],
  [MessageKind.Close, 3],
  [-1, 6], // a server → client kind
  [-2, 6], // an unknown kind
];
const TOTAL_WEIGHT = KINDS.reduce((n, [, w]) => n + w, 0);
const SERVER_KINDS = [MessageKind.Welcome, MessageKind.Refuse, MessageKind.Joined, MessageKind.JoinRefused, MessageKind.Snapshot, MessageKind.Pong];

export class FuzzGenerator {
  private readonly rng: Rng;
  private readonly w = new BitWriter(2048);
  private readonly captured: Uint8Array[] = [];
  private capturedNext = 0;

  constructor(
    private readonly protocol: Protocol,
    seed: number,
  ) {
    this.rng = new Rng(seed);
  }

  /** Keep a real packet (what a well-behaved client sent) for mutation; the newest 256 are kept. */
  capture(bytes: Uint8Array): void {
    if (this.captured.length < 256) this.captured.push(bytes.slice());
    else this.captured[this.capturedNext++ % 256] = bytes.slice();
  }

  get capturedCount(): number {
    return this.captured.length;
  }

  /** The next packet for a connection in state `peer`. */
  next(peer: PeerView): Packet {
    const rng = this.rng;
    const r = rng.next();
    if (r < 0.1 && this.captured.length > 0) return this.finish(this.mutate(pick(rng, this.captured)), 'mutated');
    const variant: Variant = r < 0.4 ? 'valid' : r < 0.75 ? 'extreme' : r < 0.88 ? 'truncated' : 'extended';
    const mode: Mode = variant === 'extreme' ? 'extreme' : 'valid';
    let bytes = this.message(this.drawKind(), mode, peer, 0);
    if (variant === 'truncated') bytes = bytes.subarray(0, rng.chance(0.25) ? 0 : rng.int(bytes.byteLength)); // empty ones in every short run
    else if (variant === 'extended') bytes = this.extend(bytes);
    return this.finish(bytes, variant);
  }

  /** A valid Hello, Join, Ping … for driving a connection to a state (not counted as fuzz). */
  valid(kind: number, peer: PeerView): Uint8Array {
    return this.message(kind, 'valid', peer, 0).slice();
  }

  private finish(bytes: Uint8Array, variant: Variant): Packet {
    const kind = bytes[0] ?? 0;
    const right: Channel = RELIABLE_ONLY_KINDS.has(kind) || kind === MessageKind.Batch ? 'reliable' : 'unreliable';
    const channel: Channel = this.rng.chance(0.08) ? (right === 'reliable' ? 'unreliable' : 'reliable') : right;
    return { bytes: bytes.slice(), channel, variant };
  }

  private drawKind(): number {
    let n = this.rng.next() * TOTAL_WEIGHT;
    for (const [kind, weight] of KINDS) if ((n -= weight) < 0) return kind;
    return MessageKind.Input;
  }

  private message(kind: number, mode: Mode, peer: PeerView, depth: number): Uint8Array {
    const rng = this.rng;
    if (kind === MessageKind.Batch) return this.batch(mode, peer, depth);
    const w = this.w;
    w.reset();
    if (kind === -1) kind = pick(rng, SERVER_KINDS);
    if (kind === -2) kind = pick(rng, [0, 16, 17, 127, 128, 200, 255]);
    w.writeBits(kind, 8);
    const x = mode === 'extreme';
    switch (kind) {
      case MessageKind.Hello:
        w.writeBits(x && rng.chance(0.5) ? rng.nextUint32() : this.protocol.hash, 32);
        w.writeBits(x && rng.chance(0.5) ? rng.int(256) : WIRE_VERSION, 8);
        w.writeBits(x ? rng.nextUint32() : 0, 32);
        if (x) writeVarUintExtreme(w, rng);
        else w.writeVarUint(rng.chance(0.1) ? 1 + rng.int(8) : 0);
        w.writeBits(x && rng.chance(0.5) ? rng.nextUint32() : SYSTEMS_HASH, 32);
        w.writeString(x && rng.chance(0.3) ? 'x'.repeat(rng.int(MAX_BUILD_ID_LENGTH + 1)) : '', MAX_BUILD_ID_LENGTH);
        break;
      case MessageKind.Join:
        this.values(this.protocol.join, mode);
        break;
      case MessageKind.Rpc: {
        const list = this.protocol.rpcList;
        const toServer = list.filter((e) => e.def.direction === 'toServer');
        const entry = x && rng.chance(0.3) ? pick(rng, list) : pick(rng, toServer);
        if (x && rng.chance(0.2)) writeVarUintExtreme(w, rng);
        else w.writeVarUint(x && rng.chance(0.15) ? list.length + rng.int(4) : entry.id);
        this.values(entry.codec, mode);
        break;
      }
      case MessageKind.Close:
        if (x) writeField(w, rng, CLOSE_REASON, 'extreme');
        else w.writeString(pick(rng, ['bye', 'client left', '']), 256);
        break;
      case MessageKind.SnapshotAck:
        this.ack(peer, x);
        break;
      case MessageKind.Ping:
        w.writeBits(rng.nextUint32(), 32);
        break;
      case MessageKind.Input:
        this.input(peer, mode);
        break;
      default: {
        // A kind a client never sends: a plausible body of random bytes.
        const n = rng.int(24);
        for (let i = 0; i < n; i++) w.writeBits(rng.int(256), 8);
      }
    }
    return w.toBytes();
  }

  private values(codec: SchemaCodec<Schema>, mode: Mode): void {
    // Extreme: one or two fields extreme, the rest valid, so decoding reaches each field.
    const hot = mode === 'extreme' ? this.rng.int(Math.max(1, codec.keys.length)) : -1;
    codec.keys.forEach((key, i) => {
      const f = codec.schema[key]!;
      if (!f.options.replicated) return;
      writeField(this.w, this.rng, f, i === hot || (mode === 'extreme' && this.rng.chance(0.15)) ? 'extreme' : 'valid');
    });
  }

  private ack(peer: PeerView, extreme: boolean): void {
    const rng = this.rng;
    const recent = peer.snapshotTicks.length > 0 ? pick(rng, peer.snapshotTicks) : peer.serverTick;
    this.w.writeBits(u32(rng, recent, extreme), 32);
    this.w.writeBits(extreme ? rng.nextUint32() : rng.int(16), 32);
  }

  private input(peer: PeerView, mode: Mode): void {
    const rng = this.rng;
    const w = this.w;
    const x = mode === 'extreme';
    const now = peer.serverTick;
    const newest = x && rng.chance(0.4) ? pick(rng, [now + 60, now + 118, now + 0x8000_0000, now - 1 - rng.int(200), 0, 0xffff_ffff, rng.nextUint32()]) : now + 1 + rng.int(8);
    w.writeBits(newest >>> 0, 32);
    const count = x && rng.chance(0.3) ? pick(rng, [0, 32, 33, 255]) : 1 + rng.int(4);
    w.writeBits(count, 8);
    const codec = this.protocol.input;
    const wire = codec.keys.filter((k) => codec.schema[k]!.options.replicated);
    for (let i = 0; i < Math.min(count, 40); i++) {
      if (i === 0) {
        this.values(codec, mode);
        continue;
      }
      const identical = rng.chance(0.5);
      w.writeBool(identical);
      if (identical) continue;
      for (const key of wire) {
        const same = rng.chance(0.6);
        w.writeBool(same);
        if (!same) writeField(w, rng, codec.schema[key]!, x && rng.chance(0.3) ? 'extreme' : 'valid');
      }
    }
    w.writeBits(x ? rng.nextUint32() : (now - 6) >>> 0, 32);
    w.writeBits(rng.int(0x10000), 16);
    this.ack(peer, x);
  }

  /** A Batch of 2..6 messages, or a malformed one: 0 or 1 entry, a nested Batch, a zero, overlong or lying length. */
  private batch(mode: Mode, peer: PeerView, depth: number): Uint8Array {
    const rng = this.rng;
    const parts: Uint8Array[] = [];
    const n = mode === 'extreme' && rng.chance(0.3) ? rng.int(2) : 2 + rng.int(5);
    for (let i = 0; i < n; i++) {
      const kind = depth === 0 && mode === 'extreme' && rng.chance(0.15) ? MessageKind.Batch : this.drawKind();
      parts.push(kind === MessageKind.Batch && depth > 0 ? new Uint8Array([MessageKind.Ping, 0, 0, 0, 0]) : this.message(kind, rng.chance(0.7) ? 'valid' : mode, peer, depth + 1).slice());
    }
    const out: number[] = [MessageKind.Batch];
    for (const p of parts) {
      let length = p.byteLength;
      if (mode === 'extreme' && rng.chance(0.1)) length = pick(rng, [0, length + 1, length + 1000, 0x7fff_ffff]);
      if (mode === 'extreme' && rng.chance(0.05)) out.push(0x80, 0x80, 0x80, 0x80, 0x80, 0x01); // a 6-byte length
      else for (let v = length; ; v = Math.floor(v / 128)) {
        if (v < 128) {
          out.push(v);
          break;
        }
        out.push((v & 0x7f) | 0x80);
      }
      for (const b of p) out.push(b);
    }
    return new Uint8Array(out);
  }

  /** Random bytes after the message, or a set padding bit. */
  private extend(bytes: Uint8Array): Uint8Array {
    const rng = this.rng;
    if (rng.chance(0.3) && bytes.byteLength > 1) {
      const out = bytes.slice();
      out[out.length - 1]! |= 0x80;
      return out;
    }
    const extra = 1 + rng.int(8);
    const out = new Uint8Array(bytes.byteLength + extra);
    out.set(bytes);
    for (let i = bytes.byteLength; i < out.length; i++) out[i] = rng.int(256);
    return out;
  }

  /** Bit flips, byte changes, inserted or deleted bytes, a splice of two packets. */
  private mutate(source: Uint8Array): Uint8Array {
    const rng = this.rng;
    let b = Array.from(source);
    const edits = 1 + rng.int(4);
    for (let e = 0; e < edits; e++) {
      const r = rng.int(5);
      const at = rng.int(Math.max(1, b.length));
      if (r === 0 && b.length > 0) b[at] = b[at]! ^ (1 << rng.int(8));
      else if (r === 1 && b.length > 0) b[at] = pick(rng, [0, 0xff, 0x7f, 0x80, rng.int(256)]);
      else if (r === 2) b.splice(at, 0, rng.int(256));
      else if (r === 3 && b.length > 1) b.splice(at, 1 + rng.int(Math.min(4, b.length - 1)));
      else if (r === 4 && this.captured.length > 0) {
        const other = pick(rng, this.captured);
        b = b.slice(0, at).concat(Array.from(other.subarray(rng.int(other.byteLength))));
      }
    }
    return new Uint8Array(b.length > 0 ? b : [rng.int(256)]);
  }
}

/** A Close reason: a string of at most MAX_REASON_LENGTH (256) UTF-16 units. */
const CLOSE_REASON = field.string(MAX_REASON_LENGTH) as Field<unknown>;
