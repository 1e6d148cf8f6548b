// Entry point of `react-netcode/rooms`: many rooms per process on one transport, matchmaking
// with atomic, idempotent seats, and the room directory (in process by default). The server
// half needs no socket.io; serveRooms (react-netcode/socket-io) puts it on a port with HTTP
// matchmaking. The client half (seatedTransport, createMatchmakerClient) runs in browsers too.
export { defineRoom } from './define-room.ts';
export type { Room, RoomDefinition, RoomNetServerOptions, RoomType } from './define-room.ts';
export { RoomServer } from './room-server.ts';
export type { RoomServerEvents, RoomServerOptions } from './room-server.ts';
export type { RoomWorkersOptions } from './room-workers.ts';
export { MemoryDirectory } from './memory-directory.ts';
export type {
  ClaimQuery, ClaimRefusal, ClaimResult, Directory, MaybePromise, ProcessRecord,
  RoomChange, RoomListing, RoomMetadata, RoomQuery, SeatRecord,
} from './directory.ts';
export { MatchmakingError } from './matchmaker.ts';
export type { CreateOptions, JoinOrCreateOptions, Matchmaker, MatchmakingReason, RequestOptions, RoomList } from './matchmaker.ts';
export { seatedTransport } from './seat.ts';
export type { Seat } from './seat.ts';
export { metricsText } from './room-stats.ts';
export type { RoomServerStats, RoomStats, WorkerStats } from './room-stats.ts';
export { createMatchmakerClient } from './matchmaker-client.ts';
export type { MatchmakerClientOptions } from './matchmaker-client.ts';
