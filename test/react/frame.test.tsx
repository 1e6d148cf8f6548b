// @vitest-environment jsdom
// The frame driver: one place steps the engine. The provider's loop steps it until
// a component claims the frame (as <NetcodeFrame/> does in a Canvas), then that
// component's `step(now)` does; a step runs client.update, then the UI-rate store,
// then the onStep listeners. Plus the failure path of `init`.

import { act, cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createNetcode, type NetcodeContextValue, type NetcodeStoreState } from '../../src/react/index.ts';
import { arena, arenaSystems, type Arena } from '../helpers/arena.ts';
import { createHarness, FRAME_MS, quiet } from './harness.tsx';

afterEach(cleanup);

const { NetcodeProvider, useNetcode, useConnection } = createNetcode(arena, arenaSystems);

async function mount(props: { init?: () => Promise<void> } = {}) {
  const h = createHarness(arena, arenaSystems);
  const ref: { ctx?: NetcodeContextValue<Arena>; status?: string; closeReason?: string | undefined; closeCode?: string | undefined; connect?: () => void } = {};
  function Probe() {
    ref.ctx = useNetcode();
    const c = useConnection();
    ref.status = c.status;
    ref.closeReason = c.closeReason;
    ref.closeCode = c.closeCode;
    ref.connect = c.connect;
    return null;
  }
  await act(async () =>
    render(
      <NetcodeProvider transport={h.transport} join={{ name: 'ada' }} clientOptions={{ log: quiet }} clock={h.clock} {...props}>
        <Probe />
      </NetcodeProvider>,
    ),
  );
  return { h, ref };
}

describe('frame driver', () => {
  it('the provider loop yields to a claim and resumes on release; one claim at a time', async () => {
    const { h, ref } = await mount();
    const { frame, client } = ref.ctx!;
    h.until(() => client.status === 'in-game', 'in game');
    const steps: number[] = [];
    frame.onStep((now) => steps.push(now));
    h.frames(2);
    expect(steps).toHaveLength(2); // the provider's loop: one step per frame
    const release = frame.claim();
    expect(h.clock.pending).toBe(0); // the loop's next frame was cancelled
    expect(() => frame.claim()).toThrow('react-netcode: the frame driver is already claimed; mount exactly one <NetcodeFrame/> per <NetcodeProvider>.');
    h.frames(3);
    expect(steps).toHaveLength(2); // nobody steps while claimed …
    const t = h.clock.now();
    act(() => frame.step(t)); // … except the claimant
    expect(steps).toEqual([t - 4 * FRAME_MS, t - 3 * FRAME_MS, t]);
    release();
    release(); // idempotent
    expect(h.clock.pending).toBe(1);
    h.frames(1);
    expect(steps).toHaveLength(4); // the loop is back
  });

  it('a step updates the client, then the store, then calls onStep listeners', async () => {
    const { h, ref } = await mount();
    const { frame, client, store } = ref.ctx!;
    h.until(() => client.status === 'in-game', 'in game');
    const seen: { worldSize: number; listed: number }[] = [];
    frame.onStep(() => seen.push({ worldSize: client.world.size, listed: store.getState().ghostsVersion }));
    const version = store.getState().ghostsVersion;
    h.server.spawn('ball', { position: { x: 0, y: 0, z: 0 }, velocity: { x: 1, y: 0, z: 0 } });
    h.until(() => client.world.size === 1, 'the spawn');
    // In the listener of the step that applied the spawn, the store already shows it.
    expect(seen.at(-1)).toEqual({ worldSize: 1, listed: version + 1 });
  });

  it('a failing init closes with a react-netcode reason and never connects', async () => {
    const { h, ref } = await mount({ init: () => Promise.reject(new Error('wasm failed to load')) });
    h.frames(5);
    expect(ref.status).toBe('closed');
    expect(ref.closeReason).toBe('react-netcode: init() failed: wasm failed to load; fix the init promise passed to <NetcodeProvider init>, then remount the provider.');
    expect(ref.closeCode).toBe('init-failed');
    expect((ref.ctx!.store.getState() as NetcodeStoreState).lastError).toBe(ref.closeReason);
    expect(h.transports.connects).toBe(0);
  });

  it('useConnection().connect() reconnects after the server closed the connection (closeCode \'server-closed\', cleared by the new session)', async () => {
    const { h, ref } = await mount();
    const { client } = ref.ctx!;
    h.until(() => client.status === 'in-game', 'in game');
    h.server.kick(h.server.connections.get(1)!, 'kicked for testing');
    h.until(() => ref.status === 'closed', 'closed');
    expect(ref.closeReason).toBe('kicked for testing');
    expect(ref.closeCode).toBe('server-closed');
    act(() => ref.connect!()); // e.g. a Retry button
    h.until(() => ref.status === 'in-game', 'in game again (auto-join)');
    expect([ref.closeCode, ref.closeReason]).toEqual([undefined, undefined]);
    expect(h.transports.connects).toBe(2);
  });
});
