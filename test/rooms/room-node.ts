// One room-server process for the tests that kill it (test/rooms/killed-room.test.ts): serveRooms
// on 127.0.0.1:PORT (0: any free port) with the in-process directory and the arena room. Prints
// "ready <port>" once listening; it is meant to be killed (SIGKILL), not stopped.
import { defineRoom } from '../../src/rooms/index.ts';
import { serveRooms } from '../../src/socket-io/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';

const room = defineRoom('arena', {
  protocol: arena,
  systems: arenaSystems,
  maxClients: 8,
  onJoin: (r, c) => void r.server.spawn('player', { hp: 100 }, { owner: c.networkId }),
});
const served = serveRooms({ rooms: [room], host: '127.0.0.1', port: Number(process.env.PORT ?? 0), log: () => {} });
const { port } = await served.ready();
console.log(`ready ${port}`);
