// Framing of the connection-level messages (handshake, join, RPC, close). The
// layouts are documented beside each kind in wire.ts. One shared BitWriter is
// reused per peer; every encode returns a fresh exact-size copy for the transport.

import { BitWriter, type BitReader } from './bits.ts';
import { WireError } from './errors.ts';
import { MAX_BUILD_ID_LENGTH, MAX_REASON_LENGTH, MessageKind, WIRE_VERSION } from './wire.ts';

export interface Hello {
  protocolHash: number;
  wireVersion: number;
  /** 0 when not resuming. */
  resumeToken: number;
  /** networkId to resume, 0 when not resuming. */
  resumeId: number;
  /** Fingerprint of the client's shared systems (systemsFingerprint). */
  systemsHash: number;
  /** The app's build id ('' when none). */
  buildId: string;
}

export interface Welcome {
  networkId: number;
  resumeToken: number;
  serverTick: number;
  /** True when this Welcome resumed an earlier connection. */
  resumed: boolean;
  /** Seed of the world's `ctx.rng`, so client prediction draws the server's numbers. */
  worldSeed: number;
  /** Fingerprint of the server's shared systems, for the client's own check. */
  systemsHash: number;
  /** The server's build id ('' when none). */
  buildId: string;
}

export interface Pong {
  /** The Ping's client time (ms, uint32), echoed. */
  echoMs: number;
  /** The tick the server was about to simulate when it answered. */
  serverTick: number;
  /** Server accumulator fraction towards the next tick (0..1), for sub-tick sync. */
  serverFraction: number;
  /** For this client's newest input: ticks it arrived before the server simulated it (negative = late), averaged. */
  inputMarginTicks: number;
  /** Running count (mod 2^16) of this client's inputs that arrived after their tick was simulated. */
  inputsLate: number;
  /** Running count (mod 2^16) of ticks the server simulated without this client's input. */
  inputsMissing: number;
}

