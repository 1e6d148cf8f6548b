// The seat message: the first message a client sends on every link to a room server. The
// matchmaker hands out a seat (a room and a token); `seatedTransport` wraps any client
// transport so that each time it opens it first says the token, then lets the engine's Hello
// follow. The room server reads it, routes the link to the seat's room and drops it.

import { BitReader, BitWriter } from '../core/bits.ts';
import { NetcodeError } from '../core/errors.ts';
import type { ClientTransport } from '../core/transport.ts';
import { MAX_SEAT_TOKEN_LENGTH, MessageKind } from '../core/wire.ts';

/** What the matchmaker returns: a place reserved in one room, and where to connect to use it. */
export interface Seat {
  /** Secret of this seat: the client presents it on each link (seatedTransport). */
  readonly token: string;
  readonly roomId: string;
  readonly roomType: string;
  /** The code others join a private room with; set on private rooms only. */
  readonly code?: string;
  /** The process that owns the room (its id in the directory). */
  readonly processId: string;
  /**
   * Where the owning process listens, when the directory knows it (a cluster); else connect where you matchmade.
   * `createMatchmakerClient` fills it in (the origin it matchmade at), so its seats always have one.
   */
  readonly url?: string;
  /** How long (ms) an unused seat is kept from now: connecting with it once is enough, a used seat never lapses. */
  readonly lapseMs: number;
}

/** Seat message bytes: the kind byte, then the token as a string. */
export function encodeSeat(token: string): Uint8Array {
  checkSeatToken(token);
  const w = new BitWriter(8 + token.length * 3);
  w.writeBits(MessageKind.Seat, 8);
  w.writeString(token, MAX_SEAT_TOKEN_LENGTH);
  return w.toBytes();
}

/** The token of a Seat message, or undefined when `data` is not a well-formed one. */
export function decodeSeat(data: Uint8Array, reader = new BitReader()): string | undefined {
  try {
    reader.reset(data);
    if (reader.readBits(8) !== MessageKind.Seat) return undefined;
    const token = reader.readString(MAX_SEAT_TOKEN_LENGTH);
    reader.expectEnd();
    return token.length > 0 ? token : undefined;
  } catch {
    return undefined;
  }
}

function checkSeatToken(token: string): void {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_SEAT_TOKEN_LENGTH) {
    throw new NetcodeError('usage', `react-netcode: a seat token is a non-empty string of at most ${MAX_SEAT_TOKEN_LENGTH} characters; pass the seat the matchmaker returned.`);
  }
}

/** Said when a seated first link never opened. */
const NEVER_OPENED = "if the seat's room server is gone (a process stopped since matchmaking), matchmake again for a new seat.";

/**
 * A client transport that presents `seat` first on every link it opens (the first connect and
 * each reconnect of a resume), so the room server routes it to the seat's room. Everything else
 * passes through unchanged.
 */
export function seatedTransport(inner: ClientTransport, seat: Pick<Seat, 'token'> | string): ClientTransport {
  const token = typeof seat === 'string' ? seat : seat.token;
  const hello = encodeSeat(token);
  const wrapped: ClientTransport = {
    connect(handler, intent) {
      let opened = false;
      inner.connect({
        onOpen: () => {
          opened = true;
          inner.send(hello, 'reliable');
          handler.onOpen();
        },
        onMessage: (data, channel) => handler.onMessage(data, channel),
        // A first link that never opened: the seat's url is the room's process, which may have died since matchmaking.
        onClose: (reason) => handler.onClose(opened || intent?.resume === true ? reason : `${reason.replace(/[.;\s]+$/, '')}; ${NEVER_OPENED}`),
        onServerError: (reason) => handler.onServerError?.(reason),
        onRetry: (reason) => handler.onRetry?.(reason),
      }, intent);
    },
    send: (data, channel) => inner.send(data, channel),
    close: (reason) => inner.close(reason),
    // The server ended the session with the link: the seat is gone with it (or its room ended).
    newSessionAdvice: 'matchmake again for a new seat and connect with it',
  };
  if (inner.stats !== undefined) Object.defineProperty(wrapped, 'stats', { get: () => inner.stats, enumerable: true });
  if (inner.maxDatagramBytes !== undefined) Object.defineProperty(wrapped, 'maxDatagramBytes', { get: () => inner.maxDatagramBytes, enumerable: true });
  return wrapped;
}
