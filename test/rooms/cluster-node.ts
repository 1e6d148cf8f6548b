// One room-server process of the cluster test (test/rooms/cluster.test.ts): serveRooms on
// 127.0.0.1:PORT with the Redis directory at REDIS_URL (heartbeat TTL 3 s). Prints
// "ready <processId>" once listening; SIGTERM drains (DRAIN_MS at most), prints "drained", exits 0.
import { defineRoom } from '../../src/rooms/index.ts';
import { RedisDirectory } from '../../src/rooms/redis/index.ts';
import { serveRooms } from '../../src/socket-io/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';

const port = Number(process.env.PORT);
const directory = new RedisDirectory({ url: process.env.REDIS_URL!, heartbeatTtlMs: 3000, onError: () => {} });
const room = defineRoom('arena', {
  protocol: arena,
  systems: arenaSystems,
  maxClients: 8,
  onJoin: (r, c) => void r.server.spawn('player', { hp: 100 }, { owner: c.networkId }),
});
const served = serveRooms({ rooms: [room], host: '127.0.0.1', port, url: `http://127.0.0.1:${port}`, directory, log: () => {} });
await served.ready();
console.log(`ready ${served.rooms.processId}`);
process.once('SIGTERM', () => {
  void served.rooms.drain({ maxWaitMs: Number(process.env.DRAIN_MS ?? 2000) }).then(() => {
    console.log('drained');
    served.close();
    directory.close();
    setTimeout(() => process.exit(0), 200);
  });
});
