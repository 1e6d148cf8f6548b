// Type tests for the System API: components, queries, spawn and input are typed from
// the protocol, and `defineSystems(protocol, [...])` types `world`/`ctx` without annotations.
import { describe, expectTypeOf, it } from 'vitest';
import { field, type Vec2, type Vec3 } from '../../src/core/field.ts';
import { defineProtocol, ghost } from '../../src/core/protocol.ts';
import { defineSystems, system, type SystemContext, type SystemDef } from '../../src/core/system.ts';
import { EngineWorld, type Ghost, type GhostNames, type GhostValues, type World } from '../../src/core/world.ts';

const protocol = defineProtocol({
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 100 }), hp: field.u8(), state: field.enum(['idle', 'run']), owner: field.u32() }),
    bullet: ghost({ velocity: field.vec2() }, { modes: ['predicted'] }),
  },
  input: { move: field.vec2({ quantize: 100 }), fire: field.event() },
});
type P = typeof protocol;
const world = new EngineWorld(protocol, { isServer: true });

describe('World types', () => {
  it('names the ghost types and types their components', () => {
    expectTypeOf<GhostNames<P>>().toEqualTypeOf<'player' | 'bullet'>();
    expectTypeOf<GhostValues<P, 'player'>>().toEqualTypeOf<{ position: Vec3; hp: number; state: 'idle' | 'run'; owner: number }>();
    for (const g of world.query('player')) {
      expectTypeOf(g).toEqualTypeOf<Ghost<P, 'player'>>();
      expectTypeOf(g.components.position).toEqualTypeOf<Vec3>();
      expectTypeOf(g.components.hp).toEqualTypeOf<number>();
      expectTypeOf(g.components.state).toEqualTypeOf<'idle' | 'run'>();
      expectTypeOf(g.type).toEqualTypeOf<'player'>();
      g.components.hp -= 1; // mutable
      g.components.state = 'run';
      // @ts-expect-error -- not one of the enum values
      g.components.state = 'fly';
      // @ts-expect-error -- players have no velocity
      void g.components.velocity;
    }
  });

  it('rejects unknown ghost types and ill-typed values', () => {
    // @ts-expect-error -- 'typo' is not a ghost type of the protocol
    world.query('typo');
    // @ts-expect-error -- hp is a number
    world.add('player', 1, 0, 0, { hp: 'x' });
    expectTypeOf(world.get(1)).toEqualTypeOf<Ghost<P, 'player'> | Ghost<P, 'bullet'> | undefined>();
    const g = world.get(1);
    if (g?.type === 'player') expectTypeOf(g.components.state).toEqualTypeOf<'idle' | 'run'>(); // narrowed by type
    expectTypeOf<Ghost<P, 'bullet'>>().toExtend<Ghost<P>>();
  });
});

describe('System types', () => {
  it('gives game code a World without the engine-facing structure changes', () => {
    const w: World<P> = world;
    expectTypeOf(w.query('player')).toEqualTypeOf<Iterable<Ghost<P, 'player'>>>();
    // @ts-expect-error -- add is engine-facing: systems spawn with ctx.spawn
    void w.add;
    // @ts-expect-error -- remove is engine-facing: systems despawn with ctx.despawn
    void w.remove;
    // @ts-expect-error -- create, insert, rekey and clear are engine-facing too
    void w.create;
    // @ts-expect-error -- engine-facing
    void w.insert;
    // @ts-expect-error -- engine-facing
    void w.rekey;
    // @ts-expect-error -- engine-facing
    void w.clear;
    // @ts-expect-error -- read-only for game code
    w.localNetworkId = 3;
  });

  it('infers world and ctx from defineSystems without annotations', () => {
    const systems = defineSystems(protocol, [
      system.shared('move', (w, ctx) => {
        expectTypeOf(w).toEqualTypeOf<World<P>>();
        expectTypeOf(ctx).toEqualTypeOf<SystemContext<P>>();
        for (const g of w.query('player')) {
          const input = ctx.input(g);
          expectTypeOf(input).toEqualTypeOf<{ move: Vec2; fire: number }>();
          g.components.position.x += input.move.x * ctx.dt;
          // @ts-expect-error -- the input schema has no 'jump'
          void input.jump;
        }
      }),
      system.server('damage', (w, ctx) => {
        const b = ctx.spawn('bullet', { velocity: { x: 1, y: 0 } }, { owner: 3 });
        expectTypeOf(b).toEqualTypeOf<Ghost<P, 'bullet'>>();
        // the field named "owner" does not collide with the spawn option
        const p = ctx.spawn('player', { owner: 7, hp: 100 });
        expectTypeOf(p.components.owner).toEqualTypeOf<number>();
        // @ts-expect-error -- hp is a number
        ctx.spawn('player', { hp: 'x' });
        // @ts-expect-error -- 'typo' is not a ghost type
        ctx.spawn('typo');
        // @ts-expect-error -- bullets have no hp
        ctx.spawn('bullet', { hp: 1 });
        ctx.despawn(b);
        void w;
      }),
      system.client('fx', (_w, ctx) => {
        expectTypeOf(ctx.isClient).toEqualTypeOf<boolean>();
        expectTypeOf(ctx.rng.next()).toEqualTypeOf<number>();
      }),
    ]);
    expectTypeOf(systems).toEqualTypeOf<readonly SystemDef<P>[]>();
  });

  it('infers P from a typed list too', () => {
    const list: SystemDef<P>[] = [system.shared('m', (w) => void w.query('bullet'))];
    // @ts-expect-error -- 'typo' is not a ghost type
    const bad: SystemDef<P>[] = [system.shared('m', (w) => void w.query('typo'))];
    void list;
    void bad;
  });
});
