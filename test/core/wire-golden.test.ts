// Golden bytes of the wire format: one fixed vector (hex) per message kind and
// situation, made by the real encoders from fixed inputs, and the protocol hash. The
// digest of all vectors is pinned per WIRE_VERSION: a change of any byte fails until
// WIRE_VERSION (wire.ts) is bumped and a row for it added. Existing rows never change,
// so a version names one set of bytes. Adding a message kind is one entry in VECTORS.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BitWriter } from '../../src/core/bits.ts';
import { systemsFingerprint } from '../../src/core/build-check.ts';
import { field } from '../../src/core/field.ts';
import { encodeInputPacket } from '../../src/core/input/packet.ts';
import { MessageEncoder } from '../../src/core/messages.ts';
import { Outbox } from '../../src/core/outbox.ts';
import { defineProtocol, ghost, rpc } from '../../src/core/protocol.ts';
import { RpcRegistry } from '../../src/core/rpc-dispatch.ts';
import { encodeAck, SnapshotDecoder, SnapshotEncoder, type SnapshotGhost } from '../../src/core/snapshot/index.ts';
import type { KernelMode } from '../../src/core/snapshot/kernels.ts';
import { MessageKind, WIRE_VERSION } from '../../src/core/wire.ts';
import { encodeSeat } from '../../src/rooms/seat.ts';
import { frameSignal } from '../../src/webrtc/signal.ts';

/** WIRE_VERSION → digest of every vector below. Add a row when bytes change; never edit a row. */
const DIGESTS: Readonly<Record<number, string>> = {
  3: '8bf0d49bfa7253ff',
  4: '12cd7ba83746e486', // the Batch message; Pong carries late and missing input counts
  5: '3b01d3ecbf595df2', // Hello and Welcome carry the shared-systems fingerprint and the app's build id
  6: 'c96abfebf896cad6', // the room server's Seat (15) and the transports' Signal (254)
  7: '0759cd6c51c4856a', // the client's Pause (16)
};

const protocol = defineProtocol({
  ghosts: {
    thing: ghost({
      pos: field.vec3({ quantize: 100 }),
      rot: field.quat({ bits: 10 }),
      speed: field.f32(),
      hp: field.u8(),
      mode: field.enum(['idle', 'run', 'jump']),
      name: field.string(8),
      flag: field.bool(),
      count: field.i32(),
      shots: field.event(),
      ammo: field.u16({ sendTo: 'owner' }),
      team: field.string(6, { sendTo: 'nonOwner' }),
    }),
  },
  input: { move: field.vec2({ quantize: 100 }), jump: field.bool(), fire: field.event() },
  join: { name: field.string(12) },
  rpcs: { chat: rpc.toServer({ text: field.string(40) }), notice: rpc.toClient({ code: field.u8() }) },
});

/** Shared systems 'move' then 'throw' (a server-only and a client-only one are not part of the fingerprint). */
const systems = systemsFingerprint([
  { name: 'move', where: 'shared' }, { name: 'damage', where: 'server' }, { name: 'throw', where: 'shared' }, { name: 'sound', where: 'client' },
]);

const messages = new MessageEncoder();
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

function thing(id: number, owner: number, t: number): SnapshotGhost {
  const a = 0.1 * t;
  return {
    id, typeId: 0, owner,
    values: {
      pos: { x: 1.25 * id + 0.5 * t, y: 0.75, z: -2 * id - 0.25 * t }, rot: { x: 0, y: Math.sin(a), z: 0, w: Math.cos(a) }, speed: 3.5 + t,
      hp: 100 - id - t, mode: t < 6 ? 'idle' : 'run', name: `p${id}`, flag: t % 2 === 0, count: -7 * id, shots: t, ammo: 30 - t, team: 'red',
    },
  };
}

/**
 * Snapshot messages of one scene, by name: clients 1 (owner of ghost 2) and 2; spawns at tick 3, a delta against one
 * acked baseline at 6, a predicted delta at 9, a despawn at 12; and a budget-cut message (64 bytes, 12 ghosts).
 */
function snapshots(kernels: KernelMode): Record<string, string> {
  const enc = new SnapshotEncoder(protocol, { kernels });
  const owner = enc.createConnectionState(1);
  const other = enc.createConnectionState(2);
  const inputs = [{ networkId: 1, values: { move: { x: 0.5, y: -1 }, jump: true, fire: 2 } }];
  const out: Record<string, string> = {};
  const at = (tick: number, ids: number[]): SnapshotGhost[] => ids.map((id) => thing(id, id === 2 ? 1 : 0, tick));
  out['Snapshot spawn, owner view'] = hex(enc.encode(owner, 3, at(3, [1, 2, 3]), { inputs }));
  out['Snapshot spawn, other view'] = hex(enc.encode(other, 3, at(3, [1, 2, 3])));
  for (const s of [owner, other]) enc.ack(s, 3, 0);
  out['Snapshot delta'] = hex(enc.encode(owner, 6, at(6, [1, 2, 3])));
  enc.ack(owner, 6, 0b100);
  out['Snapshot delta, predicted'] = hex(enc.encode(owner, 9, at(9, [1, 2, 3])));
  enc.ack(owner, 9, 0b100100);
  enc.forget(3);
  out['Snapshot despawn'] = hex(enc.encode(owner, 12, at(12, [1, 2])));
  const small = new SnapshotEncoder(protocol, { budgetBytes: 64, kernels });
  out['Snapshot budget-cut'] = hex(small.encode(small.createConnectionState(5), 3, at(3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])));
  return out;
}

