// The opt-in debug handle: a read-only object on globalThis that a browser test or the
// console reads the client through; off by default, removed by removeDebugHandle().
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, defineProtocol, defineSystems, field, ghost, LoopbackNetwork, system, type DebugHandle } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';

const protocol = defineProtocol({
  ghosts: { cube: ghost({ position: field.vec3({ quantize: 1000 }), hp: field.u8() }), rock: ghost({ x: field.f32() }) },
  join: { name: field.string(8) },
});
const g = globalThis as unknown as Record<string, DebugHandle | undefined>;

afterEach(() => {
  delete g.__reactNetcode;
  delete g.__player2;
});

describe('debugHandle', () => {
  it('is off by default: nothing on globalThis', () => {
    createClient({ protocol, transport: new LoopbackNetwork().createClient() });
    expect('__reactNetcode' in globalThis).toBe(false);
  });

  it('true puts globalThis.__reactNetcode: status, networkId, ghosts with what is drawn, time and stats, read live', () => {
    const s = createStepper({ protocol, clients: [{ engine: { debugHandle: true } }], log: () => {} });
    const h = g.__reactNetcode!;
    expect(h.status).toBe('connecting');
    s.server.events.on('join', (c) => s.server.spawn('cube', { position: { x: 1, y: 2, z: 3 }, hp: 7 }, { owner: c.networkId }));
    s.server.spawn('rock', { x: 4 });
    s.joinAll({ name: 'a' });
    s.advance(500);
    expect([h.status, h.networkId, h.closeReason, h.closeCode]).toEqual(['in-game', 1, undefined, undefined]);
    expect(h.ghosts('cube')).toEqual([{ id: expect.any(Number), type: 'cube', owner: 1, mode: 'predicted', origin: 'snapshot', isLocal: true, view: { position: { x: 1, y: 2, z: 3 }, hp: 7 } }]);
    expect(h.ghosts().map((x) => x.type).sort()).toEqual(['cube', 'rock']);
    expect(h.time().rttMs).toBeGreaterThan(0);
    expect(h.stats().snapshotsIn).toBeGreaterThan(0);
    expect(h.stats().rollbacks).toBeGreaterThanOrEqual(0);
    // Copies: changing what a read returned changes nothing in the client.
    (h.ghosts('cube')[0]!.view.position as { x: number }).x = 99;
    expect((h.ghosts('cube')[0]!.view.position as { x: number }).x).toBe(1);
    expect(Object.isFrozen(h)).toBe(true);
    s.clients[0]!.client.leave();
    expect([h.status, h.closeCode]).toEqual(['closed', 'left']);
    s.clients[0]!.client.removeDebugHandle();
    expect('__reactNetcode' in globalThis).toBe(false);
  });

  it("corrections() copies the recent corrections with their cause; stats() has the server's late and missing input counts", () => {
    // The server pushes the predicted cube once where the client's shared systems do not: one correction.
    const systems = defineSystems(protocol, [
      system.server('push', (world, ctx) => {
        if (ctx.tick !== 120) return;
        for (const c of world.query('cube')) c.components.position.x += 1;
      }),
    ]);
    const s = createStepper({ protocol, systems, clients: [{ engine: { debugHandle: true } }], log: () => {} });
    const h = g.__reactNetcode!;
    s.server.events.on('join', (c) => s.server.spawn('cube', { position: { x: 0, y: 0, z: 0 }, hp: 1 }, { owner: c.networkId }));
    s.joinAll({ name: 'a' });
    expect(h.corrections()).toEqual([]);
    s.advance(3000);
    const corrections = h.corrections();
    expect(corrections).toHaveLength(1);
    expect(corrections[0]).toMatchObject({ type: 'cube', local: true, distance: expect.closeTo(1, 2), cause: expect.any(String), detail: expect.any(String) });
    expect(JSON.parse(JSON.stringify(corrections))).toEqual(corrections); // serializable
    expect(h.stats()).toMatchObject({ inputsLate: expect.any(Number), inputsMissing: expect.any(Number) });
  });

  it('a string names the global (two clients in one page); a bad option is refused', () => {
    const network = new LoopbackNetwork();
    const one = createClient({ protocol, transport: network.createClient(), debugHandle: true });
    const two = createClient({ protocol, transport: network.createClient(), debugHandle: '__player2' });
    two.connect();
    expect([g.__reactNetcode!.status, g.__player2!.status]).toEqual(['idle', 'connecting']);
    one.removeDebugHandle();
    expect(g.__player2).toBeDefined();
    expect(() => createClient({ protocol, transport: network.createClient(), debugHandle: '' })).toThrow(
      'react-netcode: debugHandle must be true (globalThis.__reactNetcode) or a non-empty global name, got "".',
    );
  });

  it('removeDebugHandle of an older client leaves a newer one under the same name', () => {
    const network = new LoopbackNetwork();
    const old = createClient({ protocol, transport: network.createClient(), debugHandle: true });
    const newer = createClient({ protocol, transport: network.createClient(), debugHandle: true });
    newer.connect();
    old.removeDebugHandle();
    expect(g.__reactNetcode!.status).toBe('connecting');
  });
});
