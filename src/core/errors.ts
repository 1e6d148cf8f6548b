// Errors raised by react-netcode. Every message starts with `react-netcode:` and
// says what to do. Errors carry a stable `code` so callers can branch on them.

/** Stable error codes. Wire errors close only the offending connection. */
export type NetcodeErrorCode =
  | 'wire/end-of-data' // read past the end of a message
  | 'wire/bad-value' // a value outside its declared range or form
  | 'wire/too-large' // a message or field over its size limit
  | 'wire/unknown-message' // an unknown message kind or RPC id
  | 'protocol/invalid' // a protocol definition that cannot work
  | 'protocol/mismatch' // client and server protocols differ
  | 'usage' // the API was called in a way it does not support
  | 'transport'; // the transport failed or was used after close

export class NetcodeError extends Error {
  readonly code: NetcodeErrorCode;
  constructor(code: NetcodeErrorCode, message: string) {
    super(message.startsWith('react-netcode:') ? message : `react-netcode: ${message}`);
    this.name = 'NetcodeError';
    this.code = code;
  }
}

/** Raised by the bit reader/writer and codecs on malformed or out-of-range data. */
export class WireError extends NetcodeError {
  constructor(code: Extract<NetcodeErrorCode, `wire/${string}`>, message: string) {
    super(code, message);
    this.name = 'WireError';
  }
}

export function isNetcodeError(value: unknown): value is NetcodeError {
  return value instanceof NetcodeError;
}
