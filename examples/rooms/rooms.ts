// The rooms example's room types, in a module of their own: the server imports them, and so does
// each room worker when the server runs its rooms in worker threads (WORKERS=n).
import { defineRoom } from 'react-netcode/rooms';
import { protocol, systems } from './shared.ts';

export const arena = defineRoom('arena', {
  protocol,
  systems,
  maxClients: 4,
  emptyGraceMs: 10_000,
  onJoin: (room, connection) => {
    room.server.spawn('player', { position: { x: connection.networkId, y: 0, z: 0 } }, { owner: connection.networkId });
  },
  onDispose: (room) => console.log(`room ${room.id} closed`),
});
