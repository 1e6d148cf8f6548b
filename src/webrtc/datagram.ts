// Fitting unreliable writes to one datagram: the engines batch a frame's (or a tick's)
// messages into one write (core/outbox.ts); over a data channel a write larger than
// MAX_DATAGRAM_BYTES would be split by SCTP into several packets, and with no
// retransmission one lost packet loses all of it. So a Batch that is too large is
// re-packed into Batches that each fit, and a single message that alone does not fit
// is handed back to go over the reliable-path fallback (socket.io) whole.

import { forEachMessage } from '../core/outbox.ts';
import { MessageKind } from '../core/wire.ts';

/** The writes that fit (`fit`, each ≤ max) and the messages that do not fit alone (`oversize`). */
export interface Packed {
  fit: Uint8Array[];
  oversize: Uint8Array[];
}

function varuintSize(n: number): number {
  let size = 1;
  for (let v = n; v >= 0x80; v >>>= 7) size++;
  return size;
}

function writeBatch(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!.slice();
  let length = 1;
  for (const p of parts) length += varuintSize(p.byteLength) + p.byteLength;
  const out = new Uint8Array(length);
  out[0] = MessageKind.Batch;
  let pos = 1;
  for (const p of parts) {
    let v = p.byteLength;
    for (; v >= 0x80; v >>>= 7) out[pos++] = (v & 0x7f) | 0x80;
    out[pos++] = v;
    out.set(p, pos);
    pos += p.byteLength;
  }
  return out;
}

/** Split `data` (a message or a Batch) into writes of at most `max` bytes; a malformed Batch is returned as oversize, whole. */
export function packDatagrams(data: Uint8Array, max: number): Packed {
  if (data.byteLength <= max) return { fit: [data], oversize: [] };
  const parts: Uint8Array[] = [];
  try {
    forEachMessage(data, (m) => parts.push(m));
  } catch {
    return { fit: [], oversize: [data] };
  }
  const packed: Packed = { fit: [], oversize: [] };
  let group: Uint8Array[] = [];
  let size = 1;
  const close = (): void => {
    if (group.length > 0) packed.fit.push(writeBatch(group));
    group = [];
    size = 1;
  };
  for (const part of parts) {
    const entry = varuintSize(part.byteLength) + part.byteLength;
    if (part.byteLength > max) {
      packed.oversize.push(part.slice());
      continue;
    }
    if (group.length > 0 && size + entry > max) close();
    group.push(part);
    size += entry;
  }
  close();
  return packed;
}
