// @vitest-environment jsdom
// The smaller hooks: typed RPCs both ways, NetworkTime as a ref (no re-render per
// tick), useGhost / useLocalGhost, and the documented errors outside a provider
// or for names the protocol does not declare.

import { act, cleanup, render } from '@testing-library/react';
import { Profiler, type ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineProtocol, field, ghost, rpc } from '../../src/index.ts';
import * as plain from '../../src/react/index.ts';
import { createNetcode, type NetcodeContextValue } from '../../src/react/index.ts';
import { runnerProtocol, runnerSystems, type RunnerProtocol } from '../helpers/runner.ts';
import { createHarness, quiet } from './harness.tsx';

afterEach(cleanup);

const chat = defineProtocol({
  ghosts: { flag: ghost({ at: field.u16() }) },
  rpcs: { say: rpc.toServer({ text: field.string(64) }), said: rpc.toClient({ from: field.u16(), text: field.string(64) }) },
  join: { name: field.string(16) },
});
const nc = createNetcode(chat);
const rn = createNetcode(runnerProtocol, runnerSystems);

describe('useRpc / useSendRpc', () => {
  it('sends a typed RPC and handles the reply with the latest handler', async () => {
    const h = createHarness(chat);
    h.server.onRpc('say', (c, p) => h.server.send(c, 'said', { from: c.networkId, text: p.text.toUpperCase() }));
    const got: string[] = [];
    let send: ((payload: { text: string }) => void) | undefined;
    let status = '';
    function Chat({ tag }: { tag: string }): ReactNode {
      nc.useRpc('said', (p) => got.push(`${tag}:${p.from}:${p.text}`));
      send = nc.useSendRpc('say');
      status = nc.useConnection().status;
      return null;
    }
    const tree = (tag: string) => (
      <nc.NetcodeProvider transport={h.transport} join={{ name: 'ada' }} clientOptions={{ log: quiet }} clock={h.clock}>
        <Chat tag={tag} />
      </nc.NetcodeProvider>
    );
    const view = await act(async () => render(tree('a')));
    h.until(() => status === 'in-game', 'in game');
    const firstSend = send;
    act(() => send!({ text: 'hi' }));
    h.until(() => got.length === 1, 'the reply');
    act(() => view.rerender(tree('b'))); // a new handler closure: used without re-subscribing
    expect(send).toBe(firstSend); // the sender is stable
    act(() => send!({ text: 'again' }));
    h.until(() => got.length === 2, 'the second reply');
    expect(got).toEqual(['a:1:HI', 'b:1:AGAIN']);
  });
});

describe('useNetworkTime, useGhost, useLocalGhost', () => {
  it('NetworkTime is a live ref; useGhost gives a live ref and UI-rate selections; useLocalGhost finds our runner', async () => {
    const h = createHarness(runnerProtocol, runnerSystems);
    h.server.events.on('join', (c) => void h.server.spawn('runner', {}, { owner: c.networkId }));
    const other = h.server.spawn('runner', { position: { x: 5, y: 0, z: 0 } }); // nobody's
    let ctx: NetcodeContextValue<RunnerProtocol> | undefined;
    let time: ReturnType<typeof rn.useNetworkTime> | undefined;
    let local: ReturnType<typeof rn.useLocalGhost<'runner'>>;
    let state: ReturnType<typeof rn.useGhost<number | undefined>> | undefined;
    let renders = 0;
    function App(): ReactNode {
      ctx = rn.useNetcode();
      time = rn.useNetworkTime();
      local = rn.useLocalGhost('runner');
      state = rn.useGhost(other.id, (g) => (g.type === 'runner' ? g.components.position.x : undefined));
      return null;
    }
    await act(async () =>
      render(
        <rn.NetcodeProvider transport={h.transport} join={{ name: 'ada' }} clientOptions={{ log: quiet }} clock={h.clock}>
          <Profiler id="app" onRender={() => void renders++}>
            <App />
          </Profiler>
        </rn.NetcodeProvider>,
      ),
    );
    h.until(() => local !== undefined && state?.ghost !== undefined, 'both runners');
    expect(time!.current).toBe(ctx!.client.time);
    expect(local!.isLocal).toBe(true);
    expect(local!.id).not.toBe(other.id);
    expect(state!.ref.current).toBe(ctx!.client.world.get(other.id));
    expect(state!.selected).toBe(5);

    const rendersBefore = renders;
    const tickBefore = time!.current.predictedTick;
    h.frames(64); // 1000 ms: ~60 predicted ticks, 4 stats samples
    expect(time!.current.predictedTick - tickBefore).toBeGreaterThan(50); // the ref moved …
    expect(renders - rendersBefore).toBe(0); // … without a render: nothing this component selects changed

    h.server.despawn(other);
    h.until(() => state!.ghost === undefined, 'the despawn');
    expect(state!.ref.current).toBeUndefined();
    expect(state!.selected).toBeUndefined();
    expect(local).toBeDefined();
  });
});

