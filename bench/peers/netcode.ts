// react-netcode peer for the snapshot benchmark: one SnapshotEncoder, one connection
// state and one encode per client per snapshot; client 0 decodes with SnapshotDecoder
// (checked value for value), every client acks what it received (optionally over a lossy
// link, and after its round-trip time).
import { performance } from 'node:perf_hooks';
import { createRng } from '../../src/core/rng.ts';
import { SnapshotDecoder, SnapshotEncoder, type SnapshotGhost } from '../../src/core/snapshot/index.ts';
import { defineProtocol, field, ghost } from '../../src/index.ts';
import { mismatch, type SnapshotPeer, type SnapshotSample } from './peer.ts';
import { INTS, QUANTIZE, QUAT_BITS, quatFromCodesInto, type GhostValues, type World } from './world.ts';

export const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    thing: ghost({
      position: field.vec3({ quantize: QUANTIZE }),
      rotation: field.quat({ bits: QUAT_BITS }),
      velocity: field.vec3({ quantize: QUANTIZE }),
    }),
  },
});

/** Large enough that every ghost fits every snapshot, so bytes compare with systems that have no budget. */
const BUDGET_BYTES = 1 << 20;

export interface NetcodePeerOptions {
  /** Probability that a snapshot, and independently an ack, is lost (0 = every snapshot arrives and is acked at once). */
  loss: number;
  seed: number;
  /** Round-trip times of the clients, spread evenly over [min, max] ms: each ack reaches the server one RTT after its snapshot was sent. Default: acks arrive at once. */
  rttMs?: readonly [number, number];
  /** The encoder's ack ladder (default: the encoder's default, [1, 2, 5]); false: every ack counts at the next snapshot. */
  ackLadder?: readonly number[] | false;
  /** The encoder's mergeBehind (default: the encoder's default, on). */
  mergeBehind?: boolean;
  /** The row's system name (default 'react-netcode'). */
  system?: string;
  /**
   * Client c (network id c + 1) owns ghost c + 1 and predicts it, as every player with an avatar does. `true`: every
   * encode gets the server's one rule, ghosts with an owner are predicted (src/core/server-ghosts.ts), so owners
   * share encodes; `'per-owner'`: each owner its own rule (the ghosts it owns), so no two owners share a message.
   */
  owners?: boolean | 'per-owner';
  /** The encoder's per-ghost kernel: generated code (default) or the reference (what runs where code generation is not allowed). */
  kernels?: 'compiled' | 'reference';
}

/** 60 Hz ticks, in ms. */
const TICK_MS = 1000 / 60;

/** The ack a client sends after decoding `tick` (SnapshotDecoder's ackTick / ackMask, tracked without decoding). */
class AckState {
  has = false;
  newest = 0;
  mask = 0;

  received(tick: number): void {
    if (this.has) {
      const shift = (tick - this.newest) | 0;
      this.mask = shift > 32 ? 0 : ((shift === 32 ? 0 : this.mask << shift) | (1 << (shift - 1))) >>> 0;
    }
    this.newest = tick;
    this.has = true;
  }
}

