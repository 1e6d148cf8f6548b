// Snapshots: the server's per-connection, budgeted, delta-compressed view of the
// ghosts (SnapshotEncoder) and the client's decoder (SnapshotDecoder), plus the
// SnapshotAck body helpers. Wire layout in format.ts.

export { ConnectionSnapshotState } from './groups.ts';
export { SnapshotDecoder } from './decoder.ts';
export type { DecodedInput, DecodedSnapshot, DecodedSpawn, DecodedUpdate } from './decoder.ts';
export { SnapshotEncoder } from './encoder.ts';
export type { SnapshotEncodeOptions, SnapshotEncoderOptions, SnapshotGhost, SnapshotInput } from './encoder.ts';
export { decodeAck, encodeAck } from './format.ts';
export type { SnapshotAckBody } from './format.ts';
export { maxWaitSnapshots } from './priority.ts';
