// SystemRunner: stage filtering and order, deferred spawn/despawn, per-tick seeded rng,
// owner input, context flags, and errors wrapped with the system's name and tick.
import { describe, expect, it } from 'vitest';
import { field } from '../../src/core/field.ts';
import { defineProtocol, fnv1a32, ghost, type InputValues } from '../../src/core/protocol.ts';
import { deriveSeed, Rng } from '../../src/core/rng.ts';
import { defineSystems, system, SystemError, SystemRunner, type SystemDef, type SystemHooks } from '../../src/core/system.ts';
import { EngineWorld, type Ghost } from '../../src/core/world.ts';

const protocol = defineProtocol({
  tickRate: 30,
  ghosts: { player: ghost({ x: field.f32(), hp: field.u8() }), bullet: ghost({ x: field.f32() }) },
  input: { move: field.vec2(), fire: field.event() },
});
type P = typeof protocol;

function setup(isServer: boolean, systems: readonly SystemDef<P>[], extra: Partial<SystemHooks<P>> = {}) {
  const world = new EngineWorld(protocol, { isServer, localNetworkId: isServer ? 0 : 5 });
  let nextId = 1000;
  const log: string[] = [];
  const hooks: SystemHooks<P> = {
    seed: 0xc0ffee,
    input: () => undefined,
    allocateId: () => nextId++,
    onSpawn: (g) => log.push(`spawn ${g.id}`),
    onDespawn: (g) => log.push(`despawn ${g.id}`),
    ...extra,
  };
  return { world, log, runner: new SystemRunner(world, systems, hooks) };
}

describe('SystemRunner stages', () => {
  it('runs shared+server on the server, shared in prediction, client in presentation, in list order', () => {
    const order: string[] = [];
    const mark = (name: string) => () => void order.push(name);
    const systems = defineSystems(protocol, [
      system.shared('a', mark('a')),
      system.server('b', mark('b')),
      system.client('c', mark('c')),
      system.shared('d', mark('d')),
    ]);
    setup(true, systems).runner.run('server', 1);
    expect(order.splice(0)).toEqual(['a', 'b', 'd']);
    const client = setup(false, systems).runner;
    client.run('prediction', 1);
    expect(order.splice(0)).toEqual(['a', 'd']);
    client.run('presentation', 1);
    expect(order.splice(0)).toEqual(['c']);
    expect(() => client.run('server', 1)).toThrow(/stage "server" runs on the server/);
    expect(() => setup(true, systems).runner.run('prediction', 1)).toThrow(/runs on clients/);
  });

  it('sets tick, dt, side and prediction flags', () => {
    const seen: unknown[] = [];
    const systems = defineSystems(protocol, [
      system.shared('s', (_w, ctx) => void seen.push([ctx.tick, ctx.dt, ctx.isServer, ctx.isClient, ctx.localNetworkId, ctx.isFirstTimeFullyPredictingTick, ctx.isResimulating])),
    ]);
    setup(true, systems).runner.run('server', 42);
    const client = setup(false, systems).runner;
    client.run('prediction', 43);
    client.run('prediction', 41, { isResimulating: true });
    // dt = 1 / tickRate = 1 / 30 s
    expect(seen).toEqual([
      [42, 1 / 30, true, false, 0, true, false],
      [43, 1 / 30, false, true, 5, true, false],
      [41, 1 / 30, false, true, 5, false, true],
    ]);
    expect(() => client.run('prediction', 41, { isResimulating: true, isFirstTimeFullyPredictingTick: true })).toThrow(/flags conflict/);
  });

  it('rejects duplicate names and spawning from presentation', () => {
    expect(() => defineSystems(protocol, [system.shared('m', () => {}), system.client('m', () => {})])).toThrow(/two systems are named "m"/);
    const { runner } = setup(false, [system.client('fx', (_w, ctx) => void ctx.spawn('bullet'))]);
    expect(() => runner.run('presentation', 1)).toThrow(/ctx.spawn is not available in client presentation system "fx"/);
  });
});

describe('deferred structural changes', () => {
  it('adds a spawn after its system returns: later systems see it, the spawning loop does not', () => {
    let seenInside: number[] = [];
    let seenLater: number[] = [];
    let gotDuring: Ghost<P> | undefined;
    const systems = [
      system.shared<P>('fire', (w, ctx) => {
        for (const p of w.query('player')) {
          const b = ctx.spawn('bullet', { x: p.components.x }, { owner: p.owner });
          gotDuring = w.get(b.id);
          seenInside = [...w.query('bullet')].map((g) => g.id);
          expect(b.alive).toBe(false); // pending until the system returns
        }
      }),
      system.shared<P>('fly', (w) => {
        seenLater = [...w.query('bullet')].map((g) => [g.id, g.components.x, g.owner, g.spawnTick]).flat();
      }),
    ];
    const { world, runner, log } = setup(true, systems);
    world.add('player', 1, 9, 0, { x: 2.5 });
    runner.run('server', 7);
    expect(gotDuring).toBeUndefined();
    expect(seenInside).toEqual([]);
    expect(seenLater).toEqual([1000, 2.5, 9, 7]); // id from allocateId, x copied, owner 9, spawned at tick 7
    expect(log).toEqual(['spawn 1000']);
  });

  it('despawns during iteration: alive false at once, skipped, removed when the system returns', () => {
    const states: unknown[] = [];
    const systems = [
      system.server<P>('hit', (w, ctx) => {
        for (const b of w.query('bullet')) {
          states.push(b.id);
          if (b.id === 1) {
            const two = w.get(2)!;
            ctx.despawn(two);
            ctx.despawn(two); // idempotent
            states.push(two.alive, w.get(2), w.size); // false, undefined, 3 (still in until the system returns)
          }
        }
        const temp = ctx.spawn('bullet');
        ctx.despawn(temp); // spawned and despawned in one system: never joins
      }),
      system.server<P>('after', (w) => void states.push(w.size, [...w.all()].map((g) => g.id))),
    ];
    const { world, runner, log } = setup(true, systems);
    for (let id = 1; id <= 3; id++) world.add('bullet', id, 0, 0);
    runner.run('server', 1);
    expect(states).toEqual([1, false, undefined, 3, 3, 2, [1, 3]]); // visits 1 then 3; 3 - 1 = 2 left
    expect(log).toEqual(['despawn 2']);
  });

  it('wraps a throw with the system name and tick, keeping changes made before it', () => {
    const boom = new Error('boom');
    const { world, runner } = setup(true, [
      system.shared<P>('move', (_w, ctx) => {
        ctx.spawn('bullet');
        throw boom;
      }),
    ]);
    let caught: unknown;
    try {
      runner.run('server', 42);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SystemError);
    expect((caught as SystemError).message).toBe('react-netcode: system "move" threw at tick 42: boom; fix the system (error.cause holds what it threw, with the stack).');
    expect([(caught as SystemError).cause, (caught as SystemError).system, (caught as SystemError).tick]).toEqual([boom, 'move', 42]);
    expect(world.size).toBe(1); // the spawn before the throw landed
  });
});

