// @vitest-environment jsdom
// <NetcodeProvider> over a loopback with a server in the test: the status phases
// (loading while init runs), ghost lists keyed by handle, one connection under
// StrictMode, and a clean unmount (no transport, frame, store or DOM listener left).

import { act, cleanup, render, screen } from '@testing-library/react';
import { StrictMode, useEffect } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NetClient } from '../../src/index.ts';
import { createNetcode, keyboardAxes, pressOnKey, type NetcodeContextValue, type NetcodeStore } from '../../src/react/index.ts';
import { arena, arenaSystems, type Arena } from '../helpers/arena.ts';
import { runnerProtocol, runnerSystems } from '../helpers/runner.ts';
import { createHarness, quiet } from './harness.tsx';

afterEach(cleanup);

const { NetcodeProvider, useConnection, useGhosts, useNetcode } = createNetcode(arena, arenaSystems);

/** Logs each status it renders with, and joins by hand once connected. */
function Status({ log, join = true }: { log: string[]; join?: boolean }) {
  const connection = useConnection();
  useEffect(() => {
    log.push(connection.status);
    if (join && connection.status === 'connected') connection.join({ name: 'ada' });
  }, [connection, log, join]);
  return <p data-testid="status">{connection.status}</p>;
}

function Balls() {
  const balls = useGhosts('ball');
  return (
    <ul>
      {balls.map((b) => (
        <li key={b.handle} data-handle={b.handle} data-id={b.id}>
          ball
        </li>
      ))}
    </ul>
  );
}

/** Hands the context to the test. */
function Probe({ into }: { into: { ctx?: NetcodeContextValue<Arena> } }) {
  into.ctx = useNetcode();
  return null;
}

const handles = () => screen.queryAllByRole('listitem').map((li) => Number(li.dataset.handle));

