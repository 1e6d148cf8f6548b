// Entry point of `react-netcode/webrtc`: WebRTC data channels for the unreliable channel,
// signalled over (and falling back to) a socket.io transport. Under the `browser` export
// condition this entry is client.ts alone; the server half loads node-datachannel lazily.
export { createWebRtcServerTransport, advertise } from './server.ts';
export type { WebRtcServerTransport, WebRtcServerTransportOptions } from './server.ts';
export { createWebRtcClientTransport } from './client.ts';
export type { WebRtcClientTransport, WebRtcClientTransportOptions } from './client.ts';
export { MAX_DATAGRAM_BYTES } from './signal.ts';
export type { IceServer, PeerConnectionConstructor } from './signal.ts';
export type { SetupLimits } from './rate-limit.ts';
