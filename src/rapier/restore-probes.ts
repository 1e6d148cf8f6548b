// What this Rapier module supports of the in-place restore (restore.ts), checked once per module:
// the JS layout of @dimforge/rapier3d-compat 0.19 that the restore relies on, and probe worlds that
// must continue bit for bit like their twins restored by World.restoreSnapshot. Any exception counts as no.

import type RAPIER from '@dimforge/rapier3d-compat';
import type { Rapier } from './options.ts';
import {
  restoreInPlace, roundTripBroadPhase, snapshotWith,
  type BodyWrapper, type ColliderWrapper, type Part, type RawVector, type WorldLayout,
} from './restore.ts';

const isFn = (o: unknown, name: string): boolean => typeof (o as Record<string, unknown> | null | undefined)?.[name] === 'function';
const has = (o: unknown, name: string): boolean => typeof o === 'object' && o !== null && Object.prototype.hasOwnProperty.call(o, name);

function isCoarena(m: unknown): boolean {
  return has(m, 'data') && Array.isArray((m as { data: unknown }).data) && isFn(m, 'get') && isFn(m, 'set') && isFn(m, 'delete') && isFn(m, 'len');
}

/** A 0.19 World's own members, and the parts a deserialized 0.19 world hands over: nothing more, nothing less. */
const WORLD_KEYS = 'bodies,broadPhase,ccdSolver,characterControllers,colliders,debugRenderPipeline,gravity,impulseJoints,integrationParameters,islands,multibodyJoints,narrowPhase,physicsPipeline,pidControllers,serializationPipeline,vehicleControllers';
const TAKE_KEYS = 'takeBodies,takeBroadPhase,takeColliders,takeGravity,takeImpulseJoints,takeIntegrationParameters,takeIslandManager,takeMultibodyJoints,takeNarrowPhase';

/** The 0.19 JS layout the in-place restore relies on, checked on `world`, one of its bodies and a collider attached to it. */
export function hasInPlaceLayout(world: RAPIER.World, body: RAPIER.RigidBody, collider: RAPIER.Collider): boolean {
  const w = world as unknown as Record<string, unknown>;
  if (Object.keys(w).sort().join(',') !== WORLD_KEYS) return false;
  for (const k of ['integrationParameters', 'islands', 'broadPhase', 'narrowPhase', 'bodies', 'colliders', 'impulseJoints', 'multibodyJoints', 'serializationPipeline']) {
    if (!has(w[k], 'raw') || !isFn((w[k] as Part).raw, 'free')) return false;
  }
  for (const k of ['bodies', 'colliders', 'impulseJoints', 'multibodyJoints']) if (!isCoarena((w[k] as { map?: unknown }).map)) return false;
  const bodies = w.bodies as WorldLayout['bodies'];
  const colliders = w.colliders as WorldLayout['colliders'];
  for (const k of ['len', 'contains', 'forEachRigidBodyHandle']) if (!isFn(bodies.raw, k)) return false;
  for (const k of ['len', 'contains', 'forEachColliderHandle']) if (!isFn(colliders.raw, k)) return false;
  if (!isFn((w.impulseJoints as Part).raw, 'forEachJointHandle') || !isFn((w.multibodyJoints as Part).raw, 'forEachJointHandle')) return false;
  if (!isFn((w.serializationPipeline as Part).raw, 'deserializeAll')) return false;
  const d = (w.serializationPipeline as WorldLayout['serializationPipeline']).raw.deserializeAll(world.takeSnapshot());
  if (d === undefined) return false;
  const takes = Object.getOwnPropertyNames(Object.getPrototypeOf(d)).filter((k) => k.startsWith('take')).sort().join(',');
  d.free(); // its parts (never taken) with it
  if (takes !== TAKE_KEYS) return false;
  if (!has(w, 'gravity')) return false;
  if (!has(body, 'rawSet') || (body as unknown as BodyWrapper).rawSet !== bodies.raw) return false;
  if (!has(collider, 'colliderSet') || (collider as unknown as ColliderWrapper).colliderSet !== colliders) return false;
  if (!has(collider, '_shape') || !has(collider, '_parent') || (collider as unknown as ColliderWrapper)._parent !== (body as unknown)) return false;
  if (!isFn(collider, 'finalizeDeserialization')) return false;
  return bodies.map.get(body.handle) === (body as unknown) && colliders.map.get(collider.handle) === (collider as unknown);
}