export function createNetcodePeer(world: World, clients: number, options: NetcodePeerOptions): SnapshotPeer {
  const system = options.system ?? 'react-netcode';
  const typeId = protocol.ghostByName.get('thing')!.id;
  const codec = protocol.ghostList[typeId]!.codec;
  const owner = (i: number): number => (options.owners !== undefined && options.owners !== false && i < clients ? i + 1 : 0);
  const ghosts: SnapshotGhost[] = world.values.map((values, i) => ({ id: i + 1, typeId, owner: owner(i), values }));
  const encoder = new SnapshotEncoder(protocol, {
    budgetBytes: BUDGET_BYTES, kernels: options.kernels ?? 'compiled', ...(options.ackLadder !== undefined ? { ackLadder: options.ackLadder } : {}),
    ...(options.mergeBehind !== undefined ? { mergeBehind: options.mergeBehind } : {}),
  });
  // Network ids 1..clients; with `owners`, client c owns ghost c + 1, else no client owns a ghost.
  const states = Array.from({ length: clients }, (_, c) => encoder.createConnectionState(c + 1));
  const owned = { predicted: (g: SnapshotGhost) => g.owner !== 0 };
  const encodeOptions = Array.from({ length: clients }, (_, c) =>
    options.owners === true ? owned : options.owners === 'per-owner' ? { predicted: (g: SnapshotGhost) => g.owner === c + 1 } : {});
  const acks = Array.from({ length: clients }, () => new AckState());
  const spread = (c: number): number => (options.rttMs === undefined ? 0 : options.rttMs[0] + ((options.rttMs[1] - options.rttMs[0]) * c) / Math.max(1, clients - 1));
  const rtt = Array.from({ length: clients }, (_, c) => spread(c));
  /** Acks on their way to the server: arrival time (ms), client, ack tick, mask. */
  let inFlight: { at: number; c: number; tick: number; mask: number }[] = [];
  const decoder = new SnapshotDecoder(protocol, 1);
  const decoded = new Map<number, GhostValues>();
  const rng = createRng(options.seed, 0x1055);
  let client0Current = false;
  // Verification between timed encodes allocates nothing of its own (its garbage would be collected in whichever system runs next).
  const scratch = fromInts(world.ints, 0);

  // The bench's integer mirror must be exactly what the field quantizes to, or the peers would not carry the same information.
  for (let i = 0; i < world.count; i++) {
    const q = codec.quantize(world.values[i]!) as GhostValues;
    const expected = fromInts(world.ints, i * INTS);
    if (!same(q, expected)) throw mismatch(system, `quantized ghost ${i + 1} (bench integers vs field.quantize)`, expected, q);
  }

  return {
    system,
    snapshot(tick): SnapshotSample {
      const bytes = new Array<number>(clients).fill(0);
      const encodesBefore = encoder.encodes;
      let encodeMs = 0;
      let otherMs = 0;
      // Acks that reach the server by now are handled first (outside the timed encodes, counted as other work).
      if (inFlight.length > 0) {
        const now = tick * TICK_MS;
        const due = inFlight.filter((a) => a.at <= now);
        inFlight = inFlight.filter((a) => a.at > now);
        const t1 = performance.now();
        for (const a of due) encoder.ack(states[a.c]!, a.tick, a.mask);
        otherMs += performance.now() - t1;
      }
      // Client 0 last, so its payload (a view valid until the next encode) can be decoded outside the timed section.
      for (let k = 1; k <= clients; k++) {
        const c = k % clients;
        const t0 = performance.now();
        const payload = encoder.encode(states[c]!, tick, ghosts, encodeOptions[c]);
        encodeMs += performance.now() - t0;
        bytes[c] = payload.byteLength;
        if (options.loss > 0 && rng.chance(options.loss)) {
          if (c === 0) client0Current = false;
          continue; // lost: not decoded, not acked
        }
        const ack = acks[c]!;
        if (c !== 0) ack.received(tick);
        else {
          // Decode on the one verifying client, then ack from its decoder.
          const out = decoder.decode(payload);
          if (out === null) throw new Error('react-netcode bench: the decoder dropped a fresh snapshot.');
          for (const s of out.spawns) decoded.set(s.id, s.values as GhostValues);
          for (const u of out.updates) decoded.set(u.id, u.values as GhostValues);
          ack.received(tick);
          if (decoder.ackTick !== ack.newest || decoder.ackMask !== ack.mask) {
            throw mismatch(system, 'ack (tick, mask)', [ack.newest, ack.mask], [decoder.ackTick, decoder.ackMask]);
          }
          client0Current = true;
        }
        if (options.loss > 0 && rng.chance(options.loss)) continue; // the ack is lost; the next one carries it in its mask
        if (rtt[c]! > 0) {
          inFlight.push({ at: tick * TICK_MS + rtt[c]!, c, tick: ack.newest, mask: ack.mask });
          continue;
        }
        const t1 = performance.now();
        encoder.ack(states[c]!, ack.newest, ack.mask);
        otherMs += performance.now() - t1;
      }
      return { bytes, encodeMs, otherMs, encodes: encoder.encodes - encodesBefore };
    },
    verify(): void {
      // After a lost snapshot client 0 is behind until the next one arrives; check it whenever it is current.
      if (!client0Current) return;
      if (decoded.size !== world.count || decoder.ghostCount !== world.count) throw mismatch(system, 'ghost count', world.count, decoded.size);
      for (let i = 0; i < world.count; i++) {
        const got = decoded.get(i + 1);
        const expected = fromInts(world.ints, i * INTS, scratch);
        if (got === undefined || !same(got, expected)) throw mismatch(system, `ghost ${i + 1}`, expected, got);
      }
    },
  };
}

/** The values a receiver must hold for the integers at `o`: mm → m, smallest-three codes → quaternion (into `out`, or a new object). */
function fromInts(ints: Int32Array, o: number, out: GhostValues = { position: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 }, velocity: { x: 0, y: 0, z: 0 } }): GhostValues {
  out.position.x = ints[o]! / QUANTIZE;
  out.position.y = ints[o + 1]! / QUANTIZE;
  out.position.z = ints[o + 2]! / QUANTIZE;
  quatFromCodesInto(ints, o + 3, out.rotation);
  out.velocity.x = ints[o + 7]! / QUANTIZE;
  out.velocity.y = ints[o + 8]! / QUANTIZE;
  out.velocity.z = ints[o + 9]! / QUANTIZE;
  return out;
}

function same(a: GhostValues, b: GhostValues): boolean {
  return (
    a.position.x === b.position.x && a.position.y === b.position.y && a.position.z === b.position.z &&
    a.rotation.x === b.rotation.x && a.rotation.y === b.rotation.y && a.rotation.z === b.rotation.z && a.rotation.w === b.rotation.w &&
    a.velocity.x === b.velocity.x && a.velocity.y === b.velocity.y && a.velocity.z === b.velocity.z
  );
}
