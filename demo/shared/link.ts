// Link conditions shared by both ends of the demo: the client's network-panel presets
// (demo/client/network.ts, conditionClient) and the server's DEMO_LINK_MS /
// DEMO_JITTER_MS / DEMO_LOSS environment (demo/server/main.ts, conditionServer) are
// both a round trip added on top of the real network, split evenly between the two
// directions, with the loss applied to each direction.
import type { LinkOptions } from '../../src/index.ts';

export interface LinkSpec {
  /** Round trip added (ms), half each way. */
  readonly rttMs: number;
  /** Jitter of the round trip (± ms), half each way. */
  readonly jitterMs: number;
  /** Loss per direction, 0..1 (unreliable messages lost; reliable ones retransmitted late). */
  readonly loss: number;
}

export function linkOptions(spec: LinkSpec): { up: LinkOptions; down: LinkOptions } {
  const one: LinkOptions = { latencyMs: spec.rttMs / 2, jitterMs: spec.jitterMs / 2, loss: spec.loss };
  return { up: one, down: { ...one } };
}

/** What `DEMO_LINK_MS` (round trip), `DEMO_JITTER_MS` and `DEMO_LOSS` (0..1) ask the server to add; undefined when none is set. */
export function linkFromEnv(env: Readonly<Record<string, string | undefined>>): LinkSpec | undefined {
  const read = (name: string, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return 0;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > max) throw new Error(`react-netcode: ${name} must be a number from 0 to ${max}, got '${raw}'; unset it for no added latency.`);
    return value;
  };
  const spec = { rttMs: read('DEMO_LINK_MS', 10_000), jitterMs: read('DEMO_JITTER_MS', 10_000), loss: read('DEMO_LOSS', 1) };
  return spec.rttMs === 0 && spec.jitterMs === 0 && spec.loss === 0 ? undefined : spec;
}

/** "150 ms ±20, 5% loss" */
export function describeLink(spec: LinkSpec): string {
  return `${spec.rttMs} ms ±${spec.jitterMs}, ${+(spec.loss * 100).toFixed(2)}% loss`;
}
