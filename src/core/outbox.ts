// Batching: what one client frame or one server tick sends to one peer leaves in
// one transport write per channel. Messages are queued in an Outbox while the
// frame/tick runs and flushed at its end: a lone message goes out as it is, two or
// more as one Batch message (wire.ts): repeated varuint length + whole message.
// The receiving side splits a Batch with `forEachMessage` and handles each part as
// if it had arrived alone. Nothing is ever dropped here.

import { NetcodeError, WireError } from './errors.ts';
import type { Channel } from './transport.ts';
import { MAX_MESSAGE_BYTES, MessageKind } from './wire.ts';

/** Messages queued for one channel, packed as Batch entries (length prefix + bytes). */
class Lane {
  buf = new Uint8Array(512);
  length = 0;
  count = 0;
  /** Where the first message's bytes start (after its length prefix), for sending a lone message as it is. */
  firstStart = 0;

  /** Queue the first `n` bytes of `bytes`. */
  push(bytes: Uint8Array, n: number): void {
    this.ensure(this.length + 5 + n);
    let v = n;
    for (; v >= 0x80; v >>>= 7) this.buf[this.length++] = (v & 0x7f) | 0x80;
    this.buf[this.length++] = v;
    if (this.count === 0) this.firstStart = this.length;
    const buf = this.buf;
    const at = this.length;
    if (n === bytes.byteLength) buf.set(bytes, at);
    else if (n <= 256) for (let i = 0; i < n; i++) buf[at + i] = bytes[i]!; // a writer's buffer: no subarray view
    else buf.set(bytes.subarray(0, n), at);
    this.length += n;
    this.count++;
  }

  /** The bytes to write: the lone message, or Batch kind + entries. A fresh copy the transport may keep. */
  take(): Uint8Array {
    let out: Uint8Array;
    if (this.count === 1) out = this.buf.slice(this.firstStart, this.length);
    else {
      out = new Uint8Array(this.length + 1);
      out[0] = MessageKind.Batch;
      out.set(this.buf.subarray(0, this.length), 1);
    }
    this.length = 0;
    this.count = 0;
    return out;
  }

  private ensure(bytes: number): void {
    if (bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < bytes) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
}

export class Outbox {
  private readonly reliable = new Lane();
  private readonly unreliable = new Lane();

  /** Writes that filled up before the flush (a Batch never exceeds MAX_MESSAGE_BYTES). */
  private readonly full: { bytes: Uint8Array; channel: Channel; messages: number }[] = [];

  /** Queue a copy of the first `length` bytes of `bytes` (all by default; the caller may reuse its buffer at once). */
  push(bytes: Uint8Array, channel: Channel, length = bytes.byteLength): void {
    if (!(length >= 0 && length <= bytes.byteLength)) throw new NetcodeError('internal', `react-netcode: Outbox.push length ${length} is outside the ${bytes.byteLength} bytes given.`);
    const lane = channel === 'reliable' ? this.reliable : this.unreliable;
    // Batch kind + this entry's length prefix (≤ 5) + the entry must fit in one message.
    if (lane.count > 0 && 1 + lane.length + 5 + length > MAX_MESSAGE_BYTES) {
      const messages = lane.count;
      this.full.push({ bytes: lane.take(), channel, messages });
    }
    lane.push(bytes, length);
  }

  /** Messages queued and not yet flushed. */
  get size(): number {
    return this.reliable.count + this.unreliable.count + this.full.length;
  }

  /** Write what is queued: one write per channel (more only if a Batch would exceed MAX_MESSAGE_BYTES), reliable first. */
  flush(write: (bytes: Uint8Array, channel: Channel, messages: number) => void): number {
    let writes = 0;
    // splice(0) only when there is any: no array per flush otherwise.
    if (this.full.length > 0) for (const w of this.full.splice(0)) {
      write(w.bytes, w.channel, w.messages);
      writes++;
    }
    if (this.reliable.count > 0) {
      const n = this.reliable.count;
      write(this.reliable.take(), 'reliable', n);
      writes++;
    }
    if (this.unreliable.count > 0) {
      const n = this.unreliable.count;
      write(this.unreliable.take(), 'unreliable', n);
      writes++;
    }
    return writes;
  }

  /** Drop everything queued (the link closed). */
  clear(): void {
    this.full.length = 0;
    this.reliable.take();
    this.unreliable.take();
  }
}

/**
 * Call `visit` with each message `data` carries: `data` itself, or each entry of a Batch
 * (views into `data`, no copy). A malformed Batch throws WireError before any entry is
 * visited: zero or overlong lengths, a truncated entry, a nested Batch, or an empty Batch.
 */
export function forEachMessage(data: Uint8Array, visit: (message: Uint8Array) => void): void {
  if (data.byteLength === 0 || data[0] !== MessageKind.Batch) {
    visit(data);
    return;
  }
  const end = data.byteLength;
  let entries = 0;
  for (let pos = 1; pos < end; entries++) pos = entryEnd(data, pos);
  if (entries < 2) throw new WireError('wire/bad-value', `react-netcode: a batch must carry at least 2 messages (got ${entries}); drop the message.`);
  for (let pos = 1; pos < end; ) {
    const next = entryEnd(data, pos);
    visit(data.subarray(entryStart, next));
    pos = next;
  }
}

/** Where the entry last validated by `entryEnd` starts (after its length prefix). */
let entryStart = 0;

/** Validate the entry at `pos` (varuint length, then the message) and return where the next one starts. */
function entryEnd(data: Uint8Array, pos: number): number {
  let value = 0;
  let mul = 1;
  let start = -1;
  for (let i = 0; i < 5 && start < 0; i++, mul *= 128) {
    if (pos + i >= data.byteLength) throw new WireError('wire/end-of-data', `react-netcode: batch entry length at byte ${pos} is truncated; drop the message.`);
    const byte = data[pos + i]!;
    value += (byte & 0x7f) * mul;
    if (byte < 0x80) start = pos + i + 1;
  }
  if (start < 0) throw new WireError('wire/bad-value', `react-netcode: batch entry length at byte ${pos} is longer than 5 bytes; drop the message.`);
  entryStart = start;
  if (value < 1 || value > MAX_MESSAGE_BYTES) throw new WireError('wire/bad-value', `react-netcode: batch entry of ${value} bytes at byte ${pos} (allowed 1..${MAX_MESSAGE_BYTES}); drop the message.`);
  if (start + value > data.byteLength) throw new WireError('wire/end-of-data', `react-netcode: batch entry at byte ${pos} needs ${value} bytes, ${data.byteLength - start} remain; drop the message.`);
  if (data[start] === MessageKind.Batch) throw new WireError('wire/bad-value', `react-netcode: a batch may not contain a batch (entry at byte ${pos}); drop the message.`);
  return start + value;
}
