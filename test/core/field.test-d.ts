import { describe, expectTypeOf, it } from 'vitest';
import { BitWriter } from '../../src/core/bits.ts';
import { field, type Field, type FieldValue, type Quat, type Vec2, type Vec3 } from '../../src/core/field.ts';
import { compileSchema, type Schema, type SchemaCodec, type Values } from '../../src/core/schema.ts';

describe('field types', () => {
  it('infers enum literals without `as const`', () => {
    const mode = field.enum(['idle', 'run']);
    expectTypeOf(mode).toEqualTypeOf<Field<'idle' | 'run'>>();
    expectTypeOf<FieldValue<typeof mode>>().toEqualTypeOf<'idle' | 'run'>();
    expectTypeOf(field.enum(['solo']).defaultValue()).toEqualTypeOf<'solo'>();
  });

  it('maps each kind to its value type', () => {
    const schema = {
      a: field.bool(),
      b: field.u8(),
      c: field.u16(),
      d: field.u32(),
      e: field.i32(),
      f: field.f32({ quantize: 100 }),
      g: field.vec2(),
      h: field.vec3({ quantize: 10 }),
      i: field.quat({ bits: 10 }),
      j: field.string(12),
      k: field.enum(['red', 'green', 'blue']),
      l: field.event(),
    };
    expectTypeOf<Values<typeof schema>>().toEqualTypeOf<{
      a: boolean;
      b: number;
      c: number;
      d: number;
      e: number;
      f: number;
      g: Vec2;
      h: Vec3;
      i: Quat;
      j: string;
      k: 'red' | 'green' | 'blue';
      l: number;
    }>();
    expectTypeOf<Vec3>().toEqualTypeOf<{ x: number; y: number; z: number }>();
    expectTypeOf<Quat>().toEqualTypeOf<{ x: number; y: number; z: number; w: number }>();
    const codec = compileSchema(schema);
    expectTypeOf(codec.keys).toEqualTypeOf<readonly ('a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g' | 'h' | 'i' | 'j' | 'k' | 'l')[]>();
    expectTypeOf(codec.read).returns.toEqualTypeOf<Values<typeof schema>>();
  });

  it('lets a specific codec widen to SchemaCodec<Schema> but not back', () => {
    const codec = compileSchema({ name: field.string(8) });
    expectTypeOf(codec).toExtend<SchemaCodec<Schema>>();
    expectTypeOf<SchemaCodec<Schema>>().not.toExtend<typeof codec>();
  });

  it('rejects wrong value types', () => {
    const w = new BitWriter();
    // @ts-expect-error a u8 takes a number
    field.u8().write(w, '5');
    // @ts-expect-error not one of the enum values
    field.enum(['idle', 'run']).write(w, 'walk');
    // @ts-expect-error vec3 needs z
    field.vec3().write(w, { x: 1, y: 2 });
    // @ts-expect-error quat needs w
    field.quat().write(w, { x: 0, y: 0, z: 0 });
    const codec = compileSchema({ hp: field.u8(), mood: field.enum(['calm', 'angry']) });
    // @ts-expect-error hp must be a number
    codec.write(w, { hp: 'full', mood: 'calm' });
    // @ts-expect-error mood is missing
    codec.write(w, { hp: 1 });
    // @ts-expect-error an enum is not a free string
    const mood: 'calm' = codec.defaults().mood;
    void mood;
    // @ts-expect-error quantize is only for float fields
    field.u8({ quantize: 10 });
  });
});
