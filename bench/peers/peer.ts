// What the snapshot benchmark asks of each replicated system: one call per snapshot
// that encodes the world for every client, with its own timing, and a check that one
// client decoded exactly the server's quantized state.

export interface SnapshotSample {
  /** Payload bytes of this snapshot, one entry per client. */
  bytes: number[];
  /** Wall time of the encode work for all clients, ms (shared work counted once). */
  encodeMs: number;
  /** Wall time of other server work this snapshot needs (schema setters' change tracking, react-netcode acks), ms. */
  otherMs: number;
  /** Messages actually encoded (react-netcode: connections sharing one take copies); absent for the others. */
  encodes?: number;
}

export interface SnapshotPeer {
  readonly system: string;
  /** Encode (and, outside the timed section, deliver) the snapshot of `tick`; the world has already stepped. */
  snapshot(tick: number): SnapshotSample;
  /** Throws unless the verifying client's decoded state equals the world's quantized state. */
  verify(): void;
}

export function mismatch(system: string, what: string, expected: unknown, actual: unknown): Error {
  return new Error(`react-netcode bench: ${system} decoded ${what} = ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}.`);
}
