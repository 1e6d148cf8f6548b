// What the Rapier stories share: RAPIER.init() once per page, and the walled box arena their
// predicted worlds are built in (a floor, side walls at x = ±WALL, front/back walls at
// z = ±DEPTH, a kinematic paddle and dynamic boxes).
import RAPIER from '@dimforge/rapier3d-compat';
import { useEffect, useState } from 'react';
import type { BodyOptions } from 'react-netcode/rapier';

export const HALF = 0.25; // box half extent
export const PADDLE = 0.4; // paddle half extent
export const WALL = 5; // inner faces of the side walls at x = ±WALL
export const DEPTH = 1; // inner faces of the front/back walls at z = ±DEPTH

let rapierReady: Promise<void> | undefined;

/** RAPIER.init() once per page (the WASM module); the stories show a loading state until it is true. */
export function useRapierReady(): boolean {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    let live = true;
    rapierReady ??= RAPIER.init();
    void rapierReady.then(() => live && setReady(true));
    return () => {
      live = false;
    };
  }, []);
  return ready;
}

/** The arena's static colliders (createPhysics' `level`). */
export function boxArenaLevel(world: RAPIER.World, R: typeof RAPIER): void {
  world.createCollider(R.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0));
  for (const side of [-1, 1]) {
    world.createCollider(R.ColliderDesc.cuboid(0.5, 5, 50).setTranslation(side * (WALL + 0.5), 5, 0));
    world.createCollider(R.ColliderDesc.cuboid(50, 5, 0.5).setTranslation(0, 5, side * (DEPTH + 0.5)));
  }
}

/** The paddle (`player`) and `box` bodies (createPhysics' `bodies`). */
export const boxArenaBodies = {
  player: { kind: 'kinematic', collider: { cuboid: [PADDLE, PADDLE, PADDLE] } },
  box: { kind: 'dynamic', collider: { cuboid: [HALF, HALF, HALF] }, density: 1, friction: 0.5 },
} as const satisfies Record<string, BodyOptions>;
