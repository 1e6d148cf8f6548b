// ctx.spawnIds(ghost, field): one spawnId per press of an InputEvent in this tick, oldest
// first, the same on the server and in client prediction; pressSpawnIds is the pure form.
import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, pressSpawnIds, spawnId, system, type NetcodeError } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';

const protocol = defineProtocol({ ghosts: { player: ghost({ x: field.f32() }) }, input: { fire: field.event(), aim: field.u8() } });
type P = typeof protocol;

describe('spawn ids for an InputEvent\'s presses', () => {
  it('pressSpawnIds: count − presses + 1 … count, oldest first; the same frozen empty array without presses', () => {
    expect(pressSpawnIds(3, 10, 3)).toEqual([spawnId(3, 8), spawnId(3, 9), spawnId(3, 10)]);
    expect(pressSpawnIds(3, 10, 3)).toEqual([0x3_0008, 0x3_0009, 0x3_000a]);
    expect(pressSpawnIds(0xffff, 0x1_0001, 2)).toEqual([0xffff_0000, 0xffff_0001]); // count wraps at 16 bits, ids stay unsigned
    const none = pressSpawnIds(3, 10, 0);
    expect(none).toEqual([]);
    expect(pressSpawnIds(4, 99, 0)).toBe(none);
    expect(Object.isFrozen(none)).toBe(true);
  });

  it('ctx.spawnIds gives the server and the client\'s first prediction the same ids for three presses in one tick', () => {
    const seen: { server: boolean; tick: number; ids: readonly number[] }[] = [];
    const systems = defineSystems(protocol, [
      system.shared<P>('throw', (world, ctx) => {
        for (const p of world.query('player')) {
          const ids = ctx.spawnIds(p, 'fire');
          if (ids.length > 0 && ctx.isFirstTimeFullyPredictingTick) seen.push({ server: ctx.isServer, tick: ctx.tick, ids });
        }
      }),
    ]);
    const s = createStepper({ protocol, systems, clients: 1, log: () => {} });
    s.server.events.on('join', (c) => s.server.spawn('player', {}, { owner: c.networkId }));
    s.joinAll({});
    const c = s.clients[0]!.client;
    s.until(() => c.prediction?.lastTick !== undefined && [...c.world.query('player')].length === 1, 2000, 'predicting');
    c.input.press('fire');
    s.advance(100);
    c.input.press('fire');
    c.input.press('fire');
    c.input.press('fire');
    s.advance(500);
    const id = c.networkId!;
    expect(seen.filter((e) => !e.server).map((e) => e.ids)).toEqual([[spawnId(id, 1)], [spawnId(id, 2), spawnId(id, 3), spawnId(id, 4)]]);
    expect(seen.filter((e) => e.server).map((e) => [e.tick, e.ids])).toEqual(seen.filter((e) => !e.server).map((e) => [e.tick, e.ids]));
  });

  it('refuses a field that is not a field.event(), saying so', () => {
    const errors: NetcodeError[] = [];
    const systems = defineSystems(protocol, [
      system.server<P>('bad', (world, ctx) => {
        for (const p of world.query('player')) ctx.spawnIds(p, 'aim');
      }),
    ]);
    const s = createStepper({ protocol, systems, clients: 0, log: () => {} });
    s.server.events.on('error', (e) => errors.push(e));
    s.server.spawn('player');
    s.tick(3);
    expect(errors[0]?.message).toMatch(/ctx\.spawnIds\(ghost, 'aim'\) needs an input field declared with field\.event\(\); 'aim' is a u8 field\./);
  });
});
