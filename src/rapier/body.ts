// One ghost's rigid body: its entry (what the body holds, the commands queued for it),
// building it from the ghost's components, saving and loading the entry's cache, and
// quantizing its state exactly as the snapshot codec does. sync.ts writes components
// into bodies and reads them back around the step.

import type RAPIER from '@dimforge/rapier3d-compat';
import { quantizeQuat } from '../core/bits.ts';
import type { Quat, Vec3 } from '../core/field.ts';
import type { GhostMode } from '../core/world.ts';
import type { BodySpec, ColliderShape, Rapier, VecSlot } from './options.ts';

/** What the adapter needs of a ghost (any `Ghost<P, K>` fits). */
export interface PhysicsGhost {
  readonly id: number;
  readonly type: string;
  readonly mode: GhostMode;
  readonly alive: boolean;
  readonly components: object;
}

export interface Entry {
  readonly ghost: PhysicsGhost;
  readonly spec: BodySpec;
  body: RAPIER.RigidBody | undefined;
  /** character only: its collider's twin in the peer's static query world. */
  proxy: RAPIER.Collider | undefined;
  /** Simulated here (server, or predicted on a client); else a kinematic obstacle at its shown pose. */
  simulated: boolean;
  /** Asleep before this tick's step: if it still is after, its state did not change and is not read. */
  asleep: boolean;
  seen: number;
  listed: boolean;
  /** What the body holds, to write only the components that changed since. */
  readonly pos: Vec3;
  readonly rot: Quat;
  readonly lin: Vec3;
  readonly ang: Vec3;
  readonly cmd: Commands;
  /**
   * The body's handle as a heap number, held where it can only be a tagged value (the field starts
   * as undefined): 0.19's handles are non-integer doubles, and passing one read from the body's
   * double field to a call V8 does not inline builds a new heap number each time (≈ 16 bytes per
   * body and tick in the read-back). See `handleOf`.
   */
  handle: number | undefined;
  handleBody: RAPIER.RigidBody | undefined;
}

/** The entry's body handle, from the entry's tagged copy (refreshed when the body object changed). */
export function handleOf(e: Entry): number {
  if (e.handleBody !== e.body) {
    e.handleBody = e.body;
    e.handle = e.body!.handle;
  }
  return e.handle!;
}

/** Queued this tick by moveCharacter / moveKinematic / applyImpulse (kept apart: a ghost may get them before it has a body). */
export interface Commands {
  readonly move: Vec3;
  hasMove: boolean;
  readonly target: Quat;
  hasTarget: boolean;
  readonly impulse: Vec3;
  hasImpulse: boolean;
}

const v3 = (): Vec3 => ({ x: 0, y: 0, z: 0 });
const q4 = (): Quat => ({ x: 0, y: 0, z: 0, w: 1 });

export function newCommands(): Commands {
  return { move: v3(), hasMove: false, target: q4(), hasTarget: false, impulse: v3(), hasImpulse: false };
}

export function clearCommands(c: Commands): void {
  c.hasMove = c.hasTarget = c.hasImpulse = false;
}

export function newEntry(ghost: PhysicsGhost, spec: BodySpec, cmd: Commands): Entry {
  return {
    ghost, spec, body: undefined, proxy: undefined, simulated: false, asleep: false, seen: -1, listed: false,
    pos: v3(), rot: q4(), lin: v3(), ang: v3(), cmd, handle: undefined, handleBody: undefined,
  };
}

/** Component `key` of a ghost (typed by the caller's knowledge of the schema). */
export function comp<T>(e: Entry, key: string): T {
  return (e.ghost.components as Record<string, unknown>)[key] as T;
}

export function colliderDesc(R: Rapier, shape: ColliderShape): RAPIER.ColliderDesc {
  if ('ball' in shape) return R.ColliderDesc.ball(shape.ball);
  if ('cuboid' in shape) return R.ColliderDesc.cuboid(shape.cuboid[0], shape.cuboid[1], shape.cuboid[2]);
  return R.ColliderDesc.capsule(shape.capsule[0], shape.capsule[1]);
}

export const setV = (to: Vec3, from: Vec3): void => {
  to.x = from.x;
  to.y = from.y;
  to.z = from.z;
};
export const setQ = (to: Quat, from: Quat): void => {
  to.x = from.x;
  to.y = from.y;
  to.z = from.z;
  to.w = from.w;
};
export const eqV = (a: Vec3, b: Vec3): boolean => a.x === b.x && a.y === b.y && a.z === b.z;
export const eqQ = (a: Quat, b: Quat): boolean => a.x === b.x && a.y === b.y && a.z === b.z && a.w === b.w;

/**
 * Create the entry's body (and collider) in `world` from its components; `rotation`
 * overrides the rotation component. `atOrigin`: the body of a rebuild template, at the
 * origin, unrotated and at rest, whatever its components hold (writeAll sets them).
 */
