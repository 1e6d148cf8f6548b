// @vitest-environment jsdom
// Leaving on pagehide: a closed page leaves at once (the server ends the connection and
// destroys the player the same tick the Close arrives, not after the 10 s resume grace);
// a page kept for the back/forward cache, or a dropped link, still resumes.

import { act, cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { NetClient } from '../../src/index.ts';
import { leaveOnPageHide, PAGE_CLOSED_REASON } from '../../src/index.ts';
import { createNetcode } from '../../src/react/index.ts';
import { runnerProtocol, runnerSystems, type RunnerProtocol } from '../helpers/runner.ts';
import { createHarness, FRAME_MS, quiet } from './harness.tsx';

afterEach(cleanup);

const rn = createNetcode(runnerProtocol, runnerSystems);

/** A provider in game over a harness whose server spawns a runner per player; the server's leave events with their time. */
async function inGame(props: { leaveOnPageHide?: boolean } = {}) {
  const h = createHarness(runnerProtocol, runnerSystems, { resumeGraceMs: 10_000 });
  h.server.events.on('join', (c) => h.server.spawn('runner', {}, { owner: c.networkId }));
  const leaves: { reason: string; at: number }[] = [];
  h.server.events.on('leave', (_c, reason) => leaves.push({ reason, at: h.clock.now() }));
  let client: NetClient<RunnerProtocol> | undefined;
  function Probe() {
    client = rn.useNetcode().client;
    return null;
  }
  await act(async () =>
    render(
      <rn.NetcodeProvider transport={h.transport} join={{ name: 'ada' }} clientOptions={{ log: quiet }} clock={h.clock} {...props}>
        <Probe />
      </rn.NetcodeProvider>,
    ),
  );
  h.until(() => client!.status === 'in-game' && h.server.world.size === 1, 'in game');
  return { h, client: client!, leaves };
}

const pagehide = (persisted: boolean): void => void act(() => void window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted })));

describe('leaving when the page is closed', () => {
  it('pagehide sends the Close at once: the server ends the connection and destroys the player within two frames', async () => {
    const { h, client, leaves } = await inGame();
    const closedAt = h.clock.now();
    pagehide(false);
    expect(client.status).toBe('closed');
    expect(client.state.closeReason).toBe(PAGE_CLOSED_REASON);
    h.frames(2);
    expect(leaves).toEqual([{ reason: PAGE_CLOSED_REASON, at: expect.any(Number) }]);
    expect(leaves[0]!.at - closedAt).toBeLessThanOrEqual(2 * FRAME_MS);
    expect(h.server.connections.size).toBe(0);
    expect(h.server.world.size).toBe(0);
  });

  it('a page kept in the back/forward cache (persisted) is not left', async () => {
    const { h, client, leaves } = await inGame();
    pagehide(true);
    h.frames(10);
    expect(client.status).toBe('in-game');
    expect(leaves).toEqual([]);
  });

  it('leaveOnPageHide={false} keeps the old behaviour: nothing happens on pagehide', async () => {
    const { h, client, leaves } = await inGame({ leaveOnPageHide: false });
    pagehide(false);
    h.frames(10);
    expect(client.status).toBe('in-game');
    expect(leaves).toEqual([]);
  });

  it('a dropped link still resumes: same networkId, the player kept, no leave', async () => {
    const { h, client, leaves } = await inGame();
    const id = client.networkId;
    const connection = h.server.connections.get(id!)!;
    h.network.server.disconnect(connection.peer, 'network down');
    h.until(() => client.status === 'reconnecting', 'the drop');
    h.until(() => client.status === 'in-game', 'the resume', 400);
    expect(client.networkId).toBe(id);
    expect(h.server.world.size).toBe(1);
    expect(leaves).toEqual([]);
  });

  it('leaveOnPageHide(client, target) works without React; its off function stops listening; persisted pages are kept', () => {
    const reasons: string[] = [];
    const target = new EventTarget();
    const off = leaveOnPageHide({ leave: (r) => void reasons.push(r ?? '') }, target as never);
    target.dispatchEvent(Object.assign(new Event('pagehide'), { persisted: true }));
    target.dispatchEvent(Object.assign(new Event('pagehide'), { persisted: false }));
    off();
    target.dispatchEvent(new Event('pagehide'));
    expect(reasons).toEqual([PAGE_CLOSED_REASON]);
  });
});
