// The follow camera's aim: it keeps the local player and the ball nearest to it in view.
// The camera looks at a point between the two (FOCUS_SHARE of the way from the player to
// the ball) from the usual offset (up and behind, towards +z), pulled back along that
// offset just enough that both project inside the middle VIEW_MARGIN of the screen, at
// most MAX_PULL times as far. Without a ball in range it is the plain follow camera.
import { Vector3, type PerspectiveCamera } from 'three';
import type { Vec3 } from 'react-netcode';

export const CAMERA_OFFSET: Readonly<Vec3> = Object.freeze({ x: 0, y: 9, z: 12 });
/** Balls further than this (m, horizontally) from the player do not pull the camera. */
export const FOLLOW_BALL_RANGE = 16;
export const FOCUS_SHARE = 0.4;
/** Both points stay within this share of the half-screen (normalised device coordinates). */
export const VIEW_MARGIN = 0.8;
export const MAX_PULL = 2.2;
const PULL_STEP = 0.1;

const a = new Vector3();
const b = new Vector3();

/** The ball position nearest to `player` horizontally within FOLLOW_BALL_RANGE, copied into `out`; false if none. */
export function nearestInRange(player: Readonly<Vec3>, balls: Iterable<Readonly<Vec3>>, out: Vec3): boolean {
  let best = FOLLOW_BALL_RANGE * FOLLOW_BALL_RANGE;
  let found = false;
  for (const p of balls) {
    const d2 = (p.x - player.x) ** 2 + (p.z - player.z) ** 2;
    if (d2 > best) continue;
    best = d2;
    out.x = p.x;
    out.y = p.y;
    out.z = p.z;
    found = true;
  }
  return found;
}

/**
 * Where the camera should look (`focus`) and stand (`position`) to show `player` and `ball`
 * (undefined: the player alone). `probe` is a scratch camera with the real one's fov and
 * aspect; it is moved. Allocates nothing.
 */
export function aimCamera(player: Readonly<Vec3>, ball: Readonly<Vec3> | undefined, probe: PerspectiveCamera, focus: Vector3, position: Vector3): void {
  focus.set(player.x, player.y + 0.1, player.z);
  if (ball !== undefined) {
    focus.x += FOCUS_SHARE * (ball.x - player.x);
    focus.z += FOCUS_SHARE * (ball.z - player.z);
  }
  for (let pull = 1; ; pull += PULL_STEP) {
    position.set(focus.x + CAMERA_OFFSET.x * pull, focus.y + CAMERA_OFFSET.y * pull, focus.z + CAMERA_OFFSET.z * pull);
    if (ball === undefined || pull >= MAX_PULL) return;
    probe.position.copy(position);
    probe.lookAt(focus);
    probe.updateMatrixWorld();
    a.set(player.x, player.y, player.z).project(probe);
    b.set(ball.x, ball.y, ball.z).project(probe);
    if (Math.max(Math.abs(a.x), Math.abs(a.y), Math.abs(b.x), Math.abs(b.y)) <= VIEW_MARGIN) return;
  }
}
