// Netcode frames: one binary engine.io message per transport message, instead of a socket.io
// binary event. A socket.io `emit('u', bytes)` leaves as two WebSocket frames — a text packet
// (`451-["u",{"_placeholder":true,"num":0}]`) and the bytes as an attachment, written one
// after the other (the second waits for the first write's callback) — and is encoded and
// reassembled by socket.io's parser on both ends. A netcode frame is the bytes behind one
// tag byte (the channel), written with the engine.io socket's own `write`, so it keeps its
// order among socket.io's packets: one frame, one write.
//
// Both halves use frames only when both speak them: the client asks for them in its handshake
// query (`FRAMES_QUERY=1`), a server that understands the query answers with frames from its
// first message on, and the client sends frames once it has received one. An older peer on
// either side never sees a frame. Frames are taken off the engine.io socket's `data` event
// before socket.io's parser sees them (`interceptFrames`); every other packet, and each
// binary attachment a socket.io header announces, goes on to socket.io as before.
import type { Channel } from '../core/transport.ts';
import { toBytes } from './bytes.ts';

/**
 * The socket.io event that carries the server's reason (a string) just before it disconnects a peer, since a
 * socket.io disconnect carries none: the client transport closes with it. A transport event, never an engine message.
 */
export const BYE_EVENT = 'bye';
/** Longest reason the bye event carries (UTF-16 code units). */
export const MAX_BYE_LENGTH = 300;

/** The handshake query parameter a client that speaks netcode frames sets to '1'. */
export const FRAMES_QUERY = 'netcodeFrames';

const TAG_RELIABLE = 0xf1;
const TAG_UNRELIABLE = 0xf2;

/** The frame carrying `data` on `channel`: the tag byte, then the bytes (a fresh copy the engine may keep). */
export function encodeFrame(data: Uint8Array, channel: Channel, alloc: (n: number) => Uint8Array = (n) => new Uint8Array(n)): Uint8Array {
  const frame = alloc(1 + data.byteLength);
  frame[0] = channel === 'reliable' ? TAG_RELIABLE : TAG_UNRELIABLE;
  frame.set(data, 1);
  return frame;
}

/** The event-emitter surface of an engine.io socket (Node's EventEmitter on the server, component-emitter in the client). */
export interface DataEmitter {
  listeners(event: 'data'): ((...args: unknown[]) => void)[];
  removeListener(event: 'data', fn: (...args: unknown[]) => void): unknown;
  on(event: 'data', fn: (data: unknown) => void): unknown;
}

/**
 * Sorts an engine.io socket's received messages: a netcode frame (returned as its bytes and channel) or a
 * packet for socket.io (null). Counts the binary attachments socket.io's text headers announce, so an
 * attachment that happens to start with a tag byte still goes to socket.io.
 */
export class FrameSorter {
  private attachments = 0;
  /** The channel of the frame `take` returned last. */
  channel: Channel = 'reliable';

  take(chunk: unknown): Uint8Array | null {
    if (typeof chunk === 'string') {
      this.attachments = announcedAttachments(chunk);
      return null;
    }
    const bytes = toBytes(chunk);
    if (bytes === null) return null;
    if (this.attachments > 0) {
      this.attachments--;
      return null;
    }
    const tag = bytes[0];
    if (tag !== TAG_RELIABLE && tag !== TAG_UNRELIABLE) return null;
    this.channel = tag === TAG_RELIABLE ? 'reliable' : 'unreliable';
    return bytes.subarray(1);
  }
}

/** Binary attachments that follow a socket.io text packet (as engine.io hands it on: `<5|6><count>-…`, a binary event or ack), else 0. */
export function announcedAttachments(packet: string): number {
  const type = packet.charCodeAt(0);
  if (type !== 0x35 && type !== 0x36) return 0; // '5' BINARY_EVENT, '6' BINARY_ACK
  let count = 0;
  for (let i = 1; i < packet.length && i < 12; i++) {
    const c = packet.charCodeAt(i);
    if (c === 0x2d) return count; // '-'
    if (c < 0x30 || c > 0x39) return 0;
    count = count * 10 + (c - 0x30);
  }
  return 0;
}

/**
 * Take netcode frames off `engine`'s `data` event (handed to `onFrame`, a view into the received message);
 * everything else reaches the listeners it had (socket.io's parser) unchanged, in order.
 */
export function interceptFrames(engine: DataEmitter, onFrame: (data: Uint8Array, channel: Channel) => void): void {
  const previous = [...engine.listeners('data')]; // a copy: component-emitter hands out its own array
  for (const fn of previous) engine.removeListener('data', fn);
  const sorter = new FrameSorter();
  engine.on('data', (chunk: unknown) => {
    const frame = sorter.take(chunk);
    if (frame !== null) onFrame(frame, sorter.channel);
    else for (const fn of previous) fn.call(engine, chunk);
  });
}
