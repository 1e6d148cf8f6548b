// Lag compensation: the server remembers, for a bounded window (default 500 ms), the
// pose of every ghost of a collider type after each tick, and casts rays against the
// world "as this client saw it": at the interpolation tick + fraction the client
// reported with its newest input, blending the two recorded ticks around it, clamped
// to the window. Shapes are analytic (sphere, box, capsule), so it works with or
// without a physics engine. See docs/lag-compensation.md.

import type { Connection } from '../core/connection.ts';
import { NetcodeError } from '../core/errors.ts';
import type { Quat, Vec3 } from '../core/field.ts';
import type { Protocol } from '../core/protocol.ts';
import type { NetServer } from '../core/server.ts';
import type { Tick } from '../core/clock/tick.ts';
import type { Ghost, GhostNames, GhostValues } from '../core/world.ts';
import { PoseHistory, POSE_SIZE, type PoseTrack, type Rewind } from './lag-compensation-history.ts';
import { compileShape, rayShape, rayToLocal, type ColliderShape, type CompiledShape } from './lag-compensation-shapes.ts';

export type { ColliderShape } from './lag-compensation-shapes.ts';
export type { Rewind } from './lag-compensation-history.ts';

type FieldsOf<T, V> = { [F in keyof T]: T[F] extends V ? F : never }[keyof T] & string;
/** Names of the vec3 fields of ghost type K (a quat has x, y, z too: excluded). */
type Vec3Field<P extends Protocol, K extends GhostNames<P>> = Exclude<FieldsOf<GhostValues<P, K>, Vec3>, FieldsOf<GhostValues<P, K>, Quat>>;

export interface ColliderOptions<P extends Protocol, K extends GhostNames<P>> {
  shape: ColliderShape;
  /** The vec3 field holding the shape's centre (default 'position'). */
  positionField?: Vec3Field<P, K>;
  /** A quat field turning the shape (default: none, axis-aligned). */
  rotationField?: FieldsOf<GhostValues<P, K>, Quat>;
}

export interface LagCompensationOptions<P extends Protocol> {
  /**
   * How far back poses are kept (default 1000 ms): ceil(historyMs / stepMs) + 1 ticks. Older views are clamped to the oldest tick.
   * A 10–15 fps client at 150 ms RTT needs ≈ 750 ms (its interpolation delay grows with its frame time).
   */
  historyMs?: number;
  /** The ghost types that can be hit, and their shapes. */
  colliders: { [K in GhostNames<P>]?: ColliderOptions<P, K> };
}

/** An explicit view: the tick and fraction remote ghosts were shown at. */
export interface RewindView {
  tick: Tick;
  fraction: number;
}

/** Whose view to rewind to: a connection, its networkId (0 = no rewind: the newest recorded tick), or an explicit view. */
export type RewindTarget = Connection<unknown> | number | RewindView;

export interface RaycastOptions<P extends Protocol> {
  /** A ghost the ray never hits (e.g. the shooter's own). */
  ignore?: Ghost<P>;
  /** Only these ghost types (default: every collider type). */
  types?: readonly GhostNames<P>[];
}

export interface RaycastHit<P extends Protocol> {
  ghost: Ghost<P>;
  /** Along the (normalized) direction; 0 when the origin is inside the shape. */
  distance: number;
  point: Vec3;
}

export interface LagCompensation<P extends Protocol> {
  /**
   * Cast against ghosts as `at` saw them (interpolated between recorded ticks, clamped to the history). Ghosts that were not there then, or
   * are gone now, are never hit.
   */
  raycast(at: RewindTarget, origin: Vec3, direction: Vec3, maxDistance: number, options?: RaycastOptions<P>): RaycastHit<P> | undefined;
  /** The same cast against the present poses (no rewind): what a server without lag compensation sees. */
  raycastNow(origin: Vec3, direction: Vec3, maxDistance: number, options?: RaycastOptions<P>): RaycastHit<P> | undefined;
  /**
   * The recorded tick and fraction a cast for `at` uses (`clamped` when the view lay outside the history); undefined before the first tick.
   */
  rewindOf(at: RewindTarget): Rewind | undefined;
  /** `ghost`'s centre as `at` saw it, or undefined when it was not there. */
  positionAt(at: RewindTarget, ghost: Ghost<P>): Vec3 | undefined;
  /** Ring size in ticks: ceil(historyMs / stepMs) + 1. */
  readonly historyTicks: number;
  readonly oldestTick: Tick | undefined;
  readonly newestTick: Tick | undefined;
  /** Stop recording and forget the history. */
  dispose(): void;
}

