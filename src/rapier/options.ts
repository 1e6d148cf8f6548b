// Options of `createPhysics` and their resolution against a protocol: which ghost
// types get rigid bodies, their shapes, kinds and the component fields that hold
// their state. Resolved once per peer, the first time the physics system runs.

import type RAPIER from '@dimforge/rapier3d-compat';
import { NetcodeError } from '../core/errors.ts';
import type { Field, Quat, Vec3 } from '../core/field.ts';
import type { Protocol } from '../core/protocol.ts';
import type { Tick } from '../core/clock/tick.ts';

/** The Rapier module (`import RAPIER from '@dimforge/rapier3d-compat'`, after `await RAPIER.init()`). */
export type Rapier = typeof RAPIER;

export type ColliderShape = { ball: number } | { cuboid: readonly [number, number, number] } | { capsule: readonly [number, number] };

/**
 * - `dynamic`: simulated by Rapier, pushed by contacts and `applyImpulse`.
 * - `kinematic`: moved only by `physics.moveKinematic` (pushes dynamic bodies, nothing pushes it).
 * - `character`: a kinematic body moved by `physics.moveCharacter` through Rapier's
 *   KinematicCharacterController, which slides it along the static level geometry.
 */
export type BodyKind = 'dynamic' | 'kinematic' | 'character';

/** Component names holding the body state (defaults: the same names, when the ghost type has them). */
export interface BodyFields {
  position?: string;
  rotation?: string;
  linvel?: string;
  angvel?: string;
  /** character only: a bool field set to the controller's ground detection after each move. */
  grounded?: string;
}

export interface CharacterOptions {
  /** Skin gap kept between the character and obstacles, in metres (default 0.01). */
  offset?: number;
  /** Stick to the ground when walking down slopes or steps of up to this height (default off). */
  snapToGround?: number;
  /** Steepest slope climbed, in radians (Rapier's default π/4). */
  maxSlopeClimbAngle?: number;
}

export interface BodyOptions {
  kind: BodyKind;
  collider: ColliderShape;
  fields?: BodyFields;
  density?: number;
  friction?: number;
  restitution?: number;
  linearDamping?: number;
  angularDamping?: number;
  character?: CharacterOptions;
}

export type PhysicsMode = 'smoothed' | 'exact';

export interface PhysicsOptions {
  /** Default { x: 0, y: -9.81, z: 0 }. */
  gravity?: Vec3;
  /** Builds the static geometry (fixed colliders) into a fresh world. Must build the same thing every call, on every peer. */
  level?: (world: RAPIER.World, rapier: Rapier) => void;
  /** Ghost types that get a rigid body, by type name. */
  bodies: Readonly<Record<string, BodyOptions>>;
  /**
   * 'smoothed' (default): one world per peer; a rollback restores the client's own world of
   * the rollback tick (worldSnapshots) and re-writes every body whose components differ
   * (not bit-exact against the server; corrections are smoothed visually).
   * 'exact': the world is rebuilt canonically from quantized components after every
   * snapshot tick on the server and on clients, so resimulations are bit-identical.
   */
  mode?: PhysicsMode;
  /**
   * The ticks the server sends snapshots for (after simulating them): exact mode rebuilds
   * after them, smoothed mode records the client's world at them.
   * Default: the protocol's `isSnapshotTick(protocol, tick)` — the ticks the server really
   * snapshots (2, 5, 8 … at 60/20 Hz). Override only for tests. A wrong answer costs exactness, not safety.
   */
  isSnapshotTick?: (tick: Tick) => boolean;
  /**
   * smoothed mode, clients (default true): keep Rapier's world snapshot of every snapshot
   * tick (the last 64 ticks), so that a rollback restores the contact cache and warm
   * starts of its tick before writing the corrected bodies. A resimulation with unchanged
   * inputs and confirmed state then reproduces the first prediction bit for bit, boxes in
   * contact included. Costs one takeSnapshot + restoreSnapshot per snapshot tick (see
   * docs/physics.md); false keeps the persistent world and only the per-body restore.
   */
  worldSnapshots?: boolean;
  /**
   * smoothed mode: quantize the state at the end of every tick as the wire would (default false: it keeps every body awake; see
   * docs/physics.md for the measurements).
   */
  quantizeEveryTick?: boolean;
  /** Rapier's numSolverIterations (default 4). A rebuild drops warm starts: stacks need more. */
  solverIterations?: number;
  /** Rapier's numInternalPgsIterations (default 1). */
  internalPgsIterations?: number;
}

/** One vec3 or quat component and how the wire quantizes it. */
export interface VecSlot {
  readonly key: string;
  /** vec3: quantize factor, undefined = raw float32. */
  readonly q: number | undefined;
}
export interface QuatSlot {
  readonly key: string;
  readonly bits: number;
}

