// A character in its controller's skin over the ground, lifted out of it before its move.
//
// Rapier's KinematicCharacterController keeps a character `offset` (1 cm by default) from the
// level. A character nearer the ground than that — in exact contact, spawned or teleported at
// halfHeight + radius over a floor — is pushed out of the skin by less than a millimetre per
// move, which the per-tick quantization of a character's position (1 mm with quantize 1000)
// rounds away: it never leaves the skin, and at some places the controller meets the floor as a
// wall (it stops within a few ticks, or is deflected sideways). And a character at the offset
// (where the quantization puts one the controller has landed: 0.810 for a capsule whose
// halfHeight + radius is 0.8) is let through into the ground by the whole of a move down: 10 cm
// a tick sank it 10 cm into the floor, and kept it there while the move went on. So at each move,
// before the controller runs, a ray straight down from the character's centre measures the ground
// below it. When the gap between the shape's lowest point and that ground is inside the skin
// (less than the offset minus half a quantum; for a move down, less than the offset plus half a
// quantum, so the offset itself is in; and no deeper than the offset into the ground), the
// character is lifted to the offset plus one quantum, on the quantization grid (exactly at the
// offset the controller still deflects it at some places). A move down from up to two quanta over
// the offset then goes down to the offset plus one quantum and no lower: from there the
// controller itself pushed a character up or sideways by up to 3 cm at some places, and then let it
// through the offset again. Decided by the state at that move alone (the quantized position, the
// move and the static level), so the server, a client's first prediction and its resimulations
// lift alike, and a character teleported onto the ground later is lifted at its next move. A wall
// beside a character is not below its centre, and under a slope steeper than a few degrees the
// ground below the centre is farther than the skin and two quanta: neither lifts nor clamps
// (test/rapier/character-contact.test.ts).
//
// Where the query world has 0.19's layout, the ray is the raw broad-phase call with two reused
// wasm vectors and no filter closure, and its hit is wrapped in one reused object (scratch.ts):
// nothing is allocated per move. Else it is the public World.castRay with a reused Ray.

import type RAPIER from '@dimforge/rapier3d-compat';
import type { Quat, Vec3 } from '../core/field.ts';
import type { Entry } from './body.ts';
import type { Rapier } from './options.ts';
import type { RawVec } from './raw.ts';
import { ScratchWrap, wrapClassOf } from './scratch.ts';

/** QueryFilterFlags.EXCLUDE_SENSORS: a sensor in the level is nobody's ground. */
const EXCLUDE_SENSORS = 8;

interface RawHit {
  timeOfImpact(): number;
  free(): void;
}
interface RawBroadPhase {
  castRay(...args: unknown[]): RawHit | undefined;
}
interface WorldMembers {
  readonly broadPhase?: { readonly raw?: RawBroadPhase };
  readonly narrowPhase?: { readonly raw?: unknown };
  readonly bodies?: { readonly raw?: unknown };
  readonly colliders?: { readonly raw?: unknown };
}

interface RawWorld {
  readonly broadPhase: { readonly raw: RawBroadPhase };
  readonly narrowPhase: { readonly raw: unknown };
  readonly bodies: { readonly raw: unknown };
  readonly colliders: { readonly raw: unknown };
}

function rawLayout(world: RAPIER.World): boolean {
  const w = world as unknown as WorldMembers;
  return typeof w.broadPhase?.raw?.castRay === 'function' && w.broadPhase.raw.castRay.length === 12
    && w.narrowPhase?.raw !== undefined && w.bodies?.raw !== undefined && w.colliders?.raw !== undefined;
}

export class GroundLift {
  #raw: boolean | undefined;
  #origin: RawVec | undefined;
  #down: RawVec | undefined;
  #hit: ScratchWrap<RawHit> | undefined;
  #ray: RAPIER.Ray | undefined;
  /** The last cast's time of impact (a field: its double is stored in place). */
  #toi = 0.5;
  /** The next cast's length (a field, as #toi). */
  #maxToi = 0.5;

  constructor(private readonly R: Rapier) {}

