// Entry point of `react-netcode/rooms/redis` (Node only): the room directory in Redis, for a
// cluster of room servers (docs/rooms.md, "Scale-out").
export { RedisDirectory } from './redis-directory.ts';
export type { RedisDirectoryOptions } from './redis-directory.ts';