/** A body type checked against the protocol. */
export interface BodySpec {
  readonly type: string;
  readonly options: BodyOptions;
  readonly position: VecSlot;
  readonly rotation: QuatSlot | undefined;
  readonly linvel: VecSlot | undefined;
  readonly angvel: VecSlot | undefined;
  readonly grounded: string | undefined;
}

function usage(message: string): NetcodeError {
  return new NetcodeError('usage', `react-netcode: ${message}`);
}

export function checkOptions(options: PhysicsOptions): void {
  if (typeof options !== 'object' || options === null || typeof options.bodies !== 'object' || options.bodies === null) {
    throw usage("createPhysics needs { bodies: { [ghostType]: { kind, collider } } }, e.g. { bodies: { box: { kind: 'dynamic', collider: { cuboid: [0.5, 0.5, 0.5] } } } }.");
  }
  if (options.mode !== undefined && options.mode !== 'smoothed' && options.mode !== 'exact') throw usage(`physics mode must be 'smoothed' or 'exact', got ${String(options.mode)}.`);
  if (options.worldSnapshots !== undefined && typeof options.worldSnapshots !== 'boolean') throw usage(`physics worldSnapshots must be true or false, got ${String(options.worldSnapshots)}.`);
  for (const [type, body] of Object.entries(options.bodies)) {
    if (!['dynamic', 'kinematic', 'character'].includes(body.kind)) throw usage(`physics body "${type}" has kind ${String(body.kind)}; use 'dynamic', 'kinematic' or 'character'.`);
    const c = body.collider as Record<string, unknown>;
    const ok = (typeof c['ball'] === 'number' && c['ball'] > 0) || (Array.isArray(c['cuboid']) && c['cuboid'].length === 3) || (Array.isArray(c['capsule']) && c['capsule'].length === 2);
    if (!ok) throw usage(`physics body "${type}" needs a collider { ball: r }, { cuboid: [hx, hy, hz] } or { capsule: [halfHeight, r] }.`);
  }
}

function slot(protocol: Protocol, type: string, role: string, name: string | undefined, kind: 'vec3' | 'quat' | 'bool', required: boolean): Field<unknown> | undefined {
  const schema = protocol.ghostByName.get(type)!.codec.schema as Record<string, Field<unknown>>;
  const key = name ?? role;
  const f = schema[key];
  if (f === undefined) {
    if (required || name !== undefined) throw usage(`physics body "${type}" needs a ${kind} field "${key}" for its ${role}; add it to the ghost type or map fields.${role} to one.`);
    return undefined;
  }
  if (f.kind !== kind) throw usage(`physics body "${type}" field "${key}" (${role}) must be a field.${kind}(), got ${f.kind}.`);
  return f;
}

/** Check the body options against the protocol's ghost types and find their fields. */
export function resolveSpecs(protocol: Protocol, options: PhysicsOptions): Map<string, BodySpec> {
  const specs = new Map<string, BodySpec>();
  const exact = options.mode === 'exact';
  for (const [type, body] of Object.entries(options.bodies)) {
    if (!protocol.ghostByName.has(type)) throw usage(`physics body "${type}" is not a ghost type of this protocol (known: ${[...protocol.ghostByName.keys()].join(', ') || '(none)'}).`);
    const f = body.fields ?? {};
    const dynamic = body.kind === 'dynamic';
    const pos = slot(protocol, type, 'position', f.position, 'vec3', true)!;
    const rot = slot(protocol, type, 'rotation', f.rotation, 'quat', false);
    const lin = slot(protocol, type, 'linvel', f.linvel, 'vec3', exact && dynamic);
    const ang = slot(protocol, type, 'angvel', f.angvel, 'vec3', exact && dynamic && rot !== undefined);
    const grounded = body.kind === 'character' ? slot(protocol, type, 'grounded', f.grounded, 'bool', false) : undefined;
    specs.set(type, {
      type,
      options: body,
      position: { key: f.position ?? 'position', q: pos.quantizeFactor },
      rotation: rot ? { key: f.rotation ?? 'rotation', bits: rot.bits ?? 12 } : undefined,
      linvel: lin ? { key: f.linvel ?? 'linvel', q: lin.quantizeFactor } : undefined,
      angvel: ang ? { key: f.angvel ?? 'angvel', q: ang.quantizeFactor } : undefined,
      grounded: grounded ? (f.grounded ?? 'grounded') : undefined,
    });
  }
  return specs;
}

/** Reusable zero rotation. */
export const IDENTITY: Readonly<Quat> = Object.freeze({ x: 0, y: 0, z: 0, w: 1 });
