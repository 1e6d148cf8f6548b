// The rooms example's server: one port serves the game (socket.io at /netcode), matchmaking
// (/matchmake) and metrics (/metrics) for many rooms of type 'arena' (rooms.ts). SIGTERM drains:
// no new rooms, running matches end (at most 2 minutes), then the process exits.
// With REDIS_URL set, the rooms, seats and load live in that Redis, shared with the other
// processes of a cluster (`npm run cluster -- 3`); PUBLIC_URL is where clients reach this one.
// With WORKERS=n the rooms run in n worker threads, each importing rooms.ts.
// Run: node --import tsx examples/rooms/server.ts   (PORT, default 3000)
import type { Directory } from 'react-netcode/rooms';
import { RedisDirectory } from 'react-netcode/rooms/redis';
import { serveRooms } from 'react-netcode/socket-io';
import { arena } from './rooms.ts';

const port = Number(process.env.PORT ?? 3000);
const redisUrl = process.env.REDIS_URL;
const directory: Directory | undefined = redisUrl ? new RedisDirectory({ url: redisUrl }) : undefined;
const url = process.env.PUBLIC_URL ?? (redisUrl ? `http://localhost:${port}` : undefined);
const workers = Number(process.env.WORKERS ?? 0);
const served = serveRooms({
  rooms: [arena], port, allowOrigin: '*', ...(directory ? { directory } : {}), ...(url ? { url } : {}),
  ...(workers > 0 ? { workers: { count: workers, module: new URL('./rooms.ts', import.meta.url) } } : {}),
});
served.rooms.events.on('create', (room) => console.log(`room ${room.id} created (${room.private ? `private, code ${room.code}` : 'public'})`));
const ready = await served.ready();
console.log(`rooms example ${served.rooms.processId} listening on http://localhost:${ready.port} (matchmaking at /matchmake, metrics at /metrics${redisUrl ? `, directory in ${redisUrl}` : ''}${workers > 0 ? `, rooms in ${workers} workers` : ''})`);

process.once('SIGTERM', () => {
  console.log('draining…');
  void served.rooms.drain({ maxWaitMs: 120_000 }).then(() => {
    served.close();
    if (directory instanceof RedisDirectory) directory.close();
    process.exit(0);
  });
});
