// Restoring a Rapier world from takeSnapshot() bytes without building a new JS World.
//
// World.restoreSnapshot(bytes) deserializes the bytes into raw wasm parts and wraps them in a
// brand-new World: new JS sets, one JS RigidBody and one Collider wrapper per body and
// collider (each collider also asks wasm for its parent), and a new physics pipeline, CCD
// solver, serialization and debug-render pipeline, while the caller frees the old world. The
// in-place restore deserializes the same bytes (with the world's own serialization pipeline),
// frees the raw parts the world's sets hold, puts the deserialized ones in their place, and
// reconciles the sets' wrapper maps: the wrappers of bodies and colliders present in both
// worlds are kept (so `world.getRigidBody(h)` returns the same object as before), the others
// are dropped or created. The step reads only the raw parts, so the world then steps as one
// restored by World.restoreSnapshot (test/rapier/restore.test.ts compares them bit for bit).
//
// This relies on the JS layout of @dimforge/rapier3d-compat 0.19 (a set's `raw` and `map`
// members, a RigidBody's `rawSet`, a Collider's `colliderSet` and `_shape`, the Coarena's
// `data`). `inPlaceRestores(R)` checks that layout on a probe world and that a world restored
// in place continues like one restored by World.restoreSnapshot (restore-probes.ts); where it does
// not (another version), the adapter uses World.restoreSnapshot.
//
// Precondition: the bytes come from this world's own past (the adapter's records), so a
// handle present in both worlds names the same body or collider.

import type RAPIER from '@dimforge/rapier3d-compat';
import { NetcodeError } from '../core/errors.ts';
import type { Rapier } from './options.ts';
import { slotsOf } from './part-slots.ts';
import { ScratchWrap, wrapClassOf } from './scratch.ts';

export interface Freeable {
  free(): void;
}

/** Rapier's Coarena: the handle → wrapper map of a JS set. */
interface Coarena<T> {
  data: (T | null | undefined)[];
  get(handle: number): T | null;
  set(handle: number, value: T): void;
  delete(handle: number): void;
  len(): number;
}

interface RawBodySet extends Freeable {
  len(): number;
  contains(handle: number): boolean;
  forEachRigidBodyHandle(f: (handle: number) => void): void;
}
interface RawColliderSet extends Freeable {
  len(): number;
  contains(handle: number): boolean;
  forEachColliderHandle(f: (handle: number) => void): void;
}
interface RawJointSet extends Freeable {
  forEachJointHandle(f: (handle: number) => void): void;
}

export interface BodyWrapper {
  readonly handle: number;
  rawSet: RawBodySet;
}
export interface ColliderWrapper {
  readonly handle: number;
  colliderSet: unknown;
  _shape: unknown;
  _parent: { readonly handle: number } | null;
  finalizeDeserialization(bodies: unknown): void;
}

export interface Part<Raw = Freeable> {
  raw: Raw;
}
interface MappedPart<Raw, T> extends Part<Raw> {
  map: Coarena<T>;
  finalizeDeserialization?(other: unknown): void;
}

export interface Deserialized extends Freeable {
  takeGravity(): { x: number; y: number; z: number; free(): void } | undefined;
  takeIntegrationParameters(): Freeable | undefined;
  takeIslandManager(): Freeable | undefined;
  takeBroadPhase(): Freeable | undefined;
  takeNarrowPhase(): Freeable | undefined;
  takeBodies(): RawBodySet | undefined;
  takeColliders(): RawColliderSet | undefined;
  takeImpulseJoints(): RawJointSet | undefined;
  takeMultibodyJoints(): RawJointSet | undefined;
}

/** The members of a 0.19 World the in-place restore touches. */
export interface WorldLayout {
  gravity: { x: number; y: number; z: number };
  integrationParameters: Part;
  islands: Part;
  broadPhase: Part;
  narrowPhase: Part;
  bodies: MappedPart<RawBodySet, BodyWrapper>;
  colliders: MappedPart<RawColliderSet, ColliderWrapper>;
  impulseJoints: MappedPart<RawJointSet, unknown>;
  multibodyJoints: MappedPart<RawJointSet, unknown>;
  serializationPipeline: Part<{
    deserializeAll(bytes: Uint8Array): Deserialized | undefined;
    serializeAll(...raws: unknown[]): Uint8Array | undefined;
  }>;
}

/** A wasm vector (RawVector) the caller reuses. */
export interface RawVector {
  x: number;
  y: number;
  z: number;
}

/**
 * `world.takeSnapshot()` with the caller's wasm vector for the gravity: World.takeSnapshot wraps
 * the gravity in a new wasm vector per call. The same raw call with the same parts (0.19's layout,
 * which `inPlaceRestores` checks, with these bytes equal to takeSnapshot's).
 */
