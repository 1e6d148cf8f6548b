// The Snapshot message writer (layout in format.ts), the mirror of decoder.ts's parse: header, despawns,
// the chosen records (header, then the body copied from the body arena), the inputs section and the CRC.

import { BitWriter } from '../bits.ts';
import type { Protocol } from '../protocol.ts';
import type { Tick } from '../clock/tick.ts';
import { MessageKind } from '../wire.ts';
import { BitSink, CODE_LENGTH, CODE_TABLE_SIZE, CODE_VALUE, codeBits, copyBits, crc16, putCode } from './codes.ts';
import type { SnapshotInput } from './encoder.ts';
import type { Despawns, Records } from './scratch.ts';
import type { GhostStore } from './store.ts';

/** Bits before the despawn count: kind (8), CRC (16), tick (32). */
export const MSG_HEADER_BITS = 56;

/** Ticks since ghost d spawned, as its spawn record at `tick` says. */
export function spawnAge(store: GhostStore, d: number, tick: Tick): number {
  return Math.max(0, (tick - store.spawnTick[d]!) | 0);
}

/** Bits of the spawn fields of ghost d's spawn record (after its spawn bit). */
export function spawnFieldBits(store: GhostStore, d: number, tick: Tick): number {
  return codeBits(store.typeId[d]!) + codeBits(store.owner[d]!) + codeBits(spawnAge(store, d, tick));
}

export class MessageWriter {
  private readonly w = new BitWriter();
  private readonly sink = new BitSink();
  private readonly inW = new BitWriter(256);
  private readonly inSink = new BitSink();
  private inCount = 0;
  private inBits = 0;
  /** The baselines named by the previous update record of the message (the decoder's p0, p1): a run of equal ones is named once. */
  private p0 = -1;
  private p1 = -1;

  constructor(
    private readonly protocol: Protocol,
    private readonly budgetBytes: number,
  ) {}

  get bitLength(): number {
    return this.w.bitLength;
  }

  /** Encode the inputs section's entries (as many as fit a quarter of the budget); returns the section's bits. */
  inputs(inputs: readonly SnapshotInput[] | undefined): number {
    this.inW.reset();
    this.inCount = 0;
    if (inputs === undefined || inputs.length === 0) return 1;
    const sink = this.inSink.begin(this.inW);
    const cap = this.budgetBytes * 2; // a quarter of the budget, in bits
    for (const input of inputs) {
      const start = sink.bitLength;
      putCode(sink, input.networkId >>> 0);
      sink.flush();
      this.protocol.input.write(this.inW, input.values);
      if (1 + codeBits(this.inCount + 1) + this.inW.bitLength > cap) {
        this.inBits = start;
        return 1 + codeBits(this.inCount) + start;
      }
      this.inCount++;
    }
    this.inBits = this.inW.bitLength;
    return 1 + codeBits(this.inCount) + this.inBits;
  }

  /** Write the whole message: header, the first `despawnCount` despawns, the selected records (bodies from `body`), inputs. */
  write(tick: Tick, gone: Despawns, despawnCount: number, c: Records, store: GhostStore, body: Uint8Array): void {
    const sink = this.sink.begin(this.w.reset());
    sink.put(MessageKind.Snapshot, 8);
    sink.put(0, 16); // the CRC, filled in by `finish`
    sink.put(tick, 32);
    putCode(sink, despawnCount);
    for (let j = 0, prev = -1; j < despawnCount; prev = gone.id(j), j++) putCode(sink, gone.id(j) - prev - 1);
    let count = 0;
    for (let k = 0; k < c.n; k++) count += c.sel[k]!;
    putCode(sink, count);
    this.p0 = this.p1 = -1;
    for (let k = 0, prev = -1; k < c.n; k++) {
      if (c.sel[k] === 0) continue;
      const d = c.dense[k]!, id = store.id[d]!;
      this.header(sink, store, tick, d, id - prev - 1, c.spawn[k] === 1, c.age0[k]!, c.age1[k]!);
      prev = id;
      copyBits(sink, body, c.off[k]!, c.len[k]!);
    }
    this.tail(sink);
  }

  /** A record header: id gap, then the spawn bit and fields (typeId, owner, age), or the baselines' ages (or "the same as before"). */
  private header(sink: BitSink, store: GhostStore, tick: Tick, d: number, gap: number, spawn: boolean, a0: number, a1: number): void {
    const same = a0 === this.p0 && a1 === this.p1;
    if (!spawn && same && gap < CODE_TABLE_SIZE) {
      sink.put(CODE_VALUE[gap]! | (0b10 << CODE_LENGTH[gap]!), CODE_LENGTH[gap]! + 2); // the common case in one put
      return;
    }
    putCode(sink, gap);
    if (spawn) {
      sink.put(1, 1);
      putCode(sink, store.typeId[d]!);
      putCode(sink, store.owner[d]!);
      putCode(sink, spawnAge(store, d, tick));
    } else if (same) sink.put(0b10, 2);
    else {
      sink.put(0, 2);
      putCode(sink, a0);
      if (a0 !== 0) putCode(sink, a1);
      this.p0 = a0;
      this.p1 = a1;
    }
  }

  private tail(sink: BitSink): void {
    if (this.inCount === 0) sink.put(0, 1);
    else {
      sink.put(1, 1);
      putCode(sink, this.inCount);
      sink.flush();
      copyBits(sink, this.inW.view(), 0, this.inBits);
    }
    sink.flush();
  }

  /** Put the CRC in and return the message: a view valid until the next write. */
  finish(): Uint8Array {
    const out = this.w.view();
    const crc = crc16(out, 3, out.length);
    out[1] = crc & 0xff;
    out[2] = crc >>> 8;
    return out;
  }
}
