// The raw Rapier calls of the adapter's hot path, in the shapes of every supported Rapier
// version, and what each version can do. Reading a body's state is most of what the
// adapter costs per tick, so it goes straight to the raw body set:
// - 0.21+ writes a getter's result into a caller's Float32Array: no allocation besides the
//   typed-array view wasm-bindgen makes per call;
// - 0.19 returns a new wasm vector per call, which wasm-bindgen wraps in a new JS object
//   registered with a FinalizationRegistry (≈ 250 bytes of heap and most of the getter's
//   time). Where the module's layout allows (`wrapless`, probed once), the reader has the
//   getter wrap the result in one reused object instead, copies it and frees it at once;
//   else it copies and frees the usual wrapper (without the JS Vector of RigidBody.translation()).
// Writes (impulses, velocities) reuse one wasm vector per peer. And the step itself: 0.21's
// World.step() also maps every body and collider handle to a JS wrapper (stepWorld).

import type RAPIER from '@dimforge/rapier3d-compat';
import { NetcodeError } from '../core/errors.ts';
import type { Quat, Vec3 } from '../core/field.ts';
import type { Rapier } from './options.ts';
import { broadPhaseRoundTrips, inPlaceRestores } from './restore-probes.ts';
import { wrapClassOf, type WrapClass } from './scratch.ts';

/** A wasm vector or quaternion (RawVector / RawRotation), as both versions expose it. */
export interface RawVec {
  x: number;
  y: number;
  z: number;
  free(): void;
}
interface RawQuat extends RawVec {
  readonly w: number;
}

/** The raw body set calls the adapter makes (`world.bodies.raw`), typed for 0.19 and 0.21 at once. */
export interface RawBodies {
  rbTranslation(handle: number, out?: Float32Array): RawVec | undefined;
  rbRotation(handle: number, out?: Float32Array): RawQuat | undefined;
  rbLinvel(handle: number, out?: Float32Array): RawVec | undefined;
  rbAngvel(handle: number, out?: Float32Array): RawVec | undefined;
  rbIsSleeping(handle: number): boolean;
  rbSetLinvel(handle: number, v: RawVec, wakeUp: boolean): void;
  rbSetAngvel(handle: number, v: RawVec, wakeUp: boolean): void;
  rbApplyImpulse(handle: number, v: RawVec, wakeUp: boolean): void;
}

/** What the Rapier version in use can do, decided once per adapter. */
export interface Capabilities {
  /** Getters write into a caller's buffer (0.21+), detected from the raw getter's arity. */
  readonly targetGetters: boolean;
  /**
   * A world restored from takeSnapshot() continues bit for bit like the world it was taken
   * from (measured in 0.21.0 in piles, towers and bouncing spheres; not in 0.19.2).
   */
  readonly restoreContinues: boolean;
  /**
   * A world can be restored from its snapshot in place (src/rapier/restore.ts): the 0.19 JS
   * layout is there and a probe world restored in place continues like one restored by
   * World.restoreSnapshot. Else a restore builds a new world with World.restoreSnapshot.
   */
  readonly inPlaceRestore: boolean;
  /**
   * Where restores do not continue (0.19), a smoothed client's recording makes its live world
   * continue like a restored one by a round trip of the broad phase alone (restore.ts,
   * roundTripBroadPhase); else by restoring the whole world from the bytes it just recorded.
   */
  readonly broadPhaseRoundTrip: boolean;
  /**
   * 0.19: the wasm-bindgen classes the raw getters wrap their results in, when a getter can be
   * made to wrap into one reused object (see WraplessGetters); undefined otherwise.
   */
  readonly wrapless: WraplessClasses | undefined;
}

/** The classes of a 0.19 raw getter's results: RawVector (translation, velocities) and RawRotation. */
export interface WraplessClasses {
  readonly vec: WrapClass;
  readonly rot: WrapClass;
}

/**
 * Whether the raw getters of this module (0.19's shape: a new wasm object per call) can wrap
 * their results in a reused object: the results' classes have a writable static `__wrap`, and a
 * getter called with it replaced returns the replacement's object holding the same values. A
 * probe on a one-body world; any exception counts as no.
 */
