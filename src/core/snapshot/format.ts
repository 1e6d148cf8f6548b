// Snapshot and SnapshotAck message layouts (constants in wire.ts, "Snapshots").
// The encoder writes, the decoder reads exactly this; the ack body helpers are here.
//
// Snapshot (server → client, unreliable), bit stream LSB first (bits.ts); `code`
// is the prefix code of codes.ts / SNAPSHOT_CODE_WIDTHS:
//
//   u8   kind = MessageKind.Snapshot
//   u16  CRC-16/CCITT-FALSE of every byte after these three
//   u32  tick
//   code despawnCount, then per despawn (ids ascending): code id − previousId − 1 (previousId starts at −1)
//   code recordCount, then per record (ids ascending, unique; the same id may also be despawned above —
//        despawns apply first, so that is a replacement):
//     code id − previousId − 1
//     bit  spawn
//     spawn:  code typeId, code owner networkId (0 = none), code ticks since the ghost spawned, body against the type's defaults
//     update: bit sameBaselines (as the previous update record of this snapshot)
//             unless set: code age0 = tick − baseline0 tick (0 = none: against the type's defaults)
//                         if age0 > 0: code age1 = baseline0 tick − baseline1 tick (0 = no prediction)
//             body against the baselines (both are snapshots the client acked, so it has them)
//   bit  hasInputs; if set: code count, then per input: code networkId, the protocol's input values
//   zero padding to the byte
//
// Body (body.ts): bit changed; if set, per field the recipient receives (sendTo vs
// the ghost's owner, replicated fields only), in declaration order: bit fieldChanged;
// if set: bool → nothing (it flips); enum → index in ceil(log2 n) bits; string →
// BitWriter.writeString; any other field → per int32 slot the zigzag of
// (value − prediction), as a code, minus 1 for single-slot fields (it is never 0).
// Slots: u8/u16/u32/i32/event 1; f32 1, vec2 2, vec3 3 (round(v·q), or the float32
// bits mapped to ordered ints); quat 4 (largest index, three smallest-three codes).
// Prediction: the baseline0 slot, or for float and quaternion-component slots with a
// baseline1: b0 + round((b0 − b1) · age0 / age1), wrapped to int32.
//
// SnapshotAck (client → server, unreliable): u8 kind, u32 newest decoded snapshot
// tick, u32 mask (bit i set: tick − 1 − i was decoded too).

import type { BitReader, BitWriter } from '../bits.ts';
import type { Tick } from '../clock/tick.ts';

export interface SnapshotAckBody {
  tick: Tick;
  mask: number;
}

/** Write a SnapshotAck body (after the kind byte). */
export function encodeAck(w: BitWriter, tick: Tick, mask: number): void {
  w.writeBits(tick >>> 0, 32);
  w.writeBits(mask >>> 0, 32);
}

/** Read a SnapshotAck body into `out` (or a new object). */
export function decodeAck(r: BitReader, out: SnapshotAckBody = { tick: 0, mask: 0 }): SnapshotAckBody {
  out.tick = r.readBits(32);
  out.mask = r.readBits(32);
  return out;
}

/** New ack mask after the newest tick advanced by `shift` ticks (> 0): old bits move up, the old newest becomes bit shift − 1. */
export function shiftAckMask(mask: number, shift: number): number {
  if (shift > 32) return 0;
  const moved = shift === 32 ? 0 : mask << shift;
  return (moved | (1 << (shift - 1))) >>> 0;
}
