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
// in place continues like one restored by World.restoreSnapshot; where it does not (another
// version), the adapter uses World.restoreSnapshot.
//
// Precondition: the bytes come from this world's own past (the adapter's records), so a
// handle present in both worlds names the same body or collider.

import type RAPIER from '@dimforge/rapier3d-compat';
import { NetcodeError } from '../core/errors.ts';
import type { Rapier } from './options.ts';
import { ScratchWrap, wrapClassOf } from './scratch.ts';

interface Freeable {
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

interface BodyWrapper {
  readonly handle: number;
  rawSet: RawBodySet;
}
interface ColliderWrapper {
  readonly handle: number;
  colliderSet: unknown;
  _shape: unknown;
  _parent: { readonly handle: number } | null;
  finalizeDeserialization(bodies: unknown): void;
}

interface Part<Raw = Freeable> {
  raw: Raw;
}
interface MappedPart<Raw, T> extends Part<Raw> {
  map: Coarena<T>;
  finalizeDeserialization?(other: unknown): void;
}

interface Deserialized extends Freeable {
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
interface WorldLayout {
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
interface RawVector {
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

/** Free the raw part `part` holds and put `raw` in its place. */
function swap<Raw extends Freeable>(part: Part<Raw>, raw: Raw | undefined): void {
  if (raw === undefined) throw lacked();
  part.raw.free();
  part.raw = raw;
}

const lacked = (): NetcodeError =>
  new NetcodeError('internal', 'react-netcode: a Rapier world snapshot lacked a world part; the bytes must come from world.takeSnapshot() of the same Rapier version (please report it).');

/** A wasm-bindgen object as its class builds it: the pointer, and the call that unregisters and zeroes it. */
interface WasmObject extends Freeable {
  __wbg_ptr: number;
  __destroy_into_raw(): number;
}

/**
 * One part of one live world (its body set, broad phase…), whose raw object a restore replaces.
 * wasm-bindgen wraps each part a restore takes in a new object registered with a
 * FinalizationRegistry (an object and a registry cell per part and restore). Here the part's raw
 * alternates between two objects of its class that no registry knows: the take fills the spare
 * one (scratch.ts), the one in use is freed and becomes the spare. The world's own registration
 * (PartSlots) frees the one in use if the world is collected without `free()`, as the class's
 * registry would have.
 */
class PartSlot {
  inUse: WasmObject | undefined;
  spare: WasmObject | undefined;
  #wrapper: ScratchWrap | undefined;

  /** Put the part `d[take]()` returns in `part`, freeing the one it held. */
  take(part: Part, d: Deserialized, take: TakeKey): void {
    const wrapper = this.#wrapper;
    if (wrapper === undefined || this.spare === undefined || part.raw !== this.inUse) {
      const raw = d[take]() as unknown as WasmObject | undefined;
      if (raw === undefined) throw lacked();
      this.#adopt(part, raw);
      return;
    }
    const target = this.spare;
    wrapper.retarget(target);
    wrapper.begin();
    let raw: WasmObject | undefined;
    try {
      raw = d[take]() as unknown as WasmObject | undefined;
    } finally {
      wrapper.end();
    }
    if (raw === undefined) throw lacked();
    if (raw !== target) {
      this.#adopt(part, raw); // not wrapped by the class's __wrap after all: as a first take
      return;
    }
    const old = this.inUse!;
    old.free(); // its pointer freed and zeroed: the spare from now on
    part.raw = target;
    this.inUse = target;
    this.spare = old;
  }

  /** The first take (or one after the part changed hands): move the pointer into an unregistered object of its class. */
  #adopt(part: Part, raw: WasmObject): void {
    const C = wrapClassOf(raw);
    if (C === undefined || typeof raw.__destroy_into_raw !== 'function') {
      swap(part, raw as unknown as Freeable);
      this.inUse = this.spare = undefined;
      return;
    }
    const own = Object.assign(Object.create(C.prototype) as WasmObject, { __wbg_ptr: 0 });
    own.__wbg_ptr = raw.__destroy_into_raw(); // unregistered: no finalizer frees this pointer behind our back
    part.raw.free();
    part.raw = own;
    this.inUse = own;
    this.spare = Object.assign(Object.create(C.prototype) as WasmObject, { __wbg_ptr: 0 });
    this.#wrapper = new ScratchWrap(C, this.spare);
  }
}

type TakeKey =
  | 'takeIntegrationParameters' | 'takeIslandManager' | 'takeBroadPhase' | 'takeNarrowPhase'
  | 'takeBodies' | 'takeColliders' | 'takeImpulseJoints' | 'takeMultibodyJoints';

/** The part slots of one live world. */
class PartSlots {
  readonly integrationParameters = new PartSlot();
  readonly islands = new PartSlot();
  readonly broadPhase = new PartSlot();
  readonly narrowPhase = new PartSlot();
  readonly bodies = new PartSlot();
  readonly colliders = new PartSlot();
  readonly impulseJoints = new PartSlot();
  readonly multibodyJoints = new PartSlot();

  /** Free the parts still in use (a world collected without `free()`: World.free() frees them itself and zeroes their pointers). */
  freeAll(): void {
    const all = [
      this.integrationParameters, this.islands, this.broadPhase, this.narrowPhase,
      this.bodies, this.colliders, this.impulseJoints, this.multibodyJoints,
    ];
    for (const slot of all) {
      const o = slot.inUse;
      if (o !== undefined && o.__wbg_ptr !== 0) o.free();
    }
  }
}

const partSlots = new WeakMap<object, PartSlots>();
const collected = new FinalizationRegistry<PartSlots>((slots) => slots.freeAll());

function slotsOf(world: RAPIER.World): PartSlots {
  let slots = partSlots.get(world);
  if (slots === undefined) {
    partSlots.set(world, (slots = new PartSlots()));
    collected.register(world, slots);
  }
  return slots;
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
