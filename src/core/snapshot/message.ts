// The Snapshot message writer (layout in format.ts): header, despawns, the chosen
// records (ids ascending, baselines named once per run, bodies copied from the
// per-tick cache), the inputs section, and the CRC. One per encoder, reused.

import { BitWriter } from '../bits.ts';
import type { Protocol } from '../protocol.ts';
import type { Tick } from '../tick.ts';
import { MessageKind } from '../wire.ts';
import type { Candidates, Despawns } from './candidates.ts';
import { BitSink, codeBits as codeBitsImport, copyBits as copyBitsImport, crc16 as crc16Import, putCode as putCodeImport } from './codes.ts';
import type { SnapshotInput } from './encoder.ts';
import { F_SPAWN as F_SPAWN_ } from './format.ts';

// Module-local copies of the imports used per record (under CommonJS each use of an import is a getter call).
const codeBits = codeBitsImport, copyBits = copyBitsImport, crc16 = crc16Import, putCode = putCodeImport;
const F_SPAWN = F_SPAWN_;

/** Bits before the despawn count: kind (8), CRC (16), tick (32). */
export const MSG_HEADER_BITS = 56;

export class MessageWriter {
  private readonly w = new BitWriter();
  private readonly sink = new BitSink();
  private readonly inW = new BitWriter(256);
  private readonly inSink = new BitSink();
  private inCount = 0;
  private inBits = 0;

  constructor(
    private readonly protocol: Protocol,
    private readonly budgetBytes: number,
  ) {}

  /** Bits written by the last `write`. */
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

  /**
   * Write the whole message: header, the first `despawnCount` despawns, the selected
   * candidates' records, the inputs. When every candidate is selected and `streamStart`
   * >= 0, bits [streamStart, streamEnd) of `body` are those records, ready-made.
   */
  write(tick: Tick, gone: Despawns, despawnCount: number, c: Candidates, body: Uint8Array, streamStart: number, streamEnd: number): void {
    const sink = this.header(tick, despawnCount);
    for (let j = 0, prev = -1; j < despawnCount; prev = gone.id(j), j++) putCode(sink, gone.id(j) - prev - 1);
    let count = 0;
    for (let k = 0; k < c.n; k++) count += c.sel[k]!;
    putCode(sink, count);
    if (count === c.n && streamStart >= 0) copyBits(sink, body, streamStart, streamEnd - streamStart);
    else this.records(sink, c, body);
    this.tail(sink);
  }

  /**
   * The message of the steady-state path (encode-core.ts `steady`): no despawns, and
   * `count` records ready-made at bits [start, end) of `body`. Byte for byte what
   * `write` makes of the same records.
   */
  writeRecords(tick: Tick, count: number, body: Uint8Array, start: number, end: number): void {
    const sink = this.header(tick, 0);
    putCode(sink, count);
    copyBits(sink, body, start, end - start);
    this.tail(sink);
  }

  /** Kind, CRC placeholder, tick and the despawn count. */
  private header(tick: Tick, despawnCount: number): BitSink {
    const sink = this.sink.begin(this.w.reset());
    sink.put(MessageKind.Snapshot, 8);
    sink.put(0, 16);
    sink.put(tick, 32);
    putCode(sink, despawnCount);
    return sink;
  }

  /** The selected candidates' records, one by one. */
  private records(sink: BitSink, c: Candidates, body: Uint8Array): void {
    let prev = -1;
    let p0 = -1;
    let p1 = -1;
    for (let k = 0; k < c.n; k++) {
      if (c.sel[k] === 0) continue;
      const id = c.id[k]!;
      putCode(sink, id - prev - 1);
      prev = id;
      if ((c.flags[k]! & F_SPAWN) !== 0) sink.put(1, 1);
      else {
        const a0 = c.age0[k]!;
        const a1 = c.age1[k]!;
        if (a0 === p0 && a1 === p1) sink.put(1 << 1, 2);
        else {
          sink.put(0, 2);
          putCode(sink, a0);
          if (a0 !== 0) putCode(sink, a1);
          p0 = a0;
          p1 = a1;
        }
      }
      copyBits(sink, body, c.off[k]!, c.len[k]!);
    }
  }

  /** The inputs section and the last bits. */
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
