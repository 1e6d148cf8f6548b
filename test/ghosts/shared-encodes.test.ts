// Players who own ghosts share snapshot encodes: the server gives every connection the same rule for
// which ghosts are predicted (those with an owner), so connections whose acks agree get one message.
// A rule per owner made each player encode alone (32 players, 32 encodes per snapshot); the owner
// still gets its own ghost in every snapshot, and everyone else sees it too.

import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, system, type Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    avatar: ghost({ position: field.vec3({ quantize: 1000 }) }),
    crate: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['interpolated'] }),
  },
  input: { move: field.f32({ quantize: 100 }) },
  join: {},
});
const systems = defineSystems(protocol, [
  system.shared('walk', (world, ctx) => {
    for (const a of world.query('avatar')) if (a.mode !== 'interpolated') a.components.position.x += ctx.input(a).move * ctx.dt;
  }),
  system.server('drift', (world, ctx) => {
    for (const c of world.query('crate')) c.components.position.z += ctx.dt;
  }),
]);
const quiet: Logger = () => {};
const PLAYERS = 8;

describe('snapshot encodes on a server whose players own ghosts', () => {
  it('one encode per snapshot for 8 players with equal links, each predicting its own avatar and seeing the others', () => {
    const link = { latencyMs: 30, jitterMs: 0, loss: 0 };
    const s = createStepper({ protocol, systems, seed: 9, log: quiet, clients: Array.from({ length: PLAYERS }, () => ({ link: { up: link, down: link } })) });
    for (let i = 0; i < 50; i++) s.server.spawn('crate', { position: { x: i, y: 0, z: 0 } });
    s.server.events.on('join', (c) => void s.server.spawn('avatar', { position: { x: 0, y: 0, z: c.networkId } }, { owner: c.networkId }));
    s.joinAll({});
    s.clients.forEach((c, i) => (c.client.input.current.move = i + 1));
    s.advance(3000);
    const encodes0 = s.server.snapshotEncodes;
    const tick0 = s.server.currentTick;
    s.advance(2000);
    const snapshots = (s.server.currentTick - tick0) / 3;
    const perSnapshot = (s.server.snapshotEncodes - encodes0) / snapshots;
    expect(perSnapshot).toBeLessThan(1.5); // was 8: one per owner
    for (const c of s.clients) {
      const avatars = [...c.client.world.query('avatar')];
      expect(avatars).toHaveLength(PLAYERS);
      const own = avatars.find((a) => a.owner === c.client.networkId)!;
      expect(own.mode).toBe('predicted');
      const server = s.server.world.get(own.id)!.components.position.x;
      expect(server).toBeGreaterThan(3 * (s.clients.indexOf(c) + 1)); // it walked: move m/s for 4–5 s since joining
      expect(Math.abs(own.components.position.x - server)).toBeLessThan(1); // predicted ahead by its lead, moving 1–8 m/s
      expect(avatars.filter((a) => a.mode === 'interpolated')).toHaveLength(PLAYERS - 1);
    }
    expect(s.clients.every((c) => (c.client.prediction?.stats.mispredictions ?? 0) === 0)).toBe(true);
  });
});