describe('<NetcodeProvider>', () => {
  it('goes loading → connecting → connected → joining → in-game, and lists ghosts by handle', async () => {
    const h = createHarness(arena, arenaSystems);
    let resolveInit: () => void = () => {};
    const init = vi.fn(() => new Promise<void>((resolve) => (resolveInit = resolve)));
    const log: string[] = [];
    const probe: { ctx?: NetcodeContextValue<Arena> } = {};
    await act(async () => {
      render(
        <NetcodeProvider transport={h.transport} clientOptions={{ log: quiet }} clock={h.clock} init={init}>
          <Status log={log} />
          <Balls />
          <Probe into={probe} />
        </NetcodeProvider>,
      );
    });
    expect(log).toEqual(['loading']);
    h.frames(10); // init still pending: the provider's loop runs, nothing connects
    expect(init).toHaveBeenCalledTimes(1);
    expect(h.transports.created).toBe(0); // the factory runs at connect time only
    expect(h.network.pending).toBe(0);
    expect(screen.getByTestId('status').textContent).toBe('loading');

    await act(async () => resolveInit());
    expect(log).toEqual(['loading', 'connecting']);
    h.until(() => log.at(-1) === 'in-game', 'in game');
    expect(log).toEqual(['loading', 'connecting', 'connected', 'joining', 'in-game']);
    expect(probe.ctx!.store.getState().networkId).toBe(1); // the first connection of this server

    const [a, b, c] = [0, 1, 2].map((i) => h.server.spawn('ball', { position: { x: i, y: 0, z: 0 }, velocity: { x: 1, y: 0, z: 0 } }));
    h.until(() => handles().length === 3, 'three balls listed');
    const client = probe.ctx!.client;
    const byId = (id: number) => client.world.get(id)!.handle;
    expect(handles()).toEqual([byId(a!.id), byId(b!.id), byId(c!.id)]); // spawn order, keyed by the client's handles
    const itemOfC = screen.getAllByRole('listitem')[2];

    h.server.despawn(b!);
    h.until(() => handles().length === 2, 'the despawn reaches the list');
    expect(handles()).toEqual([byId(a!.id), byId(c!.id)]);
    expect(screen.getAllByRole('listitem')[1]).toBe(itemOfC); // same key → the same DOM node survives
  });

  it('auto-joins with the join prop and opens exactly one connection under StrictMode', async () => {
    const h = createHarness(arena, arenaSystems);
    const connects: number[] = [];
    h.server.events.on('connect', (c) => connects.push(c.networkId));
    const init = vi.fn(async () => {});
    const log: string[] = [];
    await act(async () => {
      render(
        <StrictMode>
          <NetcodeProvider transport={h.transport} join={{ name: 'ada' }} clientOptions={{ log: quiet }} clock={h.clock} init={init}>
            <Status log={log} join={false} />
          </NetcodeProvider>
        </StrictMode>,
      );
    });
    h.until(() => log.at(-1) === 'in-game', 'in game');
    h.frames(30);
    expect(init).toHaveBeenCalledTimes(1); // shared by StrictMode's two effect runs
    expect(h.transports.created).toBe(1);
    expect(h.transports.connects).toBe(1);
    expect(connects).toEqual([1]);
    expect(h.server.connections.size).toBe(1);
    expect(h.clock.pending).toBe(1); // one loop, not two
  });

  it('unmounting closes the transport and leaves no frame, store subscription or listener', async () => {
    const h = createHarness(runnerProtocol, runnerSystems);
    const rn = createNetcode(runnerProtocol, runnerSystems);
    const live = new Map<string, number>();
    const track = (target: EventTarget, name: string) => {
      const add = target.addEventListener.bind(target);
      const remove = target.removeEventListener.bind(target);
      vi.spyOn(target, 'addEventListener').mockImplementation((type, listener, options) => {
        live.set(`${name}:${type}`, (live.get(`${name}:${type}`) ?? 0) + 1);
        add(type, listener, options);
      });
      vi.spyOn(target, 'removeEventListener').mockImplementation((type, listener, options) => {
        live.set(`${name}:${type}`, (live.get(`${name}:${type}`) ?? 0) - 1);
        remove(type, listener, options);
      });
    };
    track(window, 'window');
    track(document, 'document');
    const controls = [keyboardAxes({ up: 'KeyW', down: 'KeyS', left: 'KeyA', right: 'KeyD' }), pressOnKey('Space', 'jump')];
    let ctx: NetcodeContextValue<typeof runnerProtocol> | undefined;
    function App() {
      ctx = rn.useNetcode();
      rn.useInput(controls);
      rn.useGhosts('runner');
      rn.useNetStats();
      rn.useConnection();
      return null;
    }
    const leaves: string[] = [];
    h.server.events.on('leave', (_c, reason) => leaves.push(reason));
    const view = await act(async () =>
      render(
        <rn.NetcodeProvider transport={h.transport} join={{ name: 'ada' }} clientOptions={{ log: quiet }} clock={h.clock}>
          <App />
        </rn.NetcodeProvider>,
      ),
    );
    h.until(() => ctx!.client.status === 'in-game', 'in game');
    h.frames(20);
    const client = ctx!.client as NetClient<typeof runnerProtocol>;
    const store = ctx!.store as NetcodeStore;
    expect(store.subscriberCount).toBeGreaterThan(0);
    expect(client.events.listenerCount).toBeGreaterThan(0);
    expect(live.get('window:keydown')).toBe(2); // one per binding
    expect(live.get('document:visibilitychange')).toBe(3); // pauseWhenHidden + one per binding

    act(() => view.unmount());
    expect(h.clock.pending).toBe(0); // no requestFrame left
    expect(store.subscriberCount).toBe(0);
    expect(client.events.listenerCount).toBe(0);
    expect(client.ghosts.events.listenerCount).toBe(0);
    expect(client.status).toBe('closed');
    expect([...live.values()].every((n) => n === 0)).toBe(true);
    h.frames(2); // the server takes in the Close and the disconnect
    expect(leaves).toEqual(['react-netcode: <NetcodeProvider> unmounted']);
    expect(h.server.connections.size).toBe(0);
    expect(h.network.pending).toBe(0);
  });
});
