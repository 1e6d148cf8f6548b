// The raw Rapier calls of the adapter's hot path, in the shapes of every supported Rapier
// version, and what each version can do. Reading a body's state is most of what the
// adapter costs per tick, so it goes straight to the raw body set:
// - 0.21+ writes a getter's result into a caller's Float32Array: no allocation besides the
//   typed-array view wasm-bindgen makes per call;
// - 0.19 returns a new wasm vector per call: the reader copies it and frees it at once,
//   without the JS Vector object RigidBody.translation() would build on top.
// Writes (impulses, velocities) reuse one wasm vector per peer. And the step itself: 0.21's
// World.step() also maps every body and collider handle to a JS wrapper (stepWorld).

import type RAPIER from '@dimforge/rapier3d-compat';
import type { Quat, Vec3 } from '../core/field.ts';
import type { Rapier } from './options.ts';
import { inPlaceRestores } from './restore.ts';

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
}

/** `0.21.0` → 21 (minor versions of 0.x; a 1.x counts as newer than every 0.x). */
function minorOf(version: string): number {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (m === null) return 0;
  return Number(m[1]) > 0 ? Infinity : Number(m[2]);
}

export function capabilities(R: Rapier): Capabilities {
  const probe = new R.World({ x: 0, y: 0, z: 0 });
  const raw = rawBodies(probe);
  const targetGetters = raw.rbTranslation.length >= 2;
  probe.free();
  const version = typeof R.version === 'function' ? R.version() : '0.0.0';
  return { targetGetters, restoreContinues: minorOf(version) >= 21, inPlaceRestore: inPlaceRestores(R) };
}

/**
 * One step of `world`. From 0.21, World.step() runs the physics pipeline and then maps every
 * body and collider handle to its JS wrapper through one JS callback per handle (for bodies
 * that soft bodies create on the Rust side): about 0.5 µs and 600 bytes of heap per body and
 * step, asleep or not — more than the pipeline itself in a resting world. The adapter creates
 * every body through the JS API, which maps it at once, so it runs the pipeline directly.
 */
export function stepWorld(world: RAPIER.World): void {
  const w = world as unknown as PipelineMembers;
  if (w.softBodies === undefined) {
    world.step(); // 0.19: World.step() is the pipeline step alone
    return;
  }
  const { gravity, integrationParameters, islands, broadPhase, narrowPhase } = w;
  const { bodies, colliders, softBodies, impulseJoints, multibodyJoints, ccdSolver } = w;
  w.physicsPipeline.step(
    gravity, integrationParameters, islands, broadPhase, narrowPhase,
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

/** Reads body state into two places at once (the entry's cache and the ghost's component), allocation-free where Rapier allows. */
export class StateReader {
  readonly #buf = new Float32Array(4);
  constructor(private readonly target: boolean) {}

  translation(raw: RawBodies, handle: number, a: Vec3, b: Vec3): void {
    if (this.target) {
      raw.rbTranslation(handle, this.#buf);
      this.#vec(a, b);
    } else copyVec(raw.rbTranslation(handle)!, a, b);
  }

  linvel(raw: RawBodies, handle: number, a: Vec3, b: Vec3): void {
    if (this.target) {
      raw.rbLinvel(handle, this.#buf);
      this.#vec(a, b);
    } else copyVec(raw.rbLinvel(handle)!, a, b);
  }

  angvel(raw: RawBodies, handle: number, a: Vec3, b: Vec3): void {
    if (this.target) {
      raw.rbAngvel(handle, this.#buf);
      this.#vec(a, b);
    } else copyVec(raw.rbAngvel(handle)!, a, b);
  }

  rotation(raw: RawBodies, handle: number, a: Quat, b: Quat): void {
    const buf = this.#buf;
    if (this.target) {
      raw.rbRotation(handle, buf);
      a.x = b.x = buf[0]!;
      a.y = b.y = buf[1]!;
      a.z = b.z = buf[2]!;
      a.w = b.w = buf[3]!;
      return;
    }
    const r = raw.rbRotation(handle)!;
    a.x = b.x = r.x;
    a.y = b.y = r.y;
    a.z = b.z = r.z;
    a.w = b.w = r.w;
    r.free();
  }

  #vec(a: Vec3, b: Vec3): void {
    const buf = this.#buf;
    a.x = b.x = buf[0]!;
    a.y = b.y = buf[1]!;
    a.z = b.z = buf[2]!;
  }
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
