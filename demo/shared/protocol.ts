// The demo's protocol, shared by its server and clients. For now a lobby: players
// join with a name and exchange chat RPCs; the arena game builds on it.

import { defineProtocol, field, rpc } from '../../src/index.ts';

export const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  join: { name: field.string(24) },
  rpcs: {
    say: rpc.toServer({ text: field.string(200) }),
    said: rpc.toClient({ from: field.u16(), name: field.string(24), text: field.string(200) }),
    welcome: rpc.toClient({ players: field.u16() }),
  },
});

export type DemoProtocol = typeof protocol;
