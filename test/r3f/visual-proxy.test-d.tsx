// Compile-time checks of <VisualProxy>'s field props: with a typed protocol only the
// vec3 fields of the ghost's type are accepted as positionField and only its quat fields
// as rotationField; an untyped ghost accepts any name (checked at render instead).

import { describe, expectTypeOf, it } from 'vitest';
import type { Ghost } from '../../src/index.ts';
import { VisualProxy, type QuatFieldOf, type Vec3FieldOf } from '../../src/r3f/index.ts';
import type { SpaceProtocol } from './fixtures.ts';

declare const ship: Ghost<SpaceProtocol, 'ship'>;
declare const rock: Ghost<SpaceProtocol, 'rock'>;
declare const untyped: Ghost;

describe('<VisualProxy> field props', () => {
  it('lists the vec3 and quat fields of each ghost type', () => {
    expectTypeOf<Vec3FieldOf<SpaceProtocol, 'ship'>>().toEqualTypeOf<'position'>();
    expectTypeOf<QuatFieldOf<SpaceProtocol, 'ship'>>().toEqualTypeOf<'rotation'>();
    expectTypeOf<Vec3FieldOf<SpaceProtocol, 'rock'>>().toEqualTypeOf<'position' | 'velocity'>();
    expectTypeOf<QuatFieldOf<SpaceProtocol, 'rock'>>().toEqualTypeOf<'spin'>();
  });

  it('accepts the right fields and rejects the others in JSX', () => {
    void (<VisualProxy ghost={ship} positionField="position" rotationField="rotation" />);
    void (<VisualProxy ghost={rock} positionField="velocity" rotationField="spin" />);
    void (<VisualProxy ghost={rock} rotationField={null} />);
    // @ts-expect-error hp is a u8, not a vec3
    void (<VisualProxy ghost={ship} positionField="hp" />);
    // @ts-expect-error rock has no rotation field (its quat is spin)
    void (<VisualProxy ghost={rock} rotationField="rotation" />);
    void (<VisualProxy ghost={untyped} positionField="anything" />);
  });
});