interface Collider {
  readonly type: string;
  readonly shape: CompiledShape;
  readonly position: string;
  readonly rotation: string | undefined;
}

function compileColliders(protocol: Protocol, colliders: Record<string, ColliderOptions<Protocol, string> | undefined>): Collider[] {
  const out: Collider[] = [];
  for (const [type, spec] of Object.entries(colliders)) {
    if (spec === undefined) continue;
    const entry = protocol.ghostByName.get(type);
    if (!entry) throw new NetcodeError('usage', `react-netcode: lag compensation collider "${type}" is not a ghost type of the protocol (${[...protocol.ghostByName.keys()].join(', ')}).`);
    const position = spec.positionField ?? 'position';
    if (entry.type.fields[position]?.kind !== 'vec3') throw new NetcodeError('usage', `react-netcode: lag compensation collider "${type}" needs a vec3 field "${position}" for its centre; set positionField.`);
    const rotation = spec.rotationField;
    if (rotation !== undefined && entry.type.fields[rotation]?.kind !== 'quat') throw new NetcodeError('usage', `react-netcode: lag compensation collider "${type}": rotationField "${rotation}" is not a quat field.`);
    out.push({ type, shape: compileShape(spec.shape, type), position, rotation });
  }
  if (out.length === 0) throw new NetcodeError('usage', 'react-netcode: lag compensation needs at least one collider, e.g. colliders: { player: { shape: { capsule: [0.5, 0.4] } } }.');
  return out;
}

/** A ray being cast: origin, unit direction, length. */
interface Ray {
  ox: number;
  oy: number;
  oz: number;
  dx: number;
  dy: number;
  dz: number;
  max: number;
}

function aimRay(ray: Ray, origin: Vec3, direction: Vec3, maxDistance: number): void {
  const len = Math.sqrt(direction.x * direction.x + direction.y * direction.y + direction.z * direction.z);
  if (!(len > 0) || !Number.isFinite(len)) throw new NetcodeError('usage', `react-netcode: raycast direction must be a non-zero finite vector (got ${direction.x}, ${direction.y}, ${direction.z}).`);
  if (!(maxDistance >= 0)) throw new NetcodeError('usage', `react-netcode: raycast maxDistance must be >= 0 (got ${maxDistance}).`);
  ray.ox = origin.x;
  ray.oy = origin.y;
  ray.oz = origin.z;
  ray.dx = direction.x / len;
  ray.dy = direction.y / len;
  ray.dz = direction.z / len;
  ray.max = maxDistance;
}

function hitOf<P extends Protocol>(ray: Ray, ghost: Ghost<P>, distance: number): RaycastHit<P> {
  return { ghost, distance, point: { x: ray.ox + ray.dx * distance, y: ray.oy + ray.dy * distance, z: ray.oz + ray.dz * distance } };
}

/** The current pose of a ghost's collider (position, then rotation or the identity) into `pose`. */
function readPose(values: Record<string, unknown>, collider: Collider, pose: Float64Array): void {
  const p = values[collider.position] as Vec3;
  const q = collider.rotation === undefined ? undefined : (values[collider.rotation] as Quat);
  pose[0] = p.x;
  pose[1] = p.y;
  pose[2] = p.z;
  pose[3] = q?.x ?? 0;
  pose[4] = q?.y ?? 0;
  pose[5] = q?.z ?? 0;
  pose[6] = q?.w ?? 1;
}

/** Resolve `at` into `out`; false before the first recorded tick. */
function rewindTo<P extends Protocol>(server: NetServer<P>, history: PoseHistory<Ghost<P>>, at: RewindTarget, out: Rewind): boolean {
  if (typeof at === 'number') {
    if (at === 0) return history.rewind(history.newestTick ?? 0, 0, out);
    const connection = server.connections.get(at);
    if (!connection) throw new NetcodeError('usage', `react-netcode: lag compensation: no connection has networkId ${at}; pass a live connection (server.connections) or its networkId.`);
    const view = server.interpolationViewOf(connection);
    return history.rewind(view.tick, view.fraction, out);
  }
  if ('networkId' in at) {
    // The view of the input the server runs now (ctx.interpolationView), not the newest packet's.
    const view = server.interpolationViewOf(at as never);
    return history.rewind(view.tick, view.fraction, out);
  }
  return history.rewind(at.tick, at.fraction, out);
}

/** Distance along `ray` to `shape` at `pose`, or -1 (`local`: scratch for the ray in the shape's frame). */
function castAt(shape: CompiledShape, ray: Ray, pose: Float64Array, local: Float64Array): number {
  rayToLocal(pose, 0, ray.ox, ray.oy, ray.oz, ray.dx, ray.dy, ray.dz, local);
  return rayShape(shape, local, ray.max);
}