interface Vector {
  readonly name: string;
  readonly kind: MessageKind;
  readonly hex: string;
  /** The bytes, made now; a snapshot vector names its message in `snapshots`. */
  readonly make: () => string;
}

const snap = snapshots('compiled');
const snapshot = (name: string, hexBytes: string): Vector => ({ name, kind: MessageKind.Snapshot, hex: hexBytes, make: () => snap[name]! });

const VECTORS: readonly Vector[] = [
  { name: 'Hello', kind: MessageKind.Hello, hex: '019d5f164f07efbeadde07b66327340476312e32', make: () => hex(messages.hello({ protocolHash: protocol.hash, wireVersion: WIRE_VERSION, resumeToken: 0xdeadbeef, resumeId: 7, systemsHash: systems.hash, buildId: 'v1.2' })) },
  { name: 'Welcome', kind: MessageKind.Welcome, hex: '0207efbeadded2040000c70000006cc74e680000', make: () => hex(messages.welcome({ networkId: 7, resumeToken: 0xdeadbeef, serverTick: 1234, resumed: true, worldSeed: 99, systemsHash: systems.hash, buildId: '' })) },
  { name: 'Refuse', kind: MessageKind.Refuse, hex: '031170726f746f636f6c206d69736d61746368', make: () => hex(messages.reason(MessageKind.Refuse, 'protocol mismatch')) },
  { name: 'Join', kind: MessageKind.Join, hex: '0403416461', make: () => { const w = messages.custom(MessageKind.Join); protocol.join.write(w, { name: 'Ada' }); return hex(w.toBytes()); } },
  { name: 'Joined', kind: MessageKind.Joined, hex: '05', make: () => hex(messages.joined()) },
  { name: 'JoinRefused', kind: MessageKind.JoinRefused, hex: '060466756c6c', make: () => hex(messages.reason(MessageKind.JoinRefused, 'full')) },
  { name: 'Rpc', kind: MessageKind.Rpc, hex: '0700026767', make: () => hex(new RpcRegistry(protocol, 'toClient').encode(messages, 'chat', 'toServer', { text: 'gg' })) },
  { name: 'Close', kind: MessageKind.Close, hex: '0803627965', make: () => hex(messages.reason(MessageKind.Close, 'bye')) },
  snapshot('Snapshot spawn, owner view', '0916790300000032e217d90be0419677917fb5ddc7c04f0505e062dc1d1c902b2353f82dfa027820e75de45f6df731f04341013819af70f040e257f80be08305f22ef2afb6fb18f899a000dc8c3739382057463682ec38a000'),
  snapshot('Snapshot spawn, other view', '09b1640300000032e217d90be0419677917fb5ddc7c04f0505e062dc1d1c902b2353f82dfa027820e75de45f6df731f04341013819af707040ae8c4cfc0a7f017cb040de45fed5761f033f1314809bf1260707e4cac800'),
  snapshot('Snapshot delta', '090ed4060000003248bf4b3c00f2def1afb6fb07b0a703fc5de20190f78e7fb5dd3f803d1d6cfe2ef100c87bc7bfdaee1fc09e0e00'),
  snapshot('Snapshot delta, predicted', '090b130900000032c86cfa3c80d7ee7fdaee07c0a6036cfa3c80d7ee7fdaee07c0a683cda6cf0378edfea7ed7e006c3a00'),
  snapshot('Snapshot despawn', '0976880c00000091156496b7e92706d87480e56dfa8901361d6c'),
  snapshot('Snapshot budget-cut', '097cba030000002ae217d90be0419677917fb5ddc7c04f0505e062dc1d1c902b2353f82dfa027820e75de45f6df731f04341013819af707040ae8c0c'),
  { name: 'SnapshotAck', kind: MessageKind.SnapshotAck, hex: '0ad20400000b000000', make: () => { const w = new BitWriter(16); w.writeBits(MessageKind.SnapshotAck, 8); encodeAck(w, 1234, 0b1011); return hex(w.toBytes()); } },
  {
    name: 'Input', kind: MessageKind.Input, hex: '0b280000000364000622831c20811200000000401200008001000000',
    make: () => {
      const inputs = new Map([[40, { move: { x: 0.5, y: 0 }, jump: false, fire: 3 }], [39, { move: { x: 0.5, y: 0 }, jump: false, fire: 3 }], [38, { move: { x: 0.25, y: 1 }, jump: true, fire: 2 }]]);
      const w = new BitWriter(64);
      w.writeBits(MessageKind.Input, 8);
      encodeInputPacket(w, protocol.input, { get: (t) => inputs.get(t) }, 40, 4, { interpolationTick: 37, interpolationFraction: 0.5, ackTick: 36, ackMask: 0b11 });
      return hex(w.toBytes());
    },
  },
  { name: 'Ping', kind: MessageKind.Ping, hex: '0c40e20100', make: () => hex(messages.ping(123456)) },
  {
    name: 'Pong', kind: MessageKind.Pong, hex: '0d40e20100d20400000040e8ff03007011',
    make: () => hex(messages.pong({ echoMs: 123456, serverTick: 1234, serverFraction: 0.25, inputMarginTicks: -1.5, inputsLate: 3, inputsMissing: 70_000 })),
  },
  {
    // A client frame's Input and Ping in one write (outbox.ts): kind 14, then (varuint length, message) per part.
    name: 'Batch', kind: MessageKind.Batch, hex: '0e090ad20400000b000000050c40e20100',
    make: () => {
      const box = new Outbox();
      box.push(Buffer.from('0ad20400000b000000', 'hex'), 'unreliable');
      box.push(messages.ping(123456), 'unreliable');
      let out = '';
      box.flush((bytes) => void (out = hex(bytes)));
      return out;
    },
  },
  { name: 'Pause', kind: MessageKind.Pause, hex: '1001', make: () => hex(messages.pause(true)) },
  { name: 'Seat', kind: MessageKind.Seat, hex: '0f03616263', make: () => hex(encodeSeat('abc')) },
  { name: 'Signal', kind: MessageKind.Signal, hex: 'fe7b2274223a22627965222c22726561736f6e223a2274696d656f7574227d', make: () => hex(frameSignal({ t: 'bye', reason: 'timeout' })) },
  { name: 'protocol hash', kind: MessageKind.Hello, hex: '4f165f9d', make: () => protocol.hash.toString(16).padStart(8, '0') },
  { name: 'systems fingerprint', kind: MessageKind.Hello, hex: 'shared=["move","throw"] 342763b6', make: () => `${systems.describe} ${systems.hash.toString(16).padStart(8, '0')}` },
];