export function clampReason(reason: string): string {
  return reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH - 1)}…` : reason;
}

export class MessageEncoder {
  private readonly w = new BitWriter(256);

  private begin(kind: MessageKind): BitWriter {
    this.w.reset();
    this.w.writeBits(kind, 8);
    return this.w;
  }

  hello(m: Hello): Uint8Array {
    const w = this.begin(MessageKind.Hello);
    w.writeBits(m.protocolHash >>> 0, 32);
    w.writeBits(m.wireVersion, 8);
    w.writeBits(m.resumeToken >>> 0, 32);
    w.writeVarUint(m.resumeId);
    w.writeBits(m.systemsHash >>> 0, 32);
    w.writeString(m.buildId, MAX_BUILD_ID_LENGTH);
    return w.toBytes();
  }

  welcome(m: Welcome): Uint8Array {
    const w = this.begin(MessageKind.Welcome);
    w.writeVarUint(m.networkId);
    w.writeBits(m.resumeToken >>> 0, 32);
    w.writeBits(m.serverTick >>> 0, 32);
    w.writeBool(m.resumed);
    w.writeBits(m.worldSeed >>> 0, 32);
    w.writeBits(m.systemsHash >>> 0, 32);
    w.writeString(m.buildId, MAX_BUILD_ID_LENGTH);
    return w.toBytes();
  }

  /** Refuse, JoinRefused and Close carry only a reason. */
  reason(kind: typeof MessageKind.Refuse | typeof MessageKind.JoinRefused | typeof MessageKind.Close, reason: string): Uint8Array {
    const w = this.begin(kind);
    w.writeString(clampReason(reason), MAX_REASON_LENGTH);
    return w.toBytes();
  }

  ping(clientMs: number): Uint8Array {
    return this.pingInto(clientMs).toBytes();
  }

  /** The Ping in the encoder's own writer, valid until the next message: for a sender that copies it at once (no copy of its own). */
  pingInto(clientMs: number): BitWriter {
    const w = this.begin(MessageKind.Ping);
    w.writeBits(Math.round(clientMs) >>> 0, 32);
    return w;
  }

  pong(m: Pong): Uint8Array {
    return this.pongInto(m).toBytes();
  }

  /** The Pong in the encoder's own writer, valid until the next message: for a sender that copies it at once (no copy of its own). */
  pongInto(m: Pong): BitWriter {
    const w = this.begin(MessageKind.Pong);
    w.writeBits(m.echoMs >>> 0, 32);
    w.writeBits(m.serverTick >>> 0, 32);
    w.writeBits(Math.min(65535, Math.max(0, Math.round(m.serverFraction * 65535))), 16);
    w.writeInt(Math.max(-32768, Math.min(32767, Math.round(m.inputMarginTicks * 16))), 16);
    w.writeBits(m.inputsLate & 0xffff, 16);
    w.writeBits(m.inputsMissing & 0xffff, 16);
    return w;
  }

  pause(paused: boolean): Uint8Array {
    const w = this.begin(MessageKind.Pause);
    w.writeBool(paused);
    return w.toBytes();
  }

  joined(): Uint8Array {
    return this.begin(MessageKind.Joined).toBytes();
  }

  /** Start a message whose body the caller writes (Join payload, RPC). */
  custom(kind: MessageKind): BitWriter {
    return this.begin(kind);
  }
}

/** Read the kind byte of a message, leaving the reader positioned on the body. */
export function readKind(r: BitReader, data: Uint8Array): number {
  r.reset(data);
  if (data.byteLength === 0) throw new WireError('wire/end-of-data', 'react-netcode: empty message.');
  return r.readBits(8);
}

/**
 * A Hello. Of a client of another wire version only the hash and version are read (the rest is
 * that version's layout): the other fields are then 0 and ''.
 */
export function readHello(r: BitReader): Hello {
  const protocolHash = r.readBits(32) >>> 0;
  const wireVersion = r.readBits(8);
  if (wireVersion !== WIRE_VERSION) return { protocolHash, wireVersion, resumeToken: 0, resumeId: 0, systemsHash: 0, buildId: '' };
  const resumeToken = r.readBits(32) >>> 0;
  const resumeId = r.readVarUint();
  const systemsHash = r.readBits(32) >>> 0;
  const buildId = r.readString(MAX_BUILD_ID_LENGTH);
  r.expectEnd();
  return { protocolHash, wireVersion, resumeToken, resumeId, systemsHash, buildId };
}

export function readWelcome(r: BitReader): Welcome {
  const networkId = r.readVarUint();
  const resumeToken = r.readBits(32) >>> 0;
  const serverTick = r.readBits(32) >>> 0;
  const resumed = r.readBool();
  const worldSeed = r.readBits(32) >>> 0;
  const systemsHash = r.readBits(32) >>> 0;
  const buildId = r.readString(MAX_BUILD_ID_LENGTH);
  r.expectEnd();
  if (networkId < 1 || networkId > 0xffff) throw new WireError('wire/bad-value', `react-netcode: networkId ${networkId} out of range.`);
  return { networkId, resumeToken, serverTick, resumed, worldSeed, systemsHash, buildId };
}

export function readReason(r: BitReader): string {
  const reason = r.readString(MAX_REASON_LENGTH);
  r.expectEnd();
  return reason;
}

export function readPing(r: BitReader): number {
  const ms = r.readBits(32) >>> 0;
  r.expectEnd();
  return ms;
}

export function readPong(r: BitReader, out: Pong): Pong {
  out.echoMs = r.readBits(32) >>> 0;
  out.serverTick = r.readBits(32) >>> 0;
  out.serverFraction = r.readBits(16) / 65535;
  out.inputMarginTicks = r.readInt(16) / 16;
  out.inputsLate = r.readBits(16);
  out.inputsMissing = r.readBits(16);
  r.expectEnd();
  return out;
}
