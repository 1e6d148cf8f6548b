// Relevancy, the byte budget at engine level, malformed snapshots, and 1000
// join/leave cycles leaving nothing behind.

import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/index.ts';
import { MessageKind } from '../../src/internals.ts';
import { createStepper } from '../../src/testing/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';

const quiet: Logger = () => {};

describe('relevancy', () => {
  it('despawns a ghost that leaves a client’s radius on that client only, and respawns it on return', () => {
    const s = createStepper({
      protocol: arena,
      systems: arenaSystems,
      log: quiet,
      clients: 2,
      server: {
        // Client 1 sees balls within 10 m of the origin; client 2 sees everything.
        relevancy: (c, g) => c.networkId !== 1 || g.type !== 'ball' || Math.hypot(g.components.position.x, g.components.position.z) < 10,
      },
    });
    const ball = s.server.spawn('ball', { position: { x: 0, y: 0, z: 0 }, velocity: { x: 5, y: 0, z: 0 } }); // 10 m in 2 s
    s.joinAll({ name: 'p' });
    const [c1, c2] = s.clients.map((c) => c.client);
    const despawns: number[] = [];
    c1!.ghosts.events.on('despawn', (g) => despawns.push(g.id));
    s.advance(500);
    expect(c1!.world.get(ball.id)).toBeDefined();
    s.advance(2500); // x ≈ 15 m: out of client 1's radius
    expect(c1!.world.get(ball.id)).toBeUndefined();
    expect(despawns).toEqual([ball.id]);
    expect(c2!.world.get(ball.id)).toBeDefined(); // the other client keeps it
    // It bounces at 20 m and comes back inside 10 m: x = 20 − 5 (t − 4) < 10 after t = 6 s.
    s.advance(4000);
    expect(c1!.world.get(ball.id)).toBeDefined();
  });
});

describe('byte budget (engine)', () => {
  it('never sends a snapshot over the budget, and every ghost still arrives', () => {
    const s = createStepper({ protocol: arena, systems: arenaSystems, log: quiet, clients: 1, server: { snapshotBudgetBytes: 400 } });
    for (let i = 0; i < 300; i++) s.server.spawn('ball', { position: { x: i % 20, y: 0, z: (i * 7) % 20 }, velocity: { x: 1, y: 0, z: (i % 3) - 1 } });
    const sizes: number[] = [];
    const send = s.network.server.send.bind(s.network.server);
    s.network.server.send = (peer, data, channel) => {
      if (data[0] === MessageKind.Snapshot) sizes.push(data.byteLength);
      send(peer, data, channel);
    };
    s.joinAll({ name: 'p' });
    s.advance(10_000);
    expect(sizes.length).toBeGreaterThan(150); // 20 Hz for ~10 s
    expect(Math.max(...sizes)).toBeLessThanOrEqual(400);
    expect(s.clients[0]!.client.world.size).toBe(300);
  });
});

