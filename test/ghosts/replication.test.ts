import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';

const quiet: Logger = () => {};

function world(clients = 2) {
  const s = createStepper({ protocol: arena, systems: arenaSystems, clients, log: quiet });
  s.server.events.on('join', (c) => s.server.spawn('player', { hp: 100, secret: c.networkId * 7 }, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  return s;
}

describe('ghost replication', () => {
  it('spawns, updates and despawns ghosts on every client with lifecycle events', () => {
    const s = world();
    const ball = s.server.spawn('ball', { position: { x: 1, y: 2, z: 3 }, velocity: { x: 1, y: 0, z: 0 }, kind: 'blue' });
    const events: string[] = [];
    const c0 = s.clients[0]!.client;
    // A 'spawn' listener sees the spawn snapshot's values, never the schema's defaults.
    c0.ghosts.events.on('spawn', (g) => {
      if (g.type !== 'ball') return void events.push(`spawn ${g.type} ${g.id}`);
      const { position: p, kind } = g.components as { position: { x: number; y: number; z: number }; kind: string };
      events.push(`spawn ${g.type} ${g.id} at x>1 ${p.x > 1}, y ${p.y}, z ${p.z}, ${kind}`);
    });
    c0.ghosts.events.on('despawn', (g) => events.push(`despawn ${g.type} ${g.id}`));
    s.tick(30);
    for (const c of s.clients) {
      const remote = c.client.world.get(ball.id);
      if (remote?.type !== 'ball') throw new Error(`ball ${ball.id} missing on client ${c.index}`);
      expect(remote.components.kind).toBe('blue');
      expect(remote.spawnTick).toBe(ball.spawnTick); // carried by the spawn record
      expect(remote.mode).toBe('interpolated');
    }
    expect(events).toEqual([`spawn ball ${ball.id} at x>1 true, y 2, z 3, blue`]); // it moves at 1 m/s along x
    const handle = c0.world.get(ball.id)!.handle;
    s.tick(30);
    expect(c0.world.get(ball.id)!.handle).toBe(handle); // stable local handle
    s.server.despawn(ball);
    s.tick(30);
    expect(c0.world.get(ball.id)).toBeUndefined();
    expect(events).toEqual([`spawn ball ${ball.id} at x>1 true, y 2, z 3, blue`, `despawn ball ${ball.id}`]);
  });

  it('sends owner-only fields to the owner only; isLocal on the owner', () => {
    const s = world();
    s.tick(30);
    const [a, b] = s.clients.map((c) => c.client);
    const playerA = [...a!.world.query('player')].find((g) => g.owner === a!.networkId)!;
    expect(playerA.isLocal).toBe(true);
    expect(playerA.components.secret).toBe(a!.networkId! * 7);
    const seenByB = b!.world.get(playerA.id);
    if (seenByB?.type !== 'player') throw new Error('player missing on b');
    expect(seenByB.isLocal).toBe(false);
    expect(seenByB.components.secret).toBe(0); // not sent to non-owners
  });

  it('destroys a connection’s ghosts when it leaves for good (LinkedEntityGroup)', () => {
    const s = world(3);
    s.tick(30);
    expect(s.server.world.size).toBe(3);
    s.clients[1]!.client.leave('bye');
    s.tick(30);
    expect([...s.server.world.query('player')].map((p) => p.owner)).toEqual([1, 3]);
    for (const i of [0, 2]) expect([...s.clients[i]!.client.world.query('player')].map((p) => p.owner).sort()).toEqual([1, 3]);
  });
});
