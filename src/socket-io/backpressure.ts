// What "unreliable" means over socket.io, which is reliable and ordered (TCP): every
// message is delivered — except when the link does not keep up. Before an unreliable
// message is written, the bytes still waiting in user space (engine.io's write buffer
// plus the WebSocket's bufferedAmount) are measured; above `maxBufferedBytes` the
// message is dropped and counted, so a newer snapshot or input supersedes it once the
// link drains. On an idle link the buffer is empty between writes and nothing is
// dropped. `volatile` emits are never used: socket.io discards a volatile packet
// whenever its transport is momentarily not writable, e.g. right after another emit.

import { NetcodeError } from '../core/errors.ts';

/** Default: above 64 KiB waiting in user space, unreliable messages are dropped (counted). */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024;

interface Packet {
  data?: unknown;
}
interface EngineLike {
  writeBuffer?: readonly Packet[];
  transport?: { socket?: { bufferedAmount?: unknown }; ws?: { bufferedAmount?: unknown } };
}

function sizeOf(data: unknown): number {
  if (typeof data === 'string') return data.length;
  if (data instanceof ArrayBuffer) return data.byteLength;
  if (ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

/** Bytes an engine.io socket (server `socket.conn` or client `socket.io.engine`) still holds for writing. */
export function bufferedBytes(engine: unknown): number {
  const e = engine as EngineLike | undefined;
  if (e === undefined || e === null) return 0;
  let total = 0;
  const queue = e.writeBuffer;
  if (Array.isArray(queue)) for (const p of queue as readonly Packet[]) total += sizeOf(p?.data);
  const ws = e.transport?.socket ?? e.transport?.ws;
  const amount = ws?.bufferedAmount;
  if (typeof amount === 'number' && Number.isFinite(amount)) total += amount;
  return total;
}

/**
 * A peer holding more than this many packets (a server writes one or two per tick) or bytes unwritten reads nothing:
 * its link is closed.
 */
export const MAX_WAITING_PACKETS = 1024;
export const MAX_WAITING_BYTES = 8 * 1024 * 1024;

/**
 * Why the engine.io socket `engine` is taken for a peer that reads nothing (undefined: it is not): more than
 * MAX_WAITING_PACKETS packets or MAX_WAITING_BYTES bytes waiting to be written (bufferedBytes).
 */
export function backedUp(engine: unknown): string | undefined {
  const e = engine as EngineLike | undefined;
  const packets = Array.isArray(e?.writeBuffer) ? e.writeBuffer.length : 0;
  const bytes = packets > MAX_WAITING_PACKETS ? 0 : bufferedBytes(engine);
  if (packets <= MAX_WAITING_PACKETS && bytes <= MAX_WAITING_BYTES) return undefined;
  return `react-netcode: the client reads nothing: ${packets} messages and ${bytes} bytes wait to be written to it (a stalled or hostile client); its link is closed`;
}

export function checkMaxBufferedBytes(value: number | undefined): number {
  const v = value ?? DEFAULT_MAX_BUFFERED_BYTES;
  if (!(v >= 0) || !Number.isFinite(v)) throw new NetcodeError('usage', `react-netcode: maxBufferedBytes must be a finite number >= 0 (got ${String(value)}); the default is ${DEFAULT_MAX_BUFFERED_BYTES}.`);
  return v;
}