export function snapshotWith(world: RAPIER.World, gravity: RawVector): Uint8Array | undefined {
  const w = world as unknown as WorldLayout;
  const g = w.gravity;
  gravity.x = g.x;
  gravity.y = g.y;
  gravity.z = g.z;
  return w.serializationPipeline.raw.serializeAll(
    gravity, w.integrationParameters.raw, w.islands.raw, w.broadPhase.raw, w.narrowPhase.raw, w.bodies.raw, w.colliders.raw,
    w.impulseJoints.raw, w.multibodyJoints.raw,
  );
}

/** Per Rapier module: reused objects for the deserialized world and its gravity vector, which a restore frees at once (scratch.ts). */
interface Scratches {
  world: ScratchWrap | undefined;
  vec: ScratchWrap | undefined;
}
const scratches = new WeakMap<object, Scratches>();

function scratchesOf(R: Rapier): Scratches {
  let s = scratches.get(R);
  if (s === undefined) scratches.set(R, (s = { world: undefined, vec: undefined }));
  return s;
}

/** `world`'s pipeline deserializing `bytes`, into the reused object once the class is known. */
function deserialize(R: Rapier, w: WorldLayout, bytes: Uint8Array): Deserialized | undefined {
  const s = scratchesOf(R);
  const pipeline = w.serializationPipeline.raw;
  if (s.world === undefined) {
    const d = pipeline.deserializeAll(bytes);
    const C = wrapClassOf(d);
    if (C !== undefined) s.world = new ScratchWrap(C);
    return d;
  }
  s.world.begin();
  try {
    return pipeline.deserializeAll(bytes);
  } finally {
    s.world.end();
  }
}

function takeGravity(R: Rapier, d: Deserialized): { x: number; y: number; z: number; free(): void } | undefined {
  const s = scratchesOf(R);
  if (s.vec === undefined) {
    const g = d.takeGravity();
    const C = wrapClassOf(g);
    if (C !== undefined) s.vec = new ScratchWrap(C);
    return g;
  }
  s.vec.begin();
  try {
    return d.takeGravity();
  } finally {
    s.vec.end();
  }
}

/** One reusable handle callback per world set (no closure per restore). */
class Reconciler {
  bodies!: WorldLayout['bodies'];
  colliders!: WorldLayout['colliders'];
  hasJoint = false;
  constructor(private readonly R: Rapier) {}

  readonly addBody = (h: number): void => {
    const map = this.bodies.map;
    if (map.get(h) != null) return;
    map.set(h, new this.R.RigidBody(this.bodies.raw as never, this.colliders as never, h) as unknown as BodyWrapper);
  };

  readonly addCollider = (h: number): void => {
    const map = this.colliders.map;
    if (map.get(h) != null) return;
    const c = new this.R.Collider(this.colliders as never, h, null) as unknown as ColliderWrapper;
    c.finalizeDeserialization(this.bodies);
    map.set(h, c);
  };

  readonly sawJoint = (): void => {
    this.hasJoint = true;
  };
}

const reconcilers = new WeakMap<object, Reconciler>();

/**
 * Restore `world` to the state `bytes` (from `world.takeSnapshot()`, in this world's past)
 * describe, in place. Only call it where `inPlaceRestores(R)` holds.
 */
