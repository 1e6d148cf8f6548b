// The static level, declared once: the ground slab, the four arena walls and a goal
// in each end wall (an opening GOAL_HALF_WIDTH either side of z = 0 under a crossbar,
// with a box behind it), as cuboids. The physics adapter builds them into every
// Rapier world (server and each client, identically) and the client draws the same list.
import type RAPIER from '@dimforge/rapier3d-compat';

export const ARENA_HALF_SIZE = 20; // m: the walls' inner faces are at ±20 on x and z
export const WALL_HEIGHT = 2.5;
export const WALL_THICKNESS = 1;
/** The goal mouths in the end walls (x = ±20): |z| < 3 m, under a crossbar at 2 m; 2 m deep. */
export const GOAL_HALF_WIDTH = 3;
export const GOAL_HEIGHT = 2;
export const GOAL_DEPTH = 2;

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

/** The end wall at x = side × (H + T) with its goal: two wall segments, the crossbar, the goal's back, sides and roof. */
function endWall(side: 1 | -1): LevelBox[] {
  const sign = side > 0 ? '+x' : '-x';
  const x = side * (H + T);
  const segment = (outer - GOAL_HALF_WIDTH) / 2; // half length of each wall segment beside the mouth
  const inner = H + GOAL_DEPTH / 2; // centre of the goal's inside along x
  return [
    { name: `wall ${sign} left`, at: [x, WALL_HEIGHT / 2, GOAL_HALF_WIDTH + segment], half: [T, WALL_HEIGHT / 2, segment] },
    { name: `wall ${sign} right`, at: [x, WALL_HEIGHT / 2, -GOAL_HALF_WIDTH - segment], half: [T, WALL_HEIGHT / 2, segment] },
    { name: `goal ${sign} crossbar`, at: [x, (GOAL_HEIGHT + WALL_HEIGHT) / 2, 0], half: [T, (WALL_HEIGHT - GOAL_HEIGHT) / 2, GOAL_HALF_WIDTH] },
    { name: `goal ${sign} back`, at: [side * (H + GOAL_DEPTH + T), WALL_HEIGHT / 2, 0], half: [T, WALL_HEIGHT / 2, GOAL_HALF_WIDTH + WALL_THICKNESS] },
    { name: `goal ${sign} side +z`, at: [side * inner, WALL_HEIGHT / 2, GOAL_HALF_WIDTH + T], half: [GOAL_DEPTH / 2, WALL_HEIGHT / 2, T] },
    { name: `goal ${sign} side -z`, at: [side * inner, WALL_HEIGHT / 2, -GOAL_HALF_WIDTH - T], half: [GOAL_DEPTH / 2, WALL_HEIGHT / 2, T] },
    { name: `goal ${sign} roof`, at: [side * inner, GOAL_HEIGHT + T / 2, 0], half: [GOAL_DEPTH / 2, T / 2, GOAL_HALF_WIDTH] },
  ];
}

export const LEVEL: readonly LevelBox[] = [
  // Top face at y = 0, wider than the walls and the goals so nothing slips off at a corner.
  { name: 'ground', at: [0, -0.5, 0], half: [outer + GOAL_DEPTH + 1, 0.5, outer + 1] },
  ...endWall(1),
  ...endWall(-1),
  { name: 'wall +z', at: [0, WALL_HEIGHT / 2, H + T], half: [H, WALL_HEIGHT / 2, T] },
  { name: 'wall -z', at: [0, WALL_HEIGHT / 2, -H - T], half: [H, WALL_HEIGHT / 2, T] },
];

/** PhysicsOptions.level: the same fixed colliders on every call and every peer. */
export function buildLevel(world: RAPIER.World, R: typeof RAPIER): void {
  for (const box of LEVEL) {
    world.createCollider(R.ColliderDesc.cuboid(box.half[0], box.half[1], box.half[2]).setTranslation(box.at[0], box.at[1], box.at[2]).setFriction(0.8));
  }
}