describe('malformed snapshots', () => {
  it('are rejected with an error event and leave the client’s state untouched', () => {
    const s = createStepper({ protocol: arena, systems: arenaSystems, log: quiet, clients: 1 });
    const ball = s.server.spawn('ball', { position: { x: 1, y: 0, z: 0 }, velocity: { x: 1, y: 0, z: 0 } });
    s.joinAll({ name: 'p' });
    s.advance(500);
    const client = s.clients[0]!.client;
    const errors: string[] = [];
    client.events.on('error', (e) => errors.push(e.code));
    let good: Uint8Array | undefined;
    const send = s.network.server.send.bind(s.network.server);
    s.network.server.send = (peer, data, channel) => {
      if (data[0] === MessageKind.Snapshot && !good) good = data.slice();
      send(peer, data, channel);
    };
    s.advance(100);
    s.network.server.send = send;
    expect(good!.length).toBeGreaterThan(8); // a moving ball: a real delta to damage
    s.tick(1); // let the normal snapshot land first
    // The authoritative state the client holds: ghosts, their confirmed ticks and samples, the ack.
    const confirmed = () =>
      JSON.stringify([
        client.ghosts.ackTick,
        client.ghosts.ackMask,
        [...client.world.all()].map((g) => {
          const rec = client.ghosts.record(g.id)!;
          const samples: unknown[] = [];
          rec.history.forEach((v, t) => samples.push([t, v]));
          return [g.id, rec.confirmedTick, samples];
        }),
      ]);
    const before = confirmed();
    for (const bad of [good!.subarray(0, good!.length - 3), good!.subarray(0, 4), Uint8Array.from(good!, (b, i) => (i === good!.length - 2 ? b ^ 0xff : b))]) {
      send(1, bad, 'unreliable');
    }
    s.network.deliver();
    client.update(s.now);
    expect(errors.length).toBe(3);
    expect(client.ghosts.rejectedSnapshots).toBe(3);
    expect(client.status).toBe('in-game');
    expect(confirmed()).toBe(before);
    expect(client.world.get(ball.id)).toBeDefined();
    s.advance(500); // and later snapshots still apply
    expect(client.ghosts.rejectedSnapshots).toBe(3);
  });
});

describe('join/leave cycles', () => {
  it('1000 cycles leave no ghost, connection, timer or listener behind', () => {
    const s = createStepper({ protocol: arena, systems: arenaSystems, log: quiet, server: { idQuarantineMs: 0, resumeGraceMs: 1000 } });
    s.server.events.on('join', (c) => s.server.spawn('player', { hp: 1 }, { owner: c.networkId }));
    const listenersBefore = s.server.events.listenerCount;
    for (let i = 0; i < 1000; i++) {
      const c = s.addClient();
      s.until(() => c.client.status === 'connected', 2000, 'connect');
      c.client.join({ name: `p${i}` });
      s.until(() => c.client.status === 'in-game', 2000, 'join');
      expect(s.server.world.size).toBe(s.server.connections.size); // one player per live (or suspended) connection
      if (i % 2) c.client.leave('bye');
      else c.transport.close('network down'); // a drop: resumable until the grace ends
      s.clients.pop(); // the Stepper forgets the client
    }
    s.advance(1500); // past the resume grace of the dropped ones
    expect(s.server.connections.size).toBe(0);
    expect(s.server.pendingPeers).toBe(0);
    expect(s.server.world.size).toBe(0);
    expect(s.network.pending).toBe(0);
    expect(s.scheduler.pending).toBe(0);
    expect(s.server.events.listenerCount).toBe(listenersBefore);
  });
});

describe('staleness', () => {
  it('marks ghosts stale when no state arrives for staleAfterMs, and fresh again after', () => {
    const link = { latencyMs: 20 };
    const s = createStepper({ protocol: arena, systems: arenaSystems, log: quiet, clients: [{ link: { up: link, down: link }, engine: { staleAfterMs: 1000 } }] });
    const ball = s.server.spawn('ball', { position: { x: 0, y: 0, z: 0 }, velocity: { x: 1, y: 0, z: 0 } });
    s.joinAll({ name: 'p' });
    s.advance(1000);
    const client = s.clients[0]!.client;
    expect(client.ghosts.record(ball.id)!.stale).toBe(false);
    s.clients[0]!.link!.setOptions({ up: link, down: { ...link, loss: 1 } }); // snapshots stop
    s.advance(900);
    expect(client.ghosts.record(ball.id)!.stale).toBe(false); // 900 ms < 1000 ms
    s.advance(400);
    expect(client.ghosts.record(ball.id)!.stale).toBe(true); // 1300 ms without state (60 ticks/s → > 60 ticks)
    s.clients[0]!.link!.setOptions({ up: link, down: link });
    s.advance(500);
    expect(client.ghosts.record(ball.id)!.stale).toBe(false);
  });
});
