// What crosses the thread boundary between a room server and its room workers: one ordered
// stream per direction, sent as batches. A batch is one ArrayBuffer (transferred, not copied)
// holding the links' messages back to back, with the control operations (a room opened, a link
// routed or gone, a seat held …) in order between them, so a link's messages never overtake its
// `connect` nor its `lost`. A batch is flushed once per event-loop turn (setImmediate): every
// message that arrived in one I/O poll, or that one turn of rooms sent, shares one postMessage.

import type { Channel, PeerId } from '../core/transport.ts';
import type { LogLevel } from '../core/emitter.ts';
import type { RoomListing } from './directory.ts';
import type { RoomStats } from './room-stats.ts';

/** Main thread → worker. */
export type ToWorker =
  | { readonly t: 'open'; readonly listing: RoomListing; readonly seed: number; readonly emptyGraceMs: number }
  | { readonly t: 'connect'; readonly roomId: string; readonly peer: PeerId; readonly token: string }
  | { readonly t: 'lost'; readonly peer: PeerId; readonly reason: string }
  | { readonly t: 'violation'; readonly peer: PeerId; readonly reason: string }
  | { readonly t: 'seats'; readonly roomId: string; readonly clients: number; readonly locked: boolean }
  | { readonly t: 'close'; readonly roomId: string; readonly reason: string }
  | { readonly t: 'stop' };

/** Figures of one worker, as it reports them (with its rooms' stats) every STATS_MS. */
export interface WorkerReport {
  /** Share of wall time the worker spent running its rooms' turns since its last report (0–1). */
  readonly busy: number;
  /** Messages and batches it received and sent, since it started. */
  readonly messagesIn: number;
  readonly messagesOut: number;
  readonly batchesIn: number;
  readonly batchesOut: number;
  /** The worker thread's V8 heap in use, bytes. */
  readonly heapUsedBytes: number;
}

/** Worker → main thread. */
export type FromWorker =
  | { readonly t: 'ready'; readonly types: readonly string[] }
  | { readonly t: 'fatal'; readonly message: string }
  | { readonly t: 'disconnect'; readonly peer: PeerId; readonly reason: string }
  | { readonly t: 'hold' | 'release'; readonly roomId: string; readonly token: string }
  | { readonly t: 'lock'; readonly roomId: string; readonly locked: boolean }
  | { readonly t: 'log'; readonly level: LogLevel; readonly message: string }
  | { readonly t: 'stats'; readonly rooms: readonly RoomStats[]; readonly worker: WorkerReport };

/** How often a worker reports its rooms' stats and its own. */
export const STATS_MS = 250;

export interface Batch<Op> {
  readonly data: ArrayBuffer;
  readonly length: number;
  readonly ops: readonly Op[];
}

const MESSAGE = 0;
const OP = 1;
const RELIABLE = 0;
const UNRELIABLE = 1;
const INITIAL_BYTES = 4096;

/** Collects one direction's stream and posts it once per event-loop turn. */
export class Batcher<Op> {
  private buffer = new ArrayBuffer(INITIAL_BYTES);
  private view = new DataView(this.buffer);
  private bytes = new Uint8Array(this.buffer);
  private at = 0;
  private ops: Op[] = [];
  private scheduled = false;
  messages = 0;
  batches = 0;

  constructor(private readonly post: (batch: Batch<Op>, transfer: ArrayBuffer[]) => void) {}

  message(peer: PeerId, data: Uint8Array, channel: Channel): void {
    this.room(10 + data.byteLength);
    const v = this.view;
    v.setUint8(this.at, MESSAGE);
    v.setUint32(this.at + 1, peer);
    v.setUint8(this.at + 5, channel === 'reliable' ? RELIABLE : UNRELIABLE);
    v.setUint32(this.at + 6, data.byteLength);
    this.bytes.set(data, this.at + 10);
    this.at += 10 + data.byteLength;
    this.messages++;
    this.schedule();
  }

  op(op: Op): void {
    this.room(5);
    this.view.setUint8(this.at, OP);
    this.view.setUint32(this.at + 1, this.ops.length);
    this.at += 5;
    this.ops.push(op);
    this.schedule();
  }

  /** Post what is collected now (the buffer is transferred; the next batch gets a new one). */
  flush(): void {
    this.scheduled = false;
    if (this.at === 0) return;
    const batch: Batch<Op> = { data: this.buffer, length: this.at, ops: this.ops };
    let capacity = INITIAL_BYTES; // sized to this batch: a burst's big buffer is not kept for every later batch
    while (capacity < this.at) capacity *= 2;
    this.buffer = new ArrayBuffer(capacity);
    this.view = new DataView(this.buffer);
    this.bytes = new Uint8Array(this.buffer);
    this.at = 0;
    this.ops = [];
    this.batches++;
    this.post(batch, [batch.data]);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.byteLength) return;
    let capacity = this.buffer.byteLength * 2;
    while (capacity < this.at + bytes) capacity *= 2;
    const next = new ArrayBuffer(capacity);
    new Uint8Array(next).set(this.bytes.subarray(0, this.at));
    this.buffer = next;
    this.view = new DataView(next);
    this.bytes = new Uint8Array(next);
  }
}

/**
 * Read a batch in order. Message bytes are views into the batch's buffer, which nothing reuses:
 * they stay valid for as long as their reader keeps them.
 */
export function readBatch<Op>(
  batch: Batch<Op>,
  onMessage: (peer: PeerId, data: Uint8Array, channel: Channel) => void,
  onOp: (op: Op) => void,
): number {
  const view = new DataView(batch.data, 0, batch.length);
  let at = 0;
  let messages = 0;
  while (at < batch.length) {
    if (view.getUint8(at) === OP) {
      onOp(batch.ops[view.getUint32(at + 1)]!);
      at += 5;
      continue;
    }
    const peer = view.getUint32(at + 1);
    const channel: Channel = view.getUint8(at + 5) === RELIABLE ? 'reliable' : 'unreliable';
    const length = view.getUint32(at + 6);
    onMessage(peer, new Uint8Array(batch.data, at + 10, length), channel);
    at += 10 + length;
    messages++;
  }
  return messages;
}