function wraplessClasses(raw: RawBodies, handle: number): WraplessClasses | undefined {
  try {
    const t = raw.rbTranslation(handle)!;
    const q = raw.rbRotation(handle)!;
    const vec = wrapClassOf(t);
    const rot = wrapClassOf(q);
    const expected = [t.x, t.y, t.z, q.x, q.y, q.z, q.w];
    t.free();
    q.free();
    if (vec === undefined || rot === undefined || vec === rot) return undefined;
    const reader = new WraplessGetters({ vec, rot });
    const got = { x: 0, y: 0, z: 0, w: 0 };
    const sink = { x: 0, y: 0, z: 0, w: 0 };
    reader.vector(raw, 'rbTranslation', handle, got, sink);
    const same = got.x === expected[0] && got.y === expected[1] && got.z === expected[2];
    reader.rotation(raw, handle, got, sink);
    const wrapsBack = raw.rbTranslation(handle)!;
    const restored = wrapsBack !== reader.scratchVec;
    wrapsBack.free();
    const ok = same && restored && got.x === expected[3] && got.y === expected[4] && got.z === expected[5] && got.w === expected[6];
    return ok ? { vec, rot } : undefined;
  } catch {
    return undefined;
  }
}

/** `0.21.0` → 21 (minor versions of 0.x; a 1.x counts as newer than every 0.x). */
function minorOf(version: string): number {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (m === null) return 0;
  return Number(m[1]) > 0 ? Infinity : Number(m[2]);
}

export function capabilities(R: Rapier): Capabilities {
  let probe: RAPIER.World;
  try {
    probe = new R.World({ x: 0, y: 0, z: 0 });
  } catch (error) {
    // Before init() the wasm-bindgen glue has no module: a TypeError from inside Rapier that names none of this.
    const notReady = new NetcodeError(
      'usage',
      'react-netcode: Rapier is not initialised: `await initRapier(RAPIER)` (react-netcode/rapier) before the first tick — ' +
        "at start-up on a server or a Node client, as NetcodeProvider's `init` prop in a page.",
    );
    throw Object.assign(notReady, { cause: error });
  }
  const raw = rawBodies(probe);
  const targetGetters = raw.rbTranslation.length >= 2;
  let wrapless: WraplessClasses | undefined;
  if (!targetGetters) {
    const desc = R.RigidBodyDesc.dynamic().setTranslation(1.5, -2.25, 3.125).setRotation({ x: 0, y: 0.6, z: 0, w: 0.8 });
    const body = probe.createRigidBody(desc);
    wrapless = wraplessClasses(raw, body.handle);
  }
  probe.free();
  const version = typeof R.version === 'function' ? R.version() : '0.0.0';
  const restoreContinues = minorOf(version) >= 21;
  const inPlaceRestore = inPlaceRestores(R);
  const broadPhaseRoundTrip = !restoreContinues && inPlaceRestore && broadPhaseRoundTrips(R);
  return { targetGetters, restoreContinues, inPlaceRestore, broadPhaseRoundTrip, wrapless };
}

/**
 * One step of `world`. From 0.21, World.step() runs the physics pipeline and then maps every
 * body and collider handle to its JS wrapper through one JS callback per handle (for bodies
 * that soft bodies create on the Rust side): about 0.5 µs and 600 bytes of heap per body and
 * step, asleep or not — more than the pipeline itself in a resting world. The adapter creates
 * every body through the JS API, which maps it at once, so it runs the pipeline directly.
 */
export function stepWorld(world: RAPIER.World, gravity: RawVec): void {
  const clock = world.profilerEnabled ? undefined : silenceClock();
  try {
    pipelineStep(world, gravity);
  } finally {
    if (clock !== undefined) restoreClock(clock);
  }
}

/**
 * The pipeline step reads `performance.now()` about 26 times per step for its profiler's
 * counters, profiler on or off: through wasm-bindgen each reading is a double returned from a
 * JS call, a new 16-byte heap number (≈ 1.6 KB per client frame of the client-frame bench).
 * With the profiler off no one reads those counters, so while the step runs the `performance`
 * object answers `now()` with 0, a small integer, which crosses without an allocation. The
 * step calls no JS of the app (the adapter steps without hooks nor event queue), and Rapier
 * reads no other time: the world steps exactly alike. The clock is the object Rapier's glue
 * keeps from its first reading, `globalThis.performance`; an own `now` (a test's fake clock) is
 * put back as it was, else the own property is deleted again, which leaves the object's shape as
 * it was (V8 undoes the last property added).
 */