describe('ctx.rng and ctx.input', () => {
  it('draws the same numbers for the same tick on server and client, different across ticks', () => {
    const draws: number[][] = [];
    const shared = system.shared<P>('roll', (_w, ctx) => void draws.push([ctx.rng.nextUint32(), ctx.rng.nextUint32()]));
    // A server-only system drawing first must not shift the shared system's stream.
    const greedy = system.server<P>('greedy', (_w, ctx) => void ctx.rng.int(10));
    const server = setup(true, [greedy, shared]).runner;
    const client = setup(false, [greedy, shared]).runner;
    server.run('server', 100);
    client.run('prediction', 100);
    client.run('prediction', 100, { isResimulating: true });
    server.run('server', 101);
    const [s100, c100, r100, s101] = draws;
    expect(c100).toEqual(s100);
    expect(r100).toEqual(s100); // resimulating tick 100 replays the same numbers
    expect(s101).not.toEqual(s100);
    const otherSeed = setup(true, [shared], { seed: 1 }).runner;
    otherSeed.run('server', 100);
    expect(draws[4]).not.toEqual(s100);
  });

  it('starts each system at deriveSeed(seed, tick, fnv1a32(name)) and keeps one stream through the system, whether or not earlier systems drew', () => {
    const draws: Record<string, number[]> = {};
    const drawer = (name: string) => system.shared<P>(name, (_w, ctx) => {
      const first = ctx.rng.nextUint32();
      draws[name] = [first, ctx.rng.nextUint32(), ctx.rng.nextUint32()]; // later reads continue the stream
    });
    const idle = (name: string) => system.shared<P>(name, () => {});
    const { runner } = setup(true, [idle('idle'), drawer('a'), idle('idle too'), drawer('b')], { seed: 0xfedcba98 });
    for (const tick of [7, 0x7fff_ffff, 0xffff_fffe]) {
      runner.run('server', tick);
      for (const name of ['a', 'b']) {
        const expected = new Rng(deriveSeed(0xfedcba98, tick, fnv1a32(name)));
        expect(draws[name]).toEqual([expected.nextUint32(), expected.nextUint32(), expected.nextUint32()]);
      }
    }
  });

  it('reseeds the one ctx.rng as each system starts, so a reference a system kept draws the same numbers for the same tick', () => {
    let kept: Rng | undefined;
    const draws: number[] = [];
    const keeper = system.shared<P>('keeper', (_w, ctx) => {
      kept ??= ctx.rng; // e.g. handed once to a spawner object
      draws.push(kept.nextUint32());
    });
    const other = system.shared<P>('other', (_w, ctx) => void ctx.rng.nextUint32());
    const { runner } = setup(true, [keeper, other], { seed: 42 });
    runner.run('server', 10);
    runner.run('server', 11);
    runner.run('server', 10); // a resimulation of tick 10
    expect(draws[2]).toBe(draws[0]);
    expect(draws[0]).toBe(new Rng(deriveSeed(42, 10, fnv1a32('keeper'))).nextUint32());
    expect(draws[1]).not.toBe(draws[0]);
  });

  it("gives the owner's input for this tick and neutral defaults otherwise", () => {
    const calls: string[] = [];
    const input = (g: Ghost<P>, tick: number): InputValues<P> | undefined => {
      calls.push(`${g.owner}@${tick}`);
      return g.owner === 9 ? { move: { x: 1, y: -1 }, fire: tick } : undefined;
    };
    const got: InputValues<P>[] = [];
    const { world, runner } = setup(true, [system.shared<P>('read', (w, ctx) => {
      for (const p of w.query('player')) got.push(ctx.input(p));
    })], { input });
    world.add('player', 1, 9, 0);
    world.add('player', 2, 4, 0);
    world.add('player', 3, 0, 0);
    runner.run('server', 12);
    expect(got).toEqual([
      { move: { x: 1, y: -1 }, fire: 12 }, // owner 9's input for tick 12
      { move: { x: 0, y: 0 }, fire: 0 }, // owner 4 has none: neutral
      { move: { x: 0, y: 0 }, fire: 0 }, // no owner: neutral
    ]);
    expect(calls).toEqual(['9@12', '4@12']); // the hook is not asked for unowned ghosts
    expect(Object.isFrozen(got[2]) && Object.isFrozen(got[2]!.move)).toBe(true);
  });
});
