// Remote ghosts on the client's interpolation timeline, end to end over the
// loopback: monotonic under jitter and loss, bounded extrapolation, teleports snap.

import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';

const quiet: Logger = () => {};

function setup(link: { latencyMs: number; jitterMs: number; loss: number }) {
  const s = createStepper({
    protocol: arena,
    systems: arenaSystems,
    seed: 3,
    log: quiet,
    clients: [{ link: { up: link, down: link }, clock: { framePeriodMs: 1000 / 144 } }],
  });
  const ball = s.server.spawn('ball', { position: { x: -15, y: 0, z: 0 }, velocity: { x: 2, y: 0, z: 0 } });
  s.joinAll({ name: 'p' });
  return { s, ball, client: s.clients[0]!.client };
}

describe('interpolation timeline (engine)', () => {
  it('never runs backwards under 30 ms jitter and 5 % loss, and the shown ball moves forward smoothly', () => {
    const { s, ball, client } = setup({ latencyMs: 50, jitterMs: 30, loss: 0.05 });
    s.advance(3000); // warm-up: the jitter estimate settles
    let lastTick = -Infinity;
    let lastX = client.world.get(ball.id)!.components.position.x;
    const steps: number[] = [];
    for (let i = 0; i < 144 * 10; i++) {
      s.advance(1000 / 144);
      const t = client.ghosts.timeline;
      const pos = t.tick + t.fraction;
      expect(pos).toBeGreaterThanOrEqual(lastTick); // monotonic
      lastTick = pos;
      expect(t.extrapolationTicks).toBeLessThanOrEqual(20);
      const x = client.world.get(ball.id)!.components.position.x;
      steps.push(x - lastX);
      lastX = x;
    }
    // The ball runs at 2 m/s from x = −15 and does not reach the wall at 20 within these 13 s.
    // At 144 fps one frame is 2/144 = 0.0139 m; the timeline runs at 0.9–1.1 × real time.
    const nominal = 2 / 144;
    expect(Math.min(...steps)).toBeGreaterThanOrEqual(0); // never backwards on screen
    const rough = steps.filter((d) => Math.abs(d - nominal) > 0.15 * nominal).length;
    expect(rough / steps.length).toBeLessThanOrEqual(0.01); // ≥ 99 % of frames within ±15 %
  });

  it('extrapolates at most 20 ticks when snapshots stop, then holds', () => {
    const { s, client } = setup({ latencyMs: 20, jitterMs: 0, loss: 0 });
    s.advance(2000);
    s.clients[0]!.link!.setOptions({ down: { latencyMs: 20, loss: 1 } }); // snapshots stop arriving
    let maxExtra = 0;
    for (let i = 0; i < 300; i++) {
      s.advance(10);
      maxExtra = Math.max(maxExtra, client.ghosts.timeline.extrapolationTicks);
    }
    expect(maxExtra).toBeLessThanOrEqual(20);
    expect(maxExtra).toBeGreaterThan(10); // it did extrapolate before holding
  });

  it('snaps a jump beyond maxSmoothingDistance instead of sliding through the gap', () => {
    const { s, ball, client } = setup({ latencyMs: 20, jitterMs: 0, loss: 0 });
    s.advance(1000);
    const server = s.server.world.get(ball.id)!;
    if (server.type !== 'ball') throw new Error('ball');
    server.components.velocity.x = 0;
    s.advance(1000);
    server.components.position.x = 10; // a 10 m teleport; maxSmoothingDistance is 2
    const shown: number[] = [];
    for (let i = 0; i < 120; i++) {
      s.advance(1000 / 144);
      shown.push(client.world.get(ball.id)!.components.position.x);
    }
    const before = shown[0]!;
    expect(before).toBeLessThan(0);
    expect(shown.at(-1)).toBeCloseTo(10, 3);
    // Every frame shows either the old place or the new one, never a point in between.
    for (const x of shown) expect(Math.abs(x - before) < 1e-9 || Math.abs(x - 10) < 1e-9).toBe(true);
  });
});