function silenceClock(): Performance | undefined {
  const clock = (globalThis as { performance?: Performance }).performance;
  if (typeof clock !== 'object' || clock === null || !Object.isExtensible(clock)) return undefined;
  ownNow = Object.prototype.hasOwnProperty.call(clock, 'now') ? clock.now : undefined;
  try {
    (clock as { now: () => number }).now = zeroNow;
  } catch {
    return undefined; // a read-only own `now`
  }
  return clock;
}

function restoreClock(clock: Performance): void {
  if (ownNow === undefined) delete (clock as { now?: () => number }).now;
  else (clock as { now: () => number }).now = ownNow;
  ownNow = undefined;
}

/** The clock's own `now` while a step runs with the silenced clock (undefined: none, its prototype's). */
let ownNow: (() => number) | undefined;

function zeroNow(): number {
  return 0;
}

function pipelineStep(world: RAPIER.World, gravity: RawVec): void {
  const w = world as unknown as PipelineMembers;
  const g = world.gravity;
  if (w.softBodies === undefined) {
    // 0.19: World.step() is the pipeline step alone, whose JS side wraps the gravity in a new
    // wasm vector per step; the raw step with the peer's reused vector is the same call.
    const raw = (w.physicsPipeline as unknown as { raw?: { step?: (...members: unknown[]) => void } }).raw;
    if (typeof raw?.step !== 'function') {
      world.step();
      return;
    }
    const { integrationParameters, islands, broadPhase, narrowPhase, bodies, colliders, impulseJoints, multibodyJoints, ccdSolver } =
      w as unknown as Record<string, { raw: unknown }>;
    raw.step(
      toRaw(g, gravity), integrationParameters!.raw, islands!.raw, broadPhase!.raw, narrowPhase!.raw, bodies!.raw, colliders!.raw,
      impulseJoints!.raw, multibodyJoints!.raw, ccdSolver!.raw,
    );
    return;
  }
  const { gravity: wg, integrationParameters, islands, broadPhase, narrowPhase } = w;
  const { bodies, colliders, softBodies, impulseJoints, multibodyJoints, ccdSolver } = w;
  w.physicsPipeline.step(
    wg, integrationParameters, islands, broadPhase, narrowPhase,
    bodies, colliders, softBodies, impulseJoints, multibodyJoints, ccdSolver,
  );
}

/** The members of a 0.21 World that its step passes to the physics pipeline (typed loosely: the project may compile against 0.19). */
interface PipelineMembers {
  readonly gravity: unknown;
  readonly integrationParameters: unknown;
  readonly islands: unknown;
  readonly broadPhase: unknown;
  readonly narrowPhase: unknown;
  readonly bodies: unknown;
  readonly colliders: unknown;
  readonly softBodies: unknown;
  readonly impulseJoints: unknown;
  readonly multibodyJoints: unknown;
  readonly ccdSolver: unknown;
  readonly physicsPipeline: { step(...members: unknown[]): void };
}

export function rawBodies(world: { bodies: { raw: unknown } }): RawBodies {
  return world.bodies.raw as RawBodies;
}

type VecGetter = 'rbTranslation' | 'rbLinvel' | 'rbAngvel';

/**
 * 0.19's getters without a new JS object per call: for the duration of one getter call the
 * result class's static `__wrap` (what the getter builds its result with) is replaced by one
 * that points a reused object at the new wasm vector; the reader copies it and frees the wasm
 * vector at once, as it does the usual wrapper. The replacement lasts only the synchronous
 * getter call (restored in `finally`), so no other code sees it.
 */