export function createBody(R: Rapier, world: RAPIER.World, e: Entry, rotation?: Quat, atOrigin = false): void {
  const { spec } = e;
  const o = spec.options;
  const dynamic = o.kind === 'dynamic' && e.simulated;
  const desc = dynamic ? R.RigidBodyDesc.dynamic() : R.RigidBodyDesc.kinematicPositionBased();
  if (!atOrigin) {
    const pos = comp<Vec3>(e, spec.position.key);
    desc.setTranslation(pos.x, pos.y, pos.z);
    setV(e.pos, pos);
    if (spec.rotation) {
      const rot = rotation ?? comp<Quat>(e, spec.rotation.key);
      desc.setRotation(rot);
      setQ(e.rot, rot);
    }
  }
  if (dynamic) {
    if (!atOrigin && spec.linvel) {
      const lin = comp<Vec3>(e, spec.linvel.key);
      desc.setLinvel(lin.x, lin.y, lin.z);
      setV(e.lin, lin);
    }
    if (!atOrigin && spec.angvel) {
      const ang = comp<Vec3>(e, spec.angvel.key);
      desc.setAngvel(ang);
      setV(e.ang, ang);
    }
    if (!spec.rotation) desc.lockRotations();
    if (o.linearDamping !== undefined) desc.setLinearDamping(o.linearDamping);
    if (o.angularDamping !== undefined) desc.setAngularDamping(o.angularDamping);
  }
  const body = world.createRigidBody(desc);
  const cd = colliderDesc(R, o.collider);
  if (o.density !== undefined) cd.setDensity(o.density);
  if (o.friction !== undefined) cd.setFriction(o.friction);
  if (o.restitution !== undefined) cd.setRestitution(o.restitution);
  world.createCollider(cd, body);
  e.body = body;
}

/** Numbers per entry in a saved cache (saveCache / loadCache): pos 3, rot 4, lin 3, ang 3. */
export const CACHE_SIZE = 13;

/** Save what the body holds (the entry's cache) at `out[at … at + 13)`. */
export function saveCache(e: Entry, out: Float64Array, at: number): void {
  out[at] = e.pos.x;
  out[at + 1] = e.pos.y;
  out[at + 2] = e.pos.z;
  out[at + 3] = e.rot.x;
  out[at + 4] = e.rot.y;
  out[at + 5] = e.rot.z;
  out[at + 6] = e.rot.w;
  out[at + 7] = e.lin.x;
  out[at + 8] = e.lin.y;
  out[at + 9] = e.lin.z;
  out[at + 10] = e.ang.x;
  out[at + 11] = e.ang.y;
  out[at + 12] = e.ang.z;
}

export function loadCache(e: Entry, from: Float64Array, at: number): void {
  e.pos.x = from[at]!;
  e.pos.y = from[at + 1]!;
  e.pos.z = from[at + 2]!;
  e.rot.x = from[at + 3]!;
  e.rot.y = from[at + 4]!;
  e.rot.z = from[at + 5]!;
  e.rot.w = from[at + 6]!;
  e.lin.x = from[at + 7]!;
  e.lin.y = from[at + 8]!;
  e.lin.z = from[at + 9]!;
  e.ang.x = from[at + 10]!;
  e.ang.y = from[at + 11]!;
  e.ang.z = from[at + 12]!;
}

function quantizeVec(v: Vec3, q: number | undefined): void {
  if (q === undefined) {
    v.x = Math.fround(v.x);
    v.y = Math.fround(v.y);
    v.z = Math.fround(v.z);
  } else {
    // Exactly the codec's rounding: (round(v·q) + 0) / q (the + 0 turns −0 into 0).
    v.x = (Math.round(v.x * q) + 0) / q;
    v.y = (Math.round(v.y * q) + 0) / q;
    v.z = (Math.round(v.z * q) + 0) / q;
  }
}

function quantizeSlot(e: Entry, s: VecSlot | undefined): void {
  if (s) quantizeVec(comp<Vec3>(e, s.key), s.q);
}

/** Quantize the entry's state components in place, as a snapshot round trip would. */
export function quantizeState(e: Entry): void {
  const { spec } = e;
  quantizeSlot(e, spec.position);
  quantizeSlot(e, spec.linvel);
  quantizeSlot(e, spec.angvel);
  if (spec.rotation) {
    const r = comp<Quat>(e, spec.rotation.key);
    quantizeQuat(r, spec.rotation.bits, r);
  }
}

const orbit = [q4(), q4(), q4(), q4()] as const;
const less = (a: Quat, b: Quat): boolean => (a.x !== b.x ? a.x < b.x : a.y !== b.y ? a.y < b.y : a.z !== b.z ? a.z < b.z : a.w < b.w);

/**
 * The rotation a rebuild uses: the same on the server (which holds a quantized q) and
 * on a client (which decoded Q(q)). Smallest-three quantization is not idempotent: for
 * ≈0.04 % of rotations at 12 bits Q(Q(q)) = q ≠ Q(q), a 2-cycle. Both sides take the
 * least element of the orbit {Q(q), Q²(q), Q³(q), Q⁴(q)}: one Q call when q is a fixed point.
 */
export function canonicalRotation(q: Quat, bits: number, out: Quat): Quat {
  quantizeQuat(q, bits, orbit[0]);
  if (eqQ(orbit[0], q)) {
    setQ(out, q);
    return out;
  }
  let best: Quat = orbit[0];
  for (let i = 1; i < orbit.length; i++) {
    quantizeQuat(orbit[i - 1]!, bits, orbit[i]!);
    if (less(orbit[i]!, best)) best = orbit[i]!;
  }
  setQ(out, best);
  return out;
}
