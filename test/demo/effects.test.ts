// The scene's effects, outside the browser: the particle pool (demo/client/particles.ts) and
// the follow camera's aim (demo/client/camera.ts).
import { PerspectiveCamera, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { aimCamera, CAMERA_OFFSET, FOLLOW_BALL_RANGE, MAX_PULL, nearestInRange, VIEW_MARGIN } from '../../demo/client/camera.ts';
import { BLAST_BURST, goalBurst, ParticlePool } from '../../demo/client/particles.ts';

const scaleOf = (m: Float32Array, i: number): number => m[16 * i]!;

describe('demo particles', () => {
  it('a burst lights its sparks, which fall, shrink and die within their life; dead slots draw at scale 0', () => {
    const pool = new ParticlePool(256, 3);
    const matrices = new Float32Array(16 * 256);
    pool.burst({ x: 1, y: 0.5, z: 2 }, BLAST_BURST);
    expect(pool.alive).toBe(BLAST_BURST.count);
    expect(pool.step(1 / 60, matrices)).toBe(true);
    const first = scaleOf(matrices, 0);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(BLAST_BURST.size);
    expect(scaleOf(matrices, BLAST_BURST.count)).toBe(0); // an unused slot
    for (let t = 0; t < 0.3; t += 1 / 60) pool.step(1 / 60, matrices);
    expect(scaleOf(matrices, 0)).toBeLessThan(first);
    let lowest = Infinity;
    for (let i = 0; i < BLAST_BURST.count; i++) lowest = Math.min(lowest, pool.position[3 * i + 1]!);
    expect(lowest).toBeGreaterThanOrEqual(0); // none below the ground
    for (let t = 0; t < BLAST_BURST.life[1]; t += 1 / 60) pool.step(1 / 60, matrices);
    expect(pool.alive).toBe(0);
    expect(pool.step(1 / 60, matrices)).toBe(false);
    for (let i = 0; i < 256; i++) expect(scaleOf(matrices, i)).toBe(0);
  });

  it('a full pool reuses its oldest slots: never more sparks than its capacity', () => {
    const pool = new ParticlePool(200, 1);
    const goal = goalBurst(0xe53935);
    pool.burst({ x: 20, y: 1, z: 0 }, goal);
    pool.burst({ x: 20, y: 1, z: 0 }, goal);
    expect(goal.count * 2).toBeGreaterThan(200);
    expect(pool.alive).toBe(200);
    const colours = new Set<string>();
    for (let i = 0; i < 200; i++) colours.add([0, 1, 2].map((k) => pool.colour[3 * i + k]!.toFixed(3)).join());
    expect(colours.has([0xe5 / 255, 0x39 / 255, 0x35 / 255].map((c) => c.toFixed(3)).join())).toBe(true); // the team colour
  });
});

describe('demo follow camera', () => {
  const probe = new PerspectiveCamera(45, 1, 0.1, 200);
  const focus = new Vector3();
  const position = new Vector3();
  const inView = (aspect: number, p: { x: number; y: number; z: number }): number => {
    const cam = new PerspectiveCamera(45, aspect, 0.1, 200);
    cam.position.copy(position);
    cam.lookAt(focus);
    cam.updateMatrixWorld();
    const v = new Vector3(p.x, p.y, p.z).project(cam);
    return Math.max(Math.abs(v.x), Math.abs(v.y));
  };

  it('alone, the player is followed from the plain offset', () => {
    aimCamera({ x: 3, y: 0.9, z: -4 }, undefined, probe, focus, position);
    expect(position.toArray()).toEqual([3 + CAMERA_OFFSET.x, 1 + CAMERA_OFFSET.y, -4 + CAMERA_OFFSET.z]);
  });

  it('keeps the player and the ball inside the view, wide and phone-shaped, pulling back only as far as needed', () => {
    const player = { x: 0, y: 0.9, z: 0 };
    let pulled = 0;
    for (const aspect of [16 / 10, 390 / 700]) {
      probe.aspect = aspect;
      probe.updateProjectionMatrix();
      for (let angle = 0; angle < 2 * Math.PI; angle += Math.PI / 6) {
        for (const d of [2, 6, 10]) {
          const ball = { x: Math.sin(angle) * d, y: 0.5, z: Math.cos(angle) * d };
          aimCamera(player, ball, probe, focus, position);
          const pull = (position.y - focus.y) / CAMERA_OFFSET.y;
          if (pull > 1.01) pulled++;
          if (pull < MAX_PULL) {
            expect(inView(aspect, player), `player, aspect ${aspect.toFixed(2)}, ball at ${angle.toFixed(2)} rad ${d} m`).toBeLessThanOrEqual(VIEW_MARGIN + 1e-6);
            expect(inView(aspect, ball), `ball, aspect ${aspect.toFixed(2)}, at ${angle.toFixed(2)} rad ${d} m`).toBeLessThanOrEqual(VIEW_MARGIN + 1e-6);
          } else {
            expect(inView(aspect, ball)).toBeLessThan(1.3); // the farthest pull: at worst near the edge
          }
        }
      }
    }
    expect(pulled).toBeGreaterThan(0);
  });

  it('only a ball within range pulls the camera: the nearest one', () => {
    const out = { x: 0, y: 0, z: 0 };
    expect(nearestInRange({ x: 0, y: 0, z: 0 }, [{ x: FOLLOW_BALL_RANGE + 1, y: 0, z: 0 }], out)).toBe(false);
    expect(nearestInRange({ x: 0, y: 0, z: 0 }, [{ x: 9, y: 0, z: 0 }, { x: 0, y: 0, z: -4 }, { x: 5, y: 0, z: 5 }], out)).toBe(true);
    expect(out).toEqual({ x: 0, y: 0, z: -4 });
  });
});