describe('errors', () => {
  it('a hook outside the provider throws the documented react-netcode error', () => {
    const quietConsole = vi.spyOn(console, 'error').mockImplementation(() => {});
    const hooks: [string, () => unknown][] = [
      ['useConnection', () => plain.useConnection()],
      ['useGhosts', () => plain.useGhosts('ball')],
      ['useGhost', () => plain.useGhost(1)],
      ['useLocalGhost', () => plain.useLocalGhost('ball')],
      ['useNetworkTime', () => plain.useNetworkTime()],
      ['useInput', () => plain.useInput(() => {})],
      ['usePredictedSpawn', () => plain.usePredictedSpawn('ball')],
      ['useRpc', () => plain.useRpc('said', () => {})],
      ['useSendRpc', () => plain.useSendRpc('say')],
      ['useNetStats', () => plain.useNetStats()],
      ['useNetcode', () => plain.useNetcode()],
    ];
    for (const [name, hook] of hooks) {
      function Outside(): null {
        hook();
        return null;
      }
      expect(() => render(<Outside />)).toThrow(`react-netcode: ${name} must be used inside <NetcodeProvider>; wrap your app (or the Canvas) in the provider returned by createNetcode(protocol).`);
      cleanup();
    }
    expect(() => render(<plain.NetGraph />)).toThrow('react-netcode: NetGraph must be used inside <NetcodeProvider>');
    quietConsole.mockRestore();
  });

  it('plain hooks reject ghost types and RPC names the protocol does not declare', async () => {
    const quietConsole = vi.spyOn(console, 'error').mockImplementation(() => {});
    const h = createHarness(chat);
    const cases: [() => unknown, string][] = [
      [() => plain.useGhosts('flga'), 'react-netcode: useGhosts("flga"): unknown ghost type; declare it in defineProtocol({ ghosts }) or fix the name (known: "flag").'],
      [() => plain.useRpc('sad', () => {}), 'react-netcode: useRpc("sad"): unknown RPC; declare it in defineProtocol({ rpcs }) or fix the name (known: "say" (toServer), "said" (toClient)).'],
      [() => plain.useRpc('say', () => {}), 'react-netcode: useRpc("say"): the RPC is declared toServer; send it with useSendRpc instead.'],
      [() => plain.useSendRpc('said'), 'react-netcode: useSendRpc("said"): the RPC is declared toClient; handle it with useRpc instead.'],
    ];
    for (const [hook, message] of cases) {
      function Bad(): null {
        hook();
        return null;
      }
      await expect(
        act(async () =>
          render(
            <nc.NetcodeProvider transport={h.transport} clientOptions={{ log: quiet }} clock={h.clock}>
              <Bad />
            </nc.NetcodeProvider>,
          ),
        ),
      ).rejects.toThrow(message);
      cleanup();
    }
    quietConsole.mockRestore();
  });
});