/** Whether a cast with `opts` may hit `ghost` (alive, not ignored, of a wanted type). */
function isWanted<P extends Protocol>(ghost: Ghost<P>, type: string, opts: RaycastOptions<P> | undefined): boolean {
  return ghost.alive && ghost !== opts?.ignore && (opts?.types === undefined || opts.types.includes(type as GhostNames<P>));
}

/** Record collider poses after every tick of `server`, and cast rays as a client saw the world. */
export function createLagCompensation<P extends Protocol>(server: NetServer<P>, options: LagCompensationOptions<P>): LagCompensation<P> {
  const historyMs = options.historyMs ?? 1000;
  if (!Number.isFinite(historyMs) || historyMs <= 0) throw new NetcodeError('usage', `react-netcode: lag compensation historyMs must be a finite number > 0 (got ${historyMs}).`);
  const protocol = server.protocol;
  const colliders = compileColliders(protocol, options.colliders as Record<string, ColliderOptions<Protocol, string> | undefined>);
  // 1e-9 keeps an exact multiple (500 ms at 60 Hz = 30 steps) from rounding up to 31.
  const historyTicks = Math.ceil((historyMs * protocol.tickRate) / 1000 - 1e-9) + 1;
  const history = new PoseHistory<Ghost<P>>(historyTicks);
  const rewind: Rewind = { tick: 0, fraction: 0, clamped: false };
  const pose = new Float64Array(POSE_SIZE);
  const local = new Float64Array(6);
  const ray: Ray = { ox: 0, oy: 0, oz: 0, dx: 0, dy: 0, dz: 0, max: 0 };

  const record = (tick: Tick): void => {
    history.begin(tick);
    for (let c = 0; c < colliders.length; c++) {
      for (const ghost of server.world.query(colliders[c]!.type as GhostNames<P>)) {
        readPose(ghost.components as Record<string, unknown>, colliders[c]!, pose);
        history.record(ghost as Ghost<P>, c, pose[0]!, pose[1]!, pose[2]!, pose[3]!, pose[4]!, pose[5]!, pose[6]!);
      }
    }
    history.end();
  };
  const unsubscribe = server.events.on('tick', record);

  const resolve = (at: RewindTarget): boolean => rewindTo(server, history, at, rewind);

  const castPose = (c: number): number => castAt(colliders[c]!.shape, ray, pose, local);


  const trackOf = (ghost: Ghost<P>): PoseTrack<Ghost<P>> | undefined => history.tracks.find((t) => t.ghost === ghost);

  return {
    historyTicks,
    get oldestTick() {
      return history.oldestTick;
    },
    get newestTick() {
      return history.newestTick;
    },

    raycast(at, origin, direction, maxDistance, opts) {
      aimRay(ray, origin, direction, maxDistance);
      if (!resolve(at)) return undefined;
      let best: Ghost<P> | undefined;
      let bestDistance = Infinity;
      for (const track of history.tracks) {
        const ghost = track.ghost!;
        if (!isWanted(ghost, colliders[track.collider]!.type, opts) || !history.sample(track, rewind, pose)) continue;
        const d = castPose(track.collider);
        if (d >= 0 && d < bestDistance) {
          best = ghost;
          bestDistance = d;
        }
      }
      return best === undefined ? undefined : hitOf(ray, best, bestDistance);
    },

    raycastNow(origin, direction, maxDistance, opts) {
      aimRay(ray, origin, direction, maxDistance);
      let best: Ghost<P> | undefined;
      let bestDistance = Infinity;
      for (let c = 0; c < colliders.length; c++) {
        for (const ghost of server.world.query(colliders[c]!.type as GhostNames<P>)) {
          if (!isWanted(ghost as Ghost<P>, colliders[c]!.type, opts)) continue;
          readPose(ghost.components as Record<string, unknown>, colliders[c]!, pose);
          const d = castPose(c);
          if (d >= 0 && d < bestDistance) {
            best = ghost as Ghost<P>;
            bestDistance = d;
          }
        }
      }
      return best === undefined ? undefined : hitOf(ray, best, bestDistance);
    },

    rewindOf(at) {
      return resolve(at) ? { ...rewind } : undefined;
    },

    positionAt(at, ghost) {
      const track = trackOf(ghost);
      if (!track || !resolve(at) || !history.sample(track, rewind, pose)) return undefined;
      return { x: pose[0]!, y: pose[1]!, z: pose[2]! };
    },

    dispose() {
      unsubscribe();
      history.clear();
    },
  };
}
