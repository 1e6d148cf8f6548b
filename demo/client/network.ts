// The link conditioner presets of the network panel. Each preset is a round trip
// added on top of the real network: latency and jitter are split evenly between
// the two directions, loss applies to each direction (../shared/link.ts).
import { conditionClient, realTimeScheduler, type ConditionedClientTransport } from 'react-netcode';
import { seatedTransport, type Seat } from 'react-netcode/rooms';
import { createSocketIoClientTransport } from 'react-netcode/socket-io/client';
import { createWebRtcClientTransport } from 'react-netcode/webrtc/client';
import { linkOptions, type LinkSpec } from '../shared/link.ts';

export { linkOptions } from '../shared/link.ts';

export interface Preset extends LinkSpec {
  readonly id: string;
  readonly label: string;
}

export const PRESETS: readonly Preset[] = [
  { id: 'none', label: 'none', rttMs: 0, jitterMs: 0, loss: 0 },
  { id: '50', label: '50 ms', rttMs: 50, jitterMs: 0, loss: 0 },
  { id: '150', label: '150 ms ±20, 5% loss', rttMs: 150, jitterMs: 20, loss: 0.05 },
  { id: '300', label: '300 ms ±50, 10% loss', rttMs: 300, jitterMs: 50, loss: 0.1 },
];

/**
 * A socket.io transport to the seat's server (this page's origin unless the seat says; path /netcode) that presents the seat
 * — with `?webrtc`, a WebRTC data channel for the unreliable channel over it — behind a link conditioner.
 */
export function createDemoTransport(preset: Preset, seat: Seat): ConditionedClientTransport {
  const seated = seatedTransport(createSocketIoClientTransport(seat.url ?? window.location.origin), seat);
  const inner = new URLSearchParams(window.location.search).has('webrtc') ? createWebRtcClientTransport(seated) : seated;
  return conditionClient(inner, { seed: Math.floor(Math.random() * 0x7fffffff), ...linkOptions(preset) }, realTimeScheduler);
}
