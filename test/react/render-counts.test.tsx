// @vitest-environment jsdom
// React re-renders at UI rate only (docs/architecture.md, house rule 5): with 100 moving
// ghosts over 120 ticks, a list using useGhosts commits once per spawn/despawn batch,
// and the UI-rate hooks commit at most 4 times per second of injected time.

import { act, cleanup, render } from '@testing-library/react';
import { Profiler, type ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Ghost } from '../../src/index.ts';
import { createNetcode, type NetcodeContextValue } from '../../src/react/index.ts';
import { arena, arenaSystems, type Arena } from '../helpers/arena.ts';
import { createHarness, quiet } from './harness.tsx';

afterEach(cleanup);

const { NetcodeProvider, useConnection, useGhosts, useNetStats, useNetcode, useGhost } = createNetcode(arena, arenaSystems);

function BallList() {
  const balls = useGhosts('ball');
  return <p>{balls.length} balls</p>;
}
function PlayerList() {
  return <p>{useGhosts('player').length} players</p>;
}
function Stats() {
  return <p>{useNetStats().rttMs}</p>;
}
function Status() {
  return <p>{useConnection().status}</p>;
}
function FirstBall({ id }: { id: number }) {
  const { selected } = useGhost(id, (g) => (g.type === 'ball' ? Math.round(g.components.position.x) : 0));
  return <p>{selected}</p>;
}

describe('render counts', () => {
  it('100 moving ghosts over 120 ticks: useGhosts commits only on spawn/despawn, UI-rate hooks ≤ 4 per second', async () => {
    // One snapshot carries all 100 spawns (the default 1200-byte budget would spread them over several).
    const h = createHarness(arena, arenaSystems, { snapshotBudgetBytes: 16_000 });
    const commits = { balls: 0, players: 0, stats: 0, status: 0, ball: 0 };
    const count = (key: keyof typeof commits) => () => void commits[key]++;
    let ctx: NetcodeContextValue<Arena> | undefined;
    function Probe(): ReactNode {
      ctx = useNetcode();
      return null;
    }
    // 100 balls exist before the client connects: they arrive with its first snapshots.
    const balls: Ghost<Arena, 'ball'>[] = [];
    for (let i = 0; i < 100; i++) balls.push(h.server.spawn('ball', { position: { x: (i % 10) - 5, y: 0, z: Math.floor(i / 10) - 5 }, velocity: { x: 3, y: 0, z: (i % 3) - 1 } }));
    await act(async () =>
      render(
        <NetcodeProvider transport={h.transport} join={{ name: 'ada' }} clientOptions={{ log: quiet }} clock={h.clock}>
          <Probe />
          <Profiler id="balls" onRender={count('balls')}>
            <BallList />
          </Profiler>
          <Profiler id="players" onRender={count('players')}>
            <PlayerList />
          </Profiler>
          <Profiler id="stats" onRender={count('stats')}>
            <Stats />
          </Profiler>
          <Profiler id="status" onRender={count('status')}>
            <Status />
          </Profiler>
          <Profiler id="ball" onRender={count('ball')}>
            <FirstBall id={balls[0]!.id} />
          </Profiler>
        </NetcodeProvider>,
      ),
    );
    expect(commits.balls).toBe(1); // the initial mount

    // Batches: frames in which at least one ball spawned / despawned on the client.
    let changed = false;
    ctx!.client.ghosts.events.on('spawn', (g) => void (changed ||= g.type === 'ball'));
    ctx!.client.ghosts.events.on('despawn', (g) => void (changed ||= g.type === 'ball'));
    let batches = 0;
    const frame = () => {
      changed = false;
      h.frame();
      if (changed) batches++;
    };
    const frames = (n: number) => {
      for (let i = 0; i < n; i++) frame();
    };
    while (ctx!.client.world.size < 100) frame();
    expect(ctx!.client.status).toBe('in-game');
    expect(batches).toBe(1); // all 100 in one snapshot
    expect(commits.status).toBeLessThanOrEqual(4); // mount + connecting + (connected, joining: one act) + in-game
    frames(32); // clock sync settles
    const ballCommitsBefore = commits.ball;

    const start = { stats: commits.stats, status: commits.status, players: commits.players, tick: h.server.currentTick };
    frames(128); // 128 × 15.625 ms = 2000 ms = 120 ticks at 60 Hz, every ball moving
    expect(h.server.currentTick - start.tick).toBe(120);
    expect(batches).toBe(1); // movement spawns nothing
    expect(commits.stats - start.stats).toBe(8); // one sample per 250 ms: 2000 / 250 = 8 (≤ 4 per second)
    expect(commits.status - start.status).toBe(0); // status unchanged while in game
    expect(commits.players - start.players).toBe(0); // another type's list is not touched by balls
    // useGhost's selector runs at UI rate: at most one commit per stats sample (x moves 3 m/s: it changes each 250 ms).
    expect(commits.ball - ballCommitsBefore).toBeLessThanOrEqual(1 + 8);
    expect(commits.ball - ballCommitsBefore).toBeGreaterThan(4); // and it does follow the ball

    for (const b of balls.slice(0, 50)) h.server.despawn(b);
    frames(8);
    for (const b of balls.slice(50)) h.server.despawn(b);
    frames(8);
    expect(ctx!.client.world.size).toBe(0);
    expect(batches).toBe(3); // 1 spawn batch + 2 despawn batches
    // Profiler commits of the list = initial + spawn batches + despawn batches = 1 + 1 + 2.
    expect(commits.balls).toBe(1 + batches);
  });
});
