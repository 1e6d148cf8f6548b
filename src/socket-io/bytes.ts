// Received payloads of both socket.io halves as bytes: socket.io hands a Buffer in Node and an
// ArrayBuffer in browsers; the engines take a Uint8Array.

/** A Uint8Array view on a received binary payload (Node: Buffer, browsers: ArrayBuffer), or null if it is not binary. Never copies. */
export function toBytes(value: unknown): Uint8Array | null {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return null;
}
