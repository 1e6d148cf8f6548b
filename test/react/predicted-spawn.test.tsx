// @vitest-environment jsdom
// usePredictedSpawn: with the hook's classifier installed, a rock tossed by a key
// press shows in useGhosts at once (origin 'predicted'), and the server's rock
// adopts it — same handle, so the same React key and DOM node — when it arrives.

import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, spawnIdClassifier, system } from '../../src/index.ts';
import { createNetcode, type NetcodeContextValue } from '../../src/react/index.ts';
import { createHarness, quiet } from './harness.tsx';

afterEach(cleanup);

const toss = defineProtocol({
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted', 'interpolated'] }),
    rock: ghost({ position: field.vec3({ quantize: 1000 }), spawnId: field.u32() }, { modes: ['predicted', 'interpolated'] }),
  },
  input: { toss: field.event() },
  join: { name: field.string(8) },
});
type Toss = typeof toss;

const tossSystems = defineSystems(toss, [
  system.shared('toss', (world, ctx) => {
    for (const p of world.query('player')) {
      for (const spawnId of ctx.spawnIds(p, 'toss')) ctx.spawn('rock', { spawnId }, { owner: p.owner });
    }
  }),
  system.shared('fly', (world, ctx) => {
    for (const r of world.query('rock')) r.components.position.x += 2 * ctx.dt;
  }),
]);

const nc = createNetcode(toss, tossSystems);
const controls = [nc.pressOnKey('Space', 'toss')];

describe('usePredictedSpawn', () => {
  it('lists the predicted rock at once and keeps its handle when the server twin adopts it', async () => {
    const h = createHarness(toss, tossSystems);
    h.server.events.on('join', (c) => void h.server.spawn('player', {}, { owner: c.networkId }));
    let ctx: NetcodeContextValue<Toss> | undefined;
    let waiting = -1;
    let matched = -1;
    function Rocks() {
      ctx = nc.useNetcode();
      nc.useInput(controls);
      const spawn = nc.usePredictedSpawn('rock', { classify: spawnIdClassifier() });
      waiting = spawn.waiting.length;
      matched = spawn.stats.matched;
      return (
        <ul>
          {nc.useGhosts('rock').map((r) => (
            <li key={r.handle} data-origin={r.origin}>
              rock
            </li>
          ))}
        </ul>
      );
    }
    const view = await act(async () =>
      render(
        <nc.NetcodeProvider transport={h.transport} join={{ name: 'ada' }} clientOptions={{ log: quiet }} clock={h.clock}>
          <Rocks />
        </nc.NetcodeProvider>,
      ),
    );
    h.until(() => ctx!.client.prediction?.lastTick !== undefined && ctx!.client.world.size === 1, 'predicting the own player');
    h.frames(32);
    act(() => void window.dispatchEvent(new KeyboardEvent('keydown', { code: 'Space' })));
    h.until(() => screen.queryAllByRole('listitem').length === 1, 'the predicted rock');
    const item = screen.getByRole('listitem');
    expect(item.dataset.origin).toBe('predicted');
    expect(waiting).toBe(1);
    const handle = [...ctx!.client.world.query('rock')][0]!.handle;

    h.until(() => matched === 1, 'the server twin classified');
    const rock = [...ctx!.client.world.query('rock')][0]!;
    expect(rock.handle).toBe(handle); // adopted: same object and handle …
    expect(rock.id & 0x8000_0000).toBe(0); // … now with the server's id (client-side ids have the top bit set)
    expect(waiting).toBe(0);
    expect(screen.getByRole('listitem')).toBe(item); // … so React kept the same node
    expect(h.server.world.size).toBe(2); // the server's player and its rock

    // The hook's classifier is uninstalled on unmount (the protocol declares none: undefined comes back).
    const spawns = ctx!.client.spawns;
    act(() => view.unmount());
    expect(spawns.setClassifier('rock', undefined)).toBeUndefined();
  });
});
