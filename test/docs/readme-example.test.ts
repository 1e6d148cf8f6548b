// The README's usage example must compile and run: the same code, over the
// loopback instead of socket.io, driven by the Stepper.
import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, system } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';

const protocol = defineProtocol({
  tickRate: 60, snapshotRate: 20,
  ghosts: { ball: ghost({ position: field.vec3({ quantize: 1000 }), velocity: field.vec3({ quantize: 1000 }) }) },
  join: { name: field.string(24) },
});
const systems = defineSystems(protocol, [
  system.shared('move', (world, ctx) => {
    for (const b of world.query('ball')) b.components.position.x += b.components.velocity.x * ctx.dt;
  }),
]);

describe('README example', () => {
  it('spawns a ball per player that every client sees moving', () => {
    const s = createStepper({ protocol, systems, clients: 1 });
    s.server.events.on('join', (conn) => s.server.spawn('ball', { velocity: { x: 1, y: 0, z: 0 } }, { owner: conn.networkId }));
    const client = s.clients[0]!.client;
    const seen: string[] = [];
    client.events.on('status', (st) => st.status === 'connected' && client.join({ name: 'ann' }));
    client.ghosts.events.on('spawn', (g) => seen.push(`${g.type} ${g.id}`));
    s.advance(2000);
    expect(seen).toEqual(['ball 1']);
    const x = client.world.get(1)!.components.position.x;
    expect(x).toBeGreaterThan(1); // ~2 s at 1 m/s, minus the interpolation delay
    expect(x).toBeLessThan(2);
    // The headless client's reads (the paragraph under the example): its own ghost, and what to draw.
    const balls = [...client.world.query('ball')];
    expect(balls.map((b) => [b.id, b.isLocal])).toEqual([[1, true]]);
    expect(client.view(balls[0]!).position.x).toBeGreaterThan(1);
  });
});
