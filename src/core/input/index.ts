// Inputs: the client InputBuffer, the Input packet codec, the server's per-connection
// ServerInputQueue, input sanitizing, and the InputEvent helpers (running counts →
// presses per tick). The engines wire them together; see each module for its stage.

export { DEFAULT_INPUT_CAPACITY, InputBuffer } from './buffer.ts';
export type { NumericInputKey } from './buffer.ts';
export { copyEvents, eventDelta, inputLayout, neutralInput, neutralInto, toTickInput } from './events.ts';
export type { InputFieldEntry, InputLayout } from './events.ts';
export { createDecodedInputPacket, decodeInputPacket, DEFAULT_INPUTS_PER_PACKET, encodeInputPacket, MAX_INPUTS_PER_PACKET } from './packet.ts';
export type { DecodedInputPacket, InputPacketExtras, InputSource, PacketInput } from './packet.ts';
export { InputReports } from './reports.ts';
export type { InputProblem } from './reports.ts';
export { quantizeInput, sanitizeInput } from './sanitize.ts';
export { ARRIVAL_BUCKETS, ServerInputQueue } from './server-queue.ts';
export type { InputReceipt, ServerInputQueueOptions, ServerInputStats } from './server-queue.ts';
export { InputStore } from './store.ts';
export type { InputEntry } from './store.ts';
