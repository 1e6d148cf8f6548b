// The rooms example's server: one port serves the game (socket.io at /netcode), matchmaking
// (/matchmake) and metrics (/metrics) for many rooms of type 'arena'. SIGTERM drains: no new
// rooms, running matches end (at most 2 minutes), then the process exits.
// Run: node --import tsx examples/rooms/server.ts   (PORT, default 3000)
import { defineRoom } from 'react-netcode/rooms';
import { serveRooms } from 'react-netcode/socket-io';
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

const served = serveRooms({ rooms: [arena], port: Number(process.env.PORT ?? 3000), allowOrigin: '*' });
served.rooms.events.on('create', (room) => console.log(`room ${room.id} created (${room.private ? `private, code ${room.code}` : 'public'})`));
const { port } = await served.ready();
console.log(`rooms example listening on http://localhost:${port} (matchmaking at /matchmake, metrics at /metrics)`);

process.once('SIGTERM', () => {
  console.log('draining…');
  void served.rooms.drain({ maxWaitMs: 120_000 }).then(() => {
    served.close();
    process.exit(0);
  });
});
