import { describe, expectTypeOf, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, system, type Field, type NetServer, type Vec3 } from '../../src/index.ts';
import type { RequiredField } from '../../src/core/field.ts';
import type { GhostInit } from '../../src/core/world.ts';

const protocol = defineProtocol({
  ghosts: {
    ball: ghost({ position: field.vec3({ quantize: 1000, required: true }), kind: field.enum(['soft', 'hard'], { required: true }), spin: field.f32() }),
    crate: ghost({ hp: field.u8() }),
  },
});
type P = typeof protocol;

describe('required fields', () => {
  it('a builder with required: true returns a RequiredField, without it a Field', () => {
    expectTypeOf(field.u8({ required: true })).toEqualTypeOf<RequiredField<number>>();
    expectTypeOf(field.string(8, { required: true })).toEqualTypeOf<RequiredField<string>>();
    expectTypeOf(field.u8({ required: false })).toEqualTypeOf<Field<number>>();
    expectTypeOf(field.vec3()).toEqualTypeOf<Field<Vec3>>();
  });

  it('the spawn init requires the required fields and leaves the others optional', () => {
    expectTypeOf<GhostInit<P, 'ball'>>().toEqualTypeOf<{ position: Vec3; kind: 'soft' | 'hard' } & { spin?: number }>();
    const server = {} as NetServer<P>;
    // @ts-expect-error: 'ball' has required fields, so the init cannot be omitted
    server.spawn('ball');
    // @ts-expect-error: kind is required
    server.spawn('ball', { position: { x: 0, y: 0, z: 0 } });
    server.spawn('ball', { position: { x: 0, y: 0, z: 0 }, kind: 'soft' }, { owner: 1 });
    server.spawn('crate');
    server.spawn('crate', { hp: 3 });
  });

  it('ctx.spawn in a system is checked alike', () => {
    defineSystems(protocol, [
      system.shared('throw', (_world, ctx) => {
        // @ts-expect-error: position and kind are required
        ctx.spawn('ball', { spin: 1 });
        ctx.spawn('ball', { position: { x: 0, y: 1, z: 0 }, kind: 'hard', spin: 2 });
        ctx.spawn('crate');
      }),
    ]);
  });
});
