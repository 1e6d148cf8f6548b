import { describe, expect, it } from 'vitest';
import { createClient, defineProtocol, field, ghost, LoopbackNetwork } from '../../src/index.ts';

const protocol = defineProtocol({ ghosts: { cube: ghost({ x: field.f32() }) } });

describe('client.requirePrediction()', () => {
  it('returns the prediction when it is on, and throws a usage error saying what to do when it is off', () => {
    const network = new LoopbackNetwork();
    const on = createClient({ protocol, transport: network.createClient() });
    expect(on.requirePrediction()).toBe(on.prediction);
    const off = createClient({ protocol, transport: network.createClient(), prediction: false });
    expect(off.prediction).toBeUndefined();
    expect(() => off.requirePrediction()).toThrow(
      'react-netcode: this client has no prediction (it was created with prediction: false); leave the option out to predict, or check client.prediction for undefined.',
    );
  });
});
