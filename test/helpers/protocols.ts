// Protocols shared by the tests.
import { defineProtocol, field, rpc } from '../../src/index.ts';

export const chatProtocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  join: { name: field.string(16), token: field.string(64) },
  rpcs: {
    say: rpc.toServer({ text: field.string(100) }),
    said: rpc.toClient({ from: field.u16(), text: field.string(100) }),
    move: rpc.toServer({ dir: field.vec2({ quantize: 100 }), run: field.bool() }, { maxBytes: 8 }),
    blob: rpc.toServer({ text: field.string(1000) }, { maxBytes: 200 }),
  },
});
export type ChatProtocol = typeof chatProtocol;
