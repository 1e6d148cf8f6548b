// Ghost fields declared `required: true`: a spawn must give them (server.spawn and
// ctx.spawn, on the server and in client prediction); inputs, join and RPC payloads refuse the option.
import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, rpc, system, type NetcodeError } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';

const protocol = defineProtocol({
  ghosts: {
    ball: ghost({ position: field.vec3({ quantize: 1000, required: true }), kind: field.enum(['soft', 'hard'], { required: true }), spin: field.f32() }),
    player: ghost({ x: field.f32() }),
  },
  input: { kick: field.event() },
});
type P = typeof protocol;

describe('required ghost fields', () => {
  it('records them in declaration order and keeps them out of the protocol hash', () => {
    expect(protocol.ghostByName.get('ball')!.required).toEqual(['position', 'kind']);
    expect(protocol.ghostByName.get('player')!.required).toEqual([]);
    const plain = defineProtocol({
      ghosts: { ball: ghost({ position: field.vec3({ quantize: 1000 }), kind: field.enum(['soft', 'hard']), spin: field.f32() }), player: ghost({ x: field.f32() }) },
      input: { kick: field.event() },
    });
    expect(plain.hash).toBe(protocol.hash);
  });

  it('server.spawn refuses a spawn without one, naming it, and takes a complete one', () => {
    const s = createStepper({ protocol, clients: 0 });
    // Bypassing the types, as untyped code would.
    const spawn = s.server.spawn as (type: string, init?: object) => unknown;
    expect(() => spawn.call(s.server, 'ball', { position: { x: 1, y: 2, z: 3 } })).toThrow(
      `react-netcode: server.spawn('ball') is missing the required field "kind"; pass it in the init object (required: position, kind).`,
    );
    expect(() => spawn.call(s.server, 'ball')).toThrow(/missing the required field "position"/);
    expect([...s.server.world.query('ball')].length).toBe(0);
    const g = s.server.spawn('ball', { position: { x: 1, y: 2, z: 3 }, kind: 'hard' });
    expect([g.components.position, g.components.kind, g.components.spin]).toEqual([{ x: 1, y: 2, z: 3 }, 'hard', 0]);
    expect(s.server.spawn('player').components.x).toBe(0);
  });

  it('ctx.spawn without one throws in the system: contained and reported as a SystemError, nothing spawned', () => {
    const systems = defineSystems(protocol, [
      system.shared<P>('kick', (world, ctx) => {
        for (const p of world.query('player')) {
          if (ctx.input(p).kick === 0) continue;
          (ctx.spawn as (type: string, init: object, o: object) => unknown)('ball', { kind: 'soft' }, { owner: p.owner });
        }
      }),
    ]);
    const s = createStepper({ protocol, systems, clients: 1, log: () => {} });
    const errors: NetcodeError[] = [];
    s.server.events.on('error', (e) => errors.push(e));
    const clientErrors: NetcodeError[] = [];
    const c = s.clients[0]!.client;
    c.events.on('error', (e) => clientErrors.push(e));
    s.server.events.on('join', (conn) => s.server.spawn('player', {}, { owner: conn.networkId }));
    s.joinAll({});
    s.until(() => [...c.world.query('player')].length === 1 && c.prediction?.lastTick !== undefined, 2000, 'player predicted');
    c.input.press('kick');
    s.advance(500);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^react-netcode: system "kick" threw at tick \d+: .*ctx\.spawn\('ball'\) is missing the required field "position"/),
    ]);
    expect(clientErrors.length).toBeGreaterThan(0);
    expect(clientErrors[0]!.message).toMatch(/ctx\.spawn\('ball'\) is missing the required field "position"/);
    expect([...s.server.world.query('ball')].length).toBe(0);
    expect([...c.world.query('ball')].length).toBe(0);
  });

  it('inputs, join payloads and RPC payloads refuse the option (they always carry every field)', () => {
    expect(() => defineProtocol({ input: { move: field.vec2({ required: true }) } })).toThrow(
      'react-netcode: input field "move" is declared required; required applies to ghost fields only (a spawn must give them), so drop the option here.',
    );
    expect(() => defineProtocol({ join: { name: field.string(8, { required: true }) } })).toThrow(/join field "name" is declared required/);
    expect(() => defineProtocol({ rpcs: { say: rpc.toServer({ text: field.string(8, { required: true }) }) } })).toThrow(/rpc "say" field "text" is declared required/);
    expect(() => field.u8({ required: 'yes' as never })).toThrow('react-netcode: u8 field required must be true or false.');
  });
});
