// The scene's particles (particles.ts): one pool and one InstancedMesh of small octahedra
// for every explosion and goal. `burst` is called from event handlers (a grenade's or a
// ball's despawn); the mesh's frame callback steps the pool and uploads the instance
// matrices only while a spark is alive, and the mesh is drawn only then. Nothing is allocated per frame.
import { useFrame } from '@react-three/fiber';
import { useEffect, useRef, type ReactNode } from 'react';
import { InstancedBufferAttribute, type InstancedMesh } from 'three';
import type { Vec3 } from 'react-netcode';
import { ParticlePool, type BurstSpec } from './particles.ts';

export const PARTICLE_CAPACITY = 1024;
const pool = new ParticlePool(PARTICLE_CAPACITY);
const matrices = new Float32Array(16 * PARTICLE_CAPACITY);
let fresh = false;

/** Start a burst of sparks at `at` (drawn from the next frame on). */
export function burst(at: Readonly<Vec3>, spec: Readonly<BurstSpec>): void {
  pool.burst(at, spec);
  fresh = true;
}

/** Sparks alive (the debug hook reads it). */
export const particlesAlive = (): number => pool.alive;

export function Particles(): ReactNode {
  const mesh = useRef<InstancedMesh>(null);
  const active = useRef(true);
  useEffect(() => {
    const m = mesh.current;
    if (m === null) return;
    m.instanceMatrix = new InstancedBufferAttribute(matrices, 16);
    m.instanceColor = new InstancedBufferAttribute(pool.colour, 3);
    m.instanceMatrix.needsUpdate = true;
  }, []);
  useFrame((_, delta) => {
    const m = mesh.current;
    if (m === null || (!active.current && !fresh)) return;
    if (fresh && m.instanceColor !== null) m.instanceColor.needsUpdate = true;
    fresh = false;
    active.current = pool.step(Math.min(delta, 0.1), matrices);
    m.instanceMatrix.needsUpdate = true;
    m.visible = active.current; // no draw call while no spark lives
  });
  return (
    <instancedMesh ref={mesh} args={[undefined, undefined, PARTICLE_CAPACITY]} frustumCulled={false} visible={false}>
      <octahedronGeometry args={[1, 0]} />
      <meshBasicMaterial toneMapped={false} />
    </instancedMesh>
  );
}
