// The link conditioner presets of the network panel. Each preset is a round trip
// added on top of the real network: latency and jitter are split evenly between
// the two directions, loss applies to each direction.
import { conditionClient, realTimeScheduler, type ConditionedClientTransport, type LinkOptions } from 'react-netcode';
import { createSocketIoClientTransport } from 'react-netcode/socket-io/client';

export interface Preset {
  readonly id: string;
  readonly label: string;
  readonly rttMs: number;
  readonly jitterMs: number;
  readonly loss: number;
}

export const PRESETS: readonly Preset[] = [
  { id: 'none', label: 'none', rttMs: 0, jitterMs: 0, loss: 0 },
  { id: '50', label: '50 ms', rttMs: 50, jitterMs: 0, loss: 0 },
  { id: '150', label: '150 ms ±20, 5% loss', rttMs: 150, jitterMs: 20, loss: 0.05 },
  { id: '300', label: '300 ms ±50, 10% loss', rttMs: 300, jitterMs: 50, loss: 0.1 },
];

export function linkOptions(preset: Preset): { up: LinkOptions; down: LinkOptions } {
  const one: LinkOptions = { latencyMs: preset.rttMs / 2, jitterMs: preset.jitterMs / 2, loss: preset.loss };
  return { up: one, down: { ...one } };
}

/** A socket.io transport to this page's origin (path /netcode) behind a link conditioner. */
export function createDemoTransport(preset: Preset): ConditionedClientTransport {
  const inner = createSocketIoClientTransport(window.location.origin);
  return conditionClient(inner, { seed: Math.floor(Math.random() * 0x7fffffff), ...linkOptions(preset) }, realTimeScheduler);
}