export function restoreInPlace(R: Rapier, world: RAPIER.World, bytes: Uint8Array): void {
  const w = world as unknown as WorldLayout;
  const d = deserialize(R, w, bytes);
  if (d === undefined) throw new NetcodeError('internal', 'react-netcode: Rapier could not read a world snapshot; the bytes must come from world.takeSnapshot() of the same Rapier version (please report it).');
  try {
    const g = takeGravity(R, d);
    if (g !== undefined) {
      // World keeps the object it was given as its gravity: replace it rather than write into it.
      if (g.x !== w.gravity.x || g.y !== w.gravity.y || g.z !== w.gravity.z) w.gravity = { x: g.x, y: g.y, z: g.z };
      g.free();
    }
    const slots = slotsOf(world);
    slots.integrationParameters.take(w.integrationParameters, d, 'takeIntegrationParameters');
    slots.islands.take(w.islands, d, 'takeIslandManager');
    slots.broadPhase.take(w.broadPhase, d, 'takeBroadPhase');
    slots.narrowPhase.take(w.narrowPhase, d, 'takeNarrowPhase');
    slots.bodies.take(w.bodies as unknown as Part, d, 'takeBodies');
    slots.colliders.take(w.colliders as unknown as Part, d, 'takeColliders');
    slots.impulseJoints.take(w.impulseJoints as unknown as Part, d, 'takeImpulseJoints');
    slots.multibodyJoints.take(w.multibodyJoints as unknown as Part, d, 'takeMultibodyJoints');
  } finally {
    d.free();
  }

  let rec = reconcilers.get(world);
  if (rec === undefined) reconcilers.set(world, (rec = new Reconciler(R)));
  rec.bodies = w.bodies;
  rec.colliders = w.colliders;

  // Bodies: keep the wrappers whose handle (index and generation) the restored set holds, on the new raw set.
  const bodies = w.bodies;
  const braw = bodies.raw;
  const bdata = bodies.map.data;
  for (let i = 0; i < bdata.length; i++) {
    const b = bdata[i];
    if (b == null) continue;
    if (braw.contains(b.handle)) b.rawSet = braw;
    else bodies.map.delete(b.handle);
  }
  // The kept wrappers are all in the restored set: where the counts agree, none is missing.
  if (bodies.map.len() !== braw.len()) braw.forEachRigidBodyHandle(rec.addBody);

  // Colliders read their set's `raw`, which is now the restored one. A kept collider keeps its
  // parent (a collider never changes parent), unless the parent's wrapper was replaced.
  const colliders = w.colliders;
  const craw = colliders.raw;
  const cdata = colliders.map.data;
  for (let i = 0; i < cdata.length; i++) {
    const c = cdata[i];
    if (c == null) continue;
    if (craw.contains(c.handle)) {
      c._shape = undefined; // cached lazily, as in a restored world
      if (c._parent != null && bodies.map.get(c._parent.handle) !== c._parent) c.finalizeDeserialization(bodies);
    } else colliders.map.delete(c.handle);
  }
  if (colliders.map.len() !== craw.len()) craw.forEachColliderHandle(rec.addCollider);

  // Joints (the adapter creates none): rebuild their wrapper sets when either world has one.
  rec.hasJoint = w.impulseJoints.map.len() > 0 || w.multibodyJoints.map.len() > 0;
  w.impulseJoints.raw.forEachJointHandle(rec.sawJoint);
  w.multibodyJoints.raw.forEachJointHandle(rec.sawJoint);
  if (rec.hasJoint) {
    const ij = new R.ImpulseJointSet(w.impulseJoints.raw as never);
    ij.finalizeDeserialization(world.bodies);
    (w as { impulseJoints: unknown }).impulseJoints = ij;
    (w as { multibodyJoints: unknown }).multibodyJoints = new R.MultibodyJointSet(w.multibodyJoints.raw as never);
  }
}

/**
 * Restore `world` to `bytes` and return the world to use from now on: `world` itself where the
 * in-place restore is supported, else a new world from World.restoreSnapshot (`world` freed).
 */
export function restoreWorld(R: Rapier, world: RAPIER.World, bytes: Uint8Array, inPlace: boolean): RAPIER.World {
  if (inPlace) {
    restoreInPlace(R, world, bytes);
    return world;
  }
  const fresh = R.World.restoreSnapshot(bytes);
  world.free();
  return fresh;
}

/**
 * 0.19: give `world` the broad phase that a world restored from its own snapshot would start
 * with, and nothing else: the broad phase alone goes through a serialization round trip (with
 * the other parts taken from `donor`, an empty world, so the bytes hold little more than the
 * BVH). A restored world continues differently from its original only because of the broad
 * phase's BVH workspace, which is not serialized (`BroadPhaseBvh`'s one `serde(skip)` field);
 * so after this `world` continues bit for bit like a world restored from `world.takeSnapshot()`
 * (test/rapier/restore.test.ts), at a fraction of a full restore's cost. Only call it where
 * `broadPhaseRoundTrips(R)` holds.
 */
export function roundTripBroadPhase(R: Rapier, world: RAPIER.World, donor: RAPIER.World, gravity: RawVector): void {
  const w = world as unknown as WorldLayout;
  const d0 = donor as unknown as WorldLayout;
  const g = w.gravity;
  gravity.x = g.x;
  gravity.y = g.y;
  gravity.z = g.z;
  // The raw call with the caller's gravity vector: the JS one wraps the gravity in a new wasm vector.
  const bytes = w.serializationPipeline.raw.serializeAll(
    gravity, d0.integrationParameters.raw, d0.islands.raw, w.broadPhase.raw, d0.narrowPhase.raw,
    d0.bodies.raw, d0.colliders.raw, d0.impulseJoints.raw, d0.multibodyJoints.raw,
  );
  const d = bytes === undefined ? undefined : deserialize(R, w, bytes);
  if (d === undefined) throw new NetcodeError('internal', 'react-netcode: Rapier could not serialize a broad phase (please report it).');
  try {
    slotsOf(world).broadPhase.take(w.broadPhase, d, 'takeBroadPhase');
  } finally {
    d.free();
  }
}
