// @vitest-environment jsdom
// The unreliable channel's path in the client's stats: StatsSampler copies the transport's
// `unreliablePath` into each sample (absent when the transport does not say), and NetGraph
// shows it as text.
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { NetClient, Protocol } from '../../src/index.ts';
import { NetcodeContext } from '../../src/react/context.ts';
import { NetGraph } from '../../src/react/index.ts';
import { createNetcodeStore, StatsSampler } from '../../src/react/store.ts';

afterEach(cleanup);

function fakeClient(transportStats: object | undefined): NetClient<Protocol> {
  return {
    clock: { rttMs: 20, jitterMs: 1 },
    traffic: { bytesIn: 0, bytesOut: 0 },
    prediction: undefined,
    inputReports: { late: 0, missing: 0 },
    transportStats,
  } as unknown as NetClient<Protocol>;
}

describe('unreliablePath in the stats', () => {
  it('is copied from the transport, and absent when the transport does not say', () => {
    const stats = { unreliableDropped: 0, unreliablePath: 'socket.io' };
    const sampler = new StatsSampler(fakeClient(stats));
    expect(sampler.sample(0)!.unreliablePath).toBe('socket.io');
    stats.unreliablePath = 'webrtc';
    expect(sampler.sample(300)!.unreliablePath).toBe('webrtc');
    expect(new StatsSampler(fakeClient(undefined)).sample(0)).not.toHaveProperty('unreliablePath');
  });

  it('NetGraph shows the path', () => {
    const store = createNetcodeStore();
    const sample = { ...new StatsSampler(fakeClient({ unreliableDropped: 0, unreliablePath: 'webrtc' })).sample(0)!, at: 0 };
    store.setState({ statsHistory: [sample] } as never);
    const { container } = render(
      <NetcodeContext.Provider value={{ store } as never}>
        <NetGraph />
      </NetcodeContext.Provider>,
    );
    expect(container.querySelector('[data-label="path"]')?.textContent).toBe('udp: webrtc');
  });
});