/** A probe world: two boxes falling onto a floor and onto each other. */
function probeWorld(R: Rapier, made: RAPIER.World[]): { world: RAPIER.World; handles: number[]; collider: RAPIER.Collider } {
  const world = new R.World({ x: 0, y: -9.81, z: 0 });
  made.push(world);
  world.createCollider(R.ColliderDesc.cuboid(5, 0.5, 5).setTranslation(0, -0.5, 0));
  const handles: number[] = [];
  let collider: RAPIER.Collider | undefined;
  for (let i = 0; i < 2; i++) {
    const body = world.createRigidBody(R.RigidBodyDesc.dynamic().setTranslation(i * 0.2, 0.3 + i * 0.55, 0));
    const c = world.createCollider(R.ColliderDesc.cuboid(0.25, 0.25, 0.25), body);
    collider ??= c;
    handles.push(body.handle);
  }
  return { world, handles, collider: collider! };
}

/** Whether the two worlds' bodies `handles` hold the same translations and velocities, bit for bit, over 30 more steps. */
function continueAlike(a: RAPIER.World, b: RAPIER.World, handles: number[]): boolean {
  for (let i = 0; i < 30; i++) {
    a.step();
    b.step();
    for (const h of handles) {
      const [p, q] = [a.getRigidBody(h), b.getRigidBody(h)];
      const [tp, tq, vp, vq] = [p.translation(), q.translation(), p.linvel(), q.linvel()];
      if (tp.x !== tq.x || tp.y !== tq.y || tp.z !== tq.z || vp.x !== vq.x || vp.y !== vq.y || vp.z !== vq.z) return false;
    }
  }
  return true;
}

/**
 * Whether the broad-phase round trip works with this module: the in-place layout, and a probe
 * world whose broad phase went through it continuing bit for bit like its twin restored in
 * place from its snapshot. Any exception counts as no.
 */
export function broadPhaseRoundTrips(R: Rapier): boolean {
  const made: RAPIER.World[] = [];
  try {
    const a = probeWorld(R, made);
    const b = probeWorld(R, made);
    if (!hasInPlaceLayout(b.world, b.world.getRigidBody(b.handles[0]!), b.collider)) return false;
    const donor = new R.World({ x: 0, y: 0, z: 0 });
    made.push(donor);
    for (let i = 0; i < 20; i++) {
      a.world.step();
      b.world.step();
    }
    restoreInPlace(R, a.world, a.world.takeSnapshot());
    const part = b.world.broadPhase;
    const raw = (part as unknown as Part).raw;
    const vec = R.VectorOps.intoRaw({ x: 0, y: 0, z: 0 }) as unknown as RawVector & { free(): void };
    try {
      roundTripBroadPhase(R, b.world, donor, vec);
    } finally {
      vec.free();
    }
    if (b.world.broadPhase !== part || (part as unknown as Part).raw === raw) return false;
    return continueAlike(a.world, b.world, a.handles);
  } catch {
    return false;
  } finally {
    for (const w of made) w.free();
  }
}

/**
 * Whether `world` can be restored in place with this Rapier module: the layout check, then a
 * probe (two boxes falling onto a floor and onto each other, restored from the same bytes once
 * by World.restoreSnapshot and once in place) that must continue bit for bit alike, with the
 * restored world's body wrappers kept, and whose snapshotWith bytes are takeSnapshot's. Any
 * exception counts as no.
 */
export function inPlaceRestores(R: Rapier): boolean {
  const made: RAPIER.World[] = [];
  try {
    const a = probeWorld(R, made);
    const b = probeWorld(R, made);
    const body = b.world.getRigidBody(b.handles[0]!);
    if (!hasInPlaceLayout(b.world, body, b.collider)) return false;
    for (let i = 0; i < 20; i++) a.world.step();
    const bytes = a.world.takeSnapshot();
    // The adapter records with snapshotWith where the world restores in place: the same bytes.
    const vec = R.VectorOps.intoRaw({ x: 0, y: 0, z: 0 }) as unknown as RawVector & { free(): void };
    let same: Uint8Array | undefined;
    try {
      same = snapshotWith(a.world, vec);
    } finally {
      vec.free();
    }
    if (same === undefined || same.length !== bytes.length || same.some((v, i) => v !== bytes[i])) return false;
    const copy = R.World.restoreSnapshot(bytes);
    made.push(copy);
    b.world.createRigidBody(R.RigidBodyDesc.dynamic().setTranslation(3, 3, 3)); // not in the snapshot: must go
    restoreInPlace(R, b.world, bytes);
    if (b.world.getRigidBody(b.handles[0]!) !== body || b.world.bodies.len() !== 2) return false;
    return continueAlike(copy, b.world, a.handles);
  } catch {
    return false;
  } finally {
    for (const w of made) w.free();
  }
}