const digest = (vectors: readonly { name: string; hex: string }[]): string =>
  createHash('sha256').update(vectors.map((v) => `${v.name}=${v.hex}\n`).join('')).digest('hex').slice(0, 16);

describe('wire format golden bytes', () => {
  it('has a vector for every message kind', () => {
    const covered = new Set(VECTORS.map((v) => v.kind));
    expect(Object.values(MessageKind).filter((k) => !covered.has(k))).toEqual([]);
  });

  for (const v of VECTORS) it(`${v.name}: the encoders write the golden bytes`, () => expect(v.make()).toBe(v.hex));

  it('the snapshot vectors hold what their names say', () => {
    const owner = new SnapshotDecoder(protocol, 1);
    const count = (name: string, d = owner): number[] => {
      const s = d.decode(Buffer.from(snap[name]!, 'hex'))!;
      return [s.spawns.length, s.updates.length, s.despawns.length, s.inputs.length];
    };
    expect(count('Snapshot spawn, owner view')).toEqual([3, 0, 0, 1]);
    expect(count('Snapshot spawn, other view', new SnapshotDecoder(protocol, 2))).toEqual([3, 0, 0, 0]);
    expect(count('Snapshot delta')).toEqual([0, 3, 0, 0]);
    expect(count('Snapshot delta, predicted')).toEqual([0, 3, 0, 0]);
    expect(count('Snapshot despawn')).toEqual([0, 2, 1, 0]);
    const cut = count('Snapshot budget-cut', new SnapshotDecoder(protocol, 5));
    expect(cut[0]).toBeGreaterThan(0);
    expect(cut[0]).toBeLessThan(12);
  });

  it('the reference snapshot encoder (no code generation) writes the same snapshot bytes', () => {
    expect(snapshots('reference')).toEqual(snap);
  });

  it(`pins every vector to WIRE_VERSION ${WIRE_VERSION}: changed bytes need a new version and a new row`, () => {
    const now = digest(VECTORS);
    const what = DIGESTS[WIRE_VERSION] === undefined
      ? `WIRE_VERSION ${WIRE_VERSION} has no row: add ${WIRE_VERSION}: '${now}'`
      : `the golden bytes changed (digest ${now}): bump WIRE_VERSION in src/core/wire.ts and add the row ${WIRE_VERSION + 1}: '${now}' (never edit an existing row)`;
    expect(DIGESTS[WIRE_VERSION], what).toBe(now);
    expect(Object.keys(DIGESTS).map(Number).every((v) => v <= WIRE_VERSION)).toBe(true);
  });
});
