// The demo's link conditions from the environment (demo/shared/link.ts): what the
// server's DEMO_LINK_MS / DEMO_JITTER_MS / DEMO_LOSS turn into, and the errors.
import { describe, expect, it } from 'vitest';
import { describeLink, linkFromEnv, linkOptions } from '../../demo/shared/link.ts';

describe('demo link from the environment', () => {
  it('is off unless something is set, and splits a round trip evenly between the directions', () => {
    expect(linkFromEnv({})).toBeUndefined();
    expect(linkFromEnv({ DEMO_LINK_MS: '0', DEMO_LOSS: '' })).toBeUndefined();
    const spec = linkFromEnv({ DEMO_LINK_MS: '150', DEMO_JITTER_MS: '20', DEMO_LOSS: '0.05' })!;
    expect(describeLink(spec)).toBe('150 ms ±20, 5% loss');
    // 150 ms round trip ± 20 → 75 ms ± 10 each way; the loss applies to each direction
    expect(linkOptions(spec)).toEqual({ up: { latencyMs: 75, jitterMs: 10, loss: 0.05 }, down: { latencyMs: 75, jitterMs: 10, loss: 0.05 } });
    expect(linkFromEnv({ DEMO_LOSS: '0.1' })).toEqual({ rttMs: 0, jitterMs: 0, loss: 0.1 });
  });

  it('names the variable and the range of a bad value', () => {
    expect(() => linkFromEnv({ DEMO_LINK_MS: 'fast' })).toThrow(/^react-netcode: DEMO_LINK_MS must be a number from 0 to 10000, got 'fast'/);
    expect(() => linkFromEnv({ DEMO_LOSS: '5' })).toThrow(/DEMO_LOSS must be a number from 0 to 1/);
  });
});