class WraplessGetters {
  readonly scratchVec: RawVec;
  readonly #scratchRot: RawQuat;
  readonly #toVec = (ptr: number): RawVec => {
    (this.scratchVec as unknown as { __wbg_ptr: number }).__wbg_ptr = ptr >>> 0;
    return this.scratchVec;
  };
  readonly #toRot = (ptr: number): RawVec => {
    (this.#scratchRot as unknown as { __wbg_ptr: number }).__wbg_ptr = ptr >>> 0;
    return this.#scratchRot;
  };

  constructor(private readonly classes: WraplessClasses) {
    this.scratchVec = Object.assign(Object.create(classes.vec.prototype) as RawVec, { __wbg_ptr: 0 });
    this.#scratchRot = Object.assign(Object.create(classes.rot.prototype) as RawQuat, { __wbg_ptr: 0 });
  }

  vector(raw: RawBodies, getter: VecGetter, handle: number, a: Vec3, b: Vec3): void {
    const C = this.classes.vec;
    const wrap = C.__wrap;
    C.__wrap = this.#toVec;
    let v: RawVec;
    try {
      v = raw[getter](handle)!;
    } finally {
      C.__wrap = wrap;
    }
    copyVec(v, a, b);
  }

  rotation(raw: RawBodies, handle: number, a: Quat, b: Quat): void {
    const C = this.classes.rot;
    const wrap = C.__wrap;
    C.__wrap = this.#toRot;
    let r: RawQuat;
    try {
      r = raw.rbRotation(handle)!;
    } finally {
      C.__wrap = wrap;
    }
    copyQuat(r, a, b);
  }
}

/** Reads body state into two places at once (the entry's cache and the ghost's component), allocation-free where Rapier allows. */
export class StateReader {
  readonly #buf = new Float32Array(4);
  readonly #wrapless: WraplessGetters | undefined;
  private readonly target: boolean;
  constructor(caps: Pick<Capabilities, 'targetGetters' | 'wrapless'>) {
    this.target = caps.targetGetters;
    this.#wrapless = !caps.targetGetters && caps.wrapless !== undefined ? new WraplessGetters(caps.wrapless) : undefined;
  }

  translation(raw: RawBodies, handle: number, a: Vec3, b: Vec3): void {
    this.#vector(raw, 'rbTranslation', handle, a, b);
  }

  linvel(raw: RawBodies, handle: number, a: Vec3, b: Vec3): void {
    this.#vector(raw, 'rbLinvel', handle, a, b);
  }

  angvel(raw: RawBodies, handle: number, a: Vec3, b: Vec3): void {
    this.#vector(raw, 'rbAngvel', handle, a, b);
  }

  rotation(raw: RawBodies, handle: number, a: Quat, b: Quat): void {
    const buf = this.#buf;
    if (this.target) {
      raw.rbRotation(handle, buf);
      a.x = b.x = buf[0]!;
      a.y = b.y = buf[1]!;
      a.z = b.z = buf[2]!;
      a.w = b.w = buf[3]!;
    } else if (this.#wrapless !== undefined) this.#wrapless.rotation(raw, handle, a, b);
    else copyQuat(raw.rbRotation(handle)!, a, b);
  }

  #vector(raw: RawBodies, getter: VecGetter, handle: number, a: Vec3, b: Vec3): void {
    if (this.target) {
      const buf = this.#buf;
      raw[getter](handle, buf);
      a.x = b.x = buf[0]!;
      a.y = b.y = buf[1]!;
      a.z = b.z = buf[2]!;
    } else if (this.#wrapless !== undefined) this.#wrapless.vector(raw, getter, handle, a, b);
    else copyVec(raw[getter](handle)!, a, b);
  }
}

function copyQuat(r: RawQuat, a: Quat, b: Quat): void {
  a.x = b.x = r.x;
  a.y = b.y = r.y;
  a.z = b.z = r.z;
  a.w = b.w = r.w;
  r.free();
}

function copyVec(v: RawVec, a: Vec3, b: Vec3): void {
  a.x = b.x = v.x;
  a.y = b.y = v.y;
  a.z = b.z = v.z;
  v.free();
}

/** Copy `v` into the reusable wasm vector `out`. */
export function toRaw(v: Vec3, out: RawVec): RawVec {
  out.x = v.x;
  out.y = v.y;
  out.z = v.z;
  return out;
}
