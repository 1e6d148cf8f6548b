// The static level, declared once: the ground slab and the four arena walls as
// cuboids. The physics adapter builds them into every Rapier world (server and each
// client, identically) and the client draws the same list.
import type RAPIER from '@dimforge/rapier3d-compat';

export const ARENA_HALF_SIZE = 20; // m: the walls' inner faces are at ±20 on x and z
export const WALL_HEIGHT = 2.5;
export const WALL_THICKNESS = 1;

export interface LevelBox {
  readonly name: string;
  /** Centre (m). */
  readonly at: readonly [number, number, number];
  /** Half extents (m). */
  readonly half: readonly [number, number, number];
}

const H = ARENA_HALF_SIZE;
const T = WALL_THICKNESS / 2;
const outer = H + WALL_THICKNESS;

export const LEVEL: readonly LevelBox[] = [
  // Top face at y = 0, wider than the walls so nothing slips off at a corner.
  { name: 'ground', at: [0, -0.5, 0], half: [outer + 1, 0.5, outer + 1] },
  { name: 'wall +x', at: [H + T, WALL_HEIGHT / 2, 0], half: [T, WALL_HEIGHT / 2, outer] },
  { name: 'wall -x', at: [-H - T, WALL_HEIGHT / 2, 0], half: [T, WALL_HEIGHT / 2, outer] },
  { name: 'wall +z', at: [0, WALL_HEIGHT / 2, H + T], half: [H, WALL_HEIGHT / 2, T] },
  { name: 'wall -z', at: [0, WALL_HEIGHT / 2, -H - T], half: [H, WALL_HEIGHT / 2, T] },
];

/** PhysicsOptions.level: the same fixed colliders on every call and every peer. */
export function buildLevel(world: RAPIER.World, R: typeof RAPIER): void {
  for (const box of LEVEL) {
    world.createCollider(R.ColliderDesc.cuboid(box.half[0], box.half[1], box.half[2]).setTranslation(box.at[0], box.at[1], box.at[2]).setFriction(0.8));
  }
}