  /**
   * Lift the character `e` at `pos` (its position component, quantized) out of its skin over the ground, in place,
   * before its controller slides `move`, and clamp a move down that would take it back in (`move.y`, in place).
   * `rotation`: its rotation component, if any.
   */
  lift(world: RAPIER.World, e: Entry, proxy: RAPIER.Collider, pos: Vec3, rotation: Quat | undefined, move: Vec3): void {
    // How far the shape reaches below its centre (world −y). Computed here, not returned by a helper: a returned
    // double is a new heap number per call.
    const { options, position } = e.spec;
    const shape = options.collider;
    const offset = options.character?.offset ?? 0.01;
    const q = position.q;
    let below: number;
    if ('ball' in shape) below = shape.ball;
    else {
      // The world y components of the rotated local axes: R·eₓ, R·e_y, R·e_z.
      const r = rotation;
      const yy = r === undefined ? 1 : 1 - 2 * (r.x * r.x + r.z * r.z);
      if ('capsule' in shape) below = shape.capsule[0] * Math.abs(yy) + shape.capsule[1];
      else {
        const xy = r === undefined ? 0 : 2 * (r.x * r.y + r.w * r.z);
        const zy = r === undefined ? 0 : 2 * (r.y * r.z - r.w * r.x);
        below = shape.cuboid[0] * Math.abs(xy) + shape.cuboid[1] * Math.abs(yy) + shape.cuboid[2] * Math.abs(zy);
      }
    }
    const quantum = q === undefined ? 0.001 : 1 / q;
    const down = move.y < 0;
    // A move down looks a little farther: up to two quanta over the offset it is clamped below.
    this.#maxToi = below + offset + (down ? 2.01 * quantum : 0);
    if (!this.#cast(world, proxy, pos)) return;
    let gap = this.#toi - below;
    if (gap < -offset) return; // deeper into the ground than the offset: not in the skin
    // A move along or up: within half a quantum of the offset it is where the controller keeps it. A move down: at the
    // offset (to float noise) the controller lets it through into the ground by the whole move, so up to half a quantum
    // above the offset is lifted too.
    if (gap < offset + (down ? 0.5 : -0.5) * quantum) {
      const y = pos.y + (offset - gap);
      // Onto the grid (upwards, up to a hundredth of a quantum of float noise), then one quantum more.
      const lifted = q === undefined ? y + quantum : (Math.ceil(y * q - 0.01) + 1) / q;
      gap += lifted - pos.y;
      pos.y = lifted;
    }
    // A move down from up to two quanta over the offset: the controller, a quantum from its offset, pushes the character
    // up or sideways by up to 3 cm at some places and then lets it through the offset, and the quantization puts it back
    // there every tick. The move goes down to the offset plus one quantum and no lower (and never up); its horizontal part
    // is the controller's, as before.
    if (down && gap <= offset + 2.01 * quantum) move.y = Math.min(0, Math.max(move.y, offset + quantum - gap));
  }

  /** A ray straight down from `pos` over #maxToi (solid; sensors and the character's own proxy left out): its time of impact into #toi. */
  #cast(world: RAPIER.World, proxy: RAPIER.Collider, pos: Vec3): boolean {
    const maxToi = this.#maxToi;
    if (!(this.#raw ??= rawLayout(world))) {
      const ray = (this.#ray ??= new this.R.Ray({ x: 0, y: 0, z: 0 }, { x: 0, y: -1, z: 0 }));
      ray.origin.x = pos.x;
      ray.origin.y = pos.y;
      ray.origin.z = pos.z;
      const hit = world.castRay(ray, maxToi, true, EXCLUDE_SENSORS, undefined, proxy);
      if (hit === null) return false;
      this.#toi = hit.timeOfImpact;
      return true;
    }
    const w = world as unknown as RawWorld;
    const origin = (this.#origin ??= this.#vector(0, 0, 0));
    const down = (this.#down ??= this.#vector(0, -1, 0));
    origin.x = pos.x;
    origin.y = pos.y;
    origin.z = pos.z;
    const scratch = this.#hit;
    scratch?.begin();
    let hit: RawHit | undefined;
    try {
      const { broadPhase, narrowPhase, bodies, colliders } = w;
      hit = broadPhase.raw.castRay(
        narrowPhase.raw, bodies.raw, colliders.raw, origin, down, maxToi, true, EXCLUDE_SENSORS, undefined, proxy.handle, undefined, null,
      );
    } finally {
      scratch?.end();
    }
    if (hit === undefined) return false;
    this.#toi = hit.timeOfImpact();
    if (scratch === undefined) {
      // The first hit: its class, for one reused wrapper from now on (where the swap is possible).
      const C = wrapClassOf(hit);
      if (C !== undefined) this.#hit = new ScratchWrap<RawHit>(C);
    }
    hit.free();
    return true;
  }

  /** A wasm vector of the module, freed by dispose(). */
  #vector(x: number, y: number, z: number): RawVec {
    return this.R.VectorOps.intoRaw({ x, y, z }) as unknown as RawVec;
  }

  dispose(): void {
    this.#origin?.free();
    this.#down?.free();
    this.#origin = this.#down = undefined;
    this.#hit = undefined;
    this.#ray = undefined;
    this.#raw = undefined;
  }
}
