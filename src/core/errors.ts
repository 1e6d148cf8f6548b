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
  | 'transport' // the transport failed or was used after close
  | 'matchmaking' // no seat: the room is full, locked, unknown, or the seat lapsed unused (src/rooms)
  | 'handler' // an app callback (system, RPC handler, onJoin, relevancy) threw; the engine went on
  | 'internal'; // an unexpected error inside react-netcode, contained; please report it

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

/** The message of anything thrown, without a leading `react-netcode: `. */
export function describeError(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/^react-netcode: /, '');
}

/** An app callback that threw (an RPC handler, onJoin, relevancy …), with what it was and the tick; the original is `cause`. */
export class HandlerError extends NetcodeError {
  constructor(
    /** What threw, e.g. 'RPC handler "say"' or 'onJoin'. */
    readonly handler: string,
    readonly tick: number,
    cause: unknown,
  ) {
    super('handler', `react-netcode: ${handler} threw at tick ${tick}: ${describeError(cause)}; fix that callback (error.cause holds what it threw, with the stack).`);
    this.name = 'HandlerError';
    this.cause = cause;
  }
}

/** `error` itself when it is a NetcodeError, else an 'internal' NetcodeError carrying it as `cause`. */
export function asNetcodeError(error: unknown, while_: string): NetcodeError {
  if (isNetcodeError(error)) return error;
  const e = new NetcodeError('internal', `react-netcode: unexpected error while ${while_}: ${describeError(error)}; it was contained — please report it with the stack of its cause.`);
  e.cause = error;
  return e;
}

/**
 * The first check of createClient / createServer: one options object whose `protocol` came from
 * defineProtocol and with a transport (a common slip in JavaScript: `createClient(protocol, systems, …)`).
 */
export function checkEngineOptions(options: unknown, what: 'createClient' | 'createServer'): void {
  const o = options as { protocol?: { ghostList?: unknown }; transport?: unknown } | null | undefined;
  const example = `${what}({ protocol, systems, transport })`;
  if (typeof o !== 'object' || o === null) throw new NetcodeError('usage', `react-netcode: ${what} takes one options object: ${example}.`);
  if (typeof o.protocol !== 'object' || o.protocol === null || !Array.isArray(o.protocol.ghostList)) {
    const given = 'ghostList' in o ? ' (got a protocol as the first argument: pass the options object instead)' : '';
    throw new NetcodeError('usage', `react-netcode: ${what} needs options.protocol, the value defineProtocol returned: ${example}${given}.`);
  }
  if (typeof o.transport !== 'object' || o.transport === null) {
    throw new NetcodeError('usage', `react-netcode: ${what} needs options.transport (e.g. createSocketIo${what === 'createClient' ? 'Client' : 'Server'}Transport(…)): ${example}.`);
  }
}

/**
 * Refuse an option name `what` does not have (a JavaScript caller's typo, e.g. `prot`), naming the
 * nearest known one; TypeScript catches these in object literals, not in objects built elsewhere.
 */
export function checkOptionNames(options: object, known: readonly string[], what: string): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const a = key.toLowerCase();
    const close = (k: string): boolean => editDistance(k.toLowerCase(), a) <= 2;
    const samePrefix = (k: string): boolean => k.length >= 4 && a.startsWith(k.slice(0, 4).toLowerCase());
    const near = known.find(close) ?? known.find(samePrefix);
    const hint = near === undefined ? '' : ` (did you mean "${near}"?)`;
    throw new NetcodeError('usage', `react-netcode: ${what} has no option "${key}"${hint}; its options are ${known.join(', ')}.`);
  }
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
