// Shared controls: the link conditions every story exposes, and how they become the
// conditioner's options (the same jitter and loss on both directions, latency split evenly).
import type { ArgTypes } from '@storybook/react-vite';
import type { LinkConditions } from './scene.ts';

export interface LinkArgs {
  /** Round-trip time in ms (half each way). */
  rttMs: number;
  /** ± ms on each packet, each way. */
  jitterMs: number;
  /** 0..1 of unreliable packets dropped, each way (reliable ones are retransmitted). */
  loss: number;
  /** Seed of the conditioner: the same seed gives the same losses and delays. */
  seed: number;
}

export const linkArgs: LinkArgs = { rttMs: 150, jitterMs: 10, loss: 0.05, seed: 1 };

export const linkArgTypes: Partial<ArgTypes<LinkArgs>> = {
  rttMs: { control: { type: 'range', min: 0, max: 500, step: 10 }, description: 'Round-trip time, ms (half each way)' },
  jitterMs: { control: { type: 'range', min: 0, max: 60, step: 1 }, description: '± delay per packet, ms, each way' },
  loss: { control: { type: 'range', min: 0, max: 0.5, step: 0.01 }, description: 'Share of unreliable packets dropped, each way' },
  seed: { control: { type: 'number' }, description: 'Conditioner seed (same seed → same losses)' },
};

export function linkConditions(args: LinkArgs, seedOffset = 0): LinkConditions {
  const each = { latencyMs: args.rttMs / 2, jitterMs: args.jitterMs, loss: args.loss };
  return { seed: args.seed + seedOffset, up: { ...each }, down: { ...each } };
}

/** A React key that changes when any arg changes: remount the whole scene with the new setup. */
export function argsKey(args: object): string {
  return JSON.stringify(args);
}
