// What waits for the next client frame: a hidden page (no animation frames) or an app that calls
// update(now) rarely must not keep minutes of snapshots and decode them all in one frame. Past
// MAX_QUEUED_UNRELIABLE unreliable messages the oldest are dropped unread (as if lost); every
// reliable message still arrives, in order; the client stays in game and catches up.

import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, rpc, system, type Logger } from '../../src/index.ts';
import { MAX_QUEUED_UNRELIABLE } from '../../src/core/client-session.ts';
import { createStepper } from '../../src/testing/index.ts';

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: { ball: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['interpolated'] }) },
  input: {},
  join: {},
  rpcs: { news: rpc.toClient({ n: field.u32() }) },
});
const systems = defineSystems(protocol, [
  system.shared('move', (world, ctx) => {
    for (const b of world.query('ball')) b.components.position.x += ctx.dt;
  }),
]);

function run(paused: boolean) {
  const logs: string[] = [];
  const log: Logger = (level, message) => void (level === 'warn' && logs.push(message));
  const s = createStepper({ protocol, systems, seed: 5, log, clients: [{}] });
  const balls = Array.from({ length: 50 }, (_, i) => s.server.spawn('ball', { position: { x: 0, y: 0, z: i } }));
  s.joinAll({});
  s.advance(2000);
  const c = s.clients[0]!;
  const news: number[] = [];
  c.client.onRpc('news', ({ n }) => news.push(n));
  if (paused) c.client.setPaused(true);
  const before = c.client.traffic.snapshotsIn;
  s.stall(c, 60_000); // a minute without a frame: 1,200 snapshots and 60 RPCs arrive
  for (let n = 0; n < 60; n++) {
    s.server.broadcast('news', { n });
    s.advance(1000);
  }
  s.advance(20); // the first frame after the stall
  const handled = c.client.traffic.snapshotsIn - before;
  if (paused) c.client.setPaused(false);
  s.advance(1000);
  const lag = Math.max(...balls.map((b) => Math.abs(b.components.position.x - c.client.world.get(b.id)!.components.position.x)));
  return { handled, dropped: c.client.traffic.droppedUnread, news, logs, status: c.client.status, lag };
}

describe('client inbox', () => {
  it('keeps at most the newest unreliable messages across a minute without frames, and every RPC', () => {
    const r = run(false);
    expect(r.handled).toBeGreaterThan(0);
    expect(r.handled).toBeLessThanOrEqual(MAX_QUEUED_UNRELIABLE);
    expect(r.dropped).toBeGreaterThan(1000); // ≈ 1,200 snapshots + Pongs, less the newest
    expect(r.news).toEqual(Array.from({ length: 60 }, (_, n) => n)); // reliable: all of them, in order
    expect(r.status).toBe('in-game');
    // Interpolated 1 s later: on the timeline again (its delay is ≈ 100 ms, the balls move 1 m/s).
    expect(r.lag).toBeLessThan(0.5);
    expect(r.logs.filter((m) => m.includes('dropped unread'))).toHaveLength(1); // said once
    expect(r.logs.find((m) => m.includes('dropped unread'))).toMatch(/^react-netcode: .*update\(now\) every frame/);
  });

  it('says nothing when the client is paused (a hidden page drops by design)', () => {
    const r = run(true);
    expect(r.handled).toBeLessThanOrEqual(MAX_QUEUED_UNRELIABLE);
    expect(r.dropped).toBeGreaterThan(1000);
    expect(r.news).toHaveLength(60);
    expect(r.logs.filter((m) => m.includes('dropped unread'))).toHaveLength(0);
    expect(r.lag).toBeLessThan(0.5);
  });
});
