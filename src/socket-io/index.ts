// Entry point of `react-netcode/socket-io`: the socket.io transports, the only
// part of the library that depends on socket.io (server) and socket.io-client.
export { createSocketIoServerTransport } from './server.ts';
export type { SocketIoServerTransport, SocketIoServerTransportOptions } from './server.ts';
export { createSocketIoClientTransport } from './client.ts';
export type { ConnectRetryOptions, SocketIoClientTransportOptions } from './client.ts';
export { serveRooms } from './rooms-http.ts';
export type { ServeRoomsOptions, ServedRooms } from './rooms-http.ts';
