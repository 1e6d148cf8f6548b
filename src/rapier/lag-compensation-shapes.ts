// Analytic collider shapes for lag compensation: sphere, box and capsule, each
// centred on its ghost's position and turned by its rotation. Ray casts run in the
// shape's local frame on plain numbers (no Rapier, no allocation): the caller turns
// the ray into that frame with `rayToLocal`, then asks `rayShape` for the distance.

import { NetcodeError } from '../core/errors.ts';

/** A collider: `{ sphere: radius }`, `{ box: [hx, hy, hz] }` (half extents) or `{ capsule: [halfHeight, radius] }` (axis along local y). */
export type ColliderShape =
  | { readonly sphere: number }
  | { readonly box: readonly [number, number, number] }
  | { readonly capsule: readonly [number, number] };

export const SPHERE = 0;
export const BOX = 1;
export const CAPSULE = 2;

/** A validated shape: kind and up to three dimensions (sphere r; box hx, hy, hz; capsule halfHeight, r). */
export interface CompiledShape {
  readonly kind: typeof SPHERE | typeof BOX | typeof CAPSULE;
  readonly a: number;
  readonly b: number;
  readonly c: number;
}

function dim(value: unknown, what: string, type: string, allowZero = false): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new NetcodeError('usage', `react-netcode: lag compensation collider of "${type}": ${what} must be a finite number ${allowZero ? '>= 0' : '> 0'} (got ${String(value)}).`);
  }
  return value;
}

export function compileShape(shape: ColliderShape, type: string): CompiledShape {
  if ('sphere' in shape) return { kind: SPHERE, a: dim(shape.sphere, 'sphere radius', type), b: 0, c: 0 };
  if ('box' in shape && Array.isArray(shape.box) && shape.box.length === 3) {
    return { kind: BOX, a: dim(shape.box[0], 'box hx', type), b: dim(shape.box[1], 'box hy', type), c: dim(shape.box[2], 'box hz', type) };
  }
  if ('capsule' in shape && Array.isArray(shape.capsule) && shape.capsule.length === 2) {
    return { kind: CAPSULE, a: dim(shape.capsule[0], 'capsule halfHeight', type, true), b: dim(shape.capsule[1], 'capsule radius', type), c: 0 };
  }
  throw new NetcodeError('usage', `react-netcode: lag compensation collider of "${type}" needs shape { sphere: r }, { box: [hx, hy, hz] } or { capsule: [halfHeight, r] }.`);
}

/**
 * Write the ray (origin o, unit direction d) into `out[0..5]` in the local frame of a pose
 * stored at `pose[at..at+6]` = position xyz, rotation quaternion xyzw: o' = q⁻¹(o − p), d' = q⁻¹ d.
 */
export function rayToLocal(
  pose: Float64Array, at: number, ox: number, oy: number, oz: number, dx: number, dy: number, dz: number, out: Float64Array,
): void {
  const qx = -pose[at + 3]!;
  const qy = -pose[at + 4]!;
  const qz = -pose[at + 5]!;
  const qw = pose[at + 6]!;
  rotate(qx, qy, qz, qw, ox - pose[at]!, oy - pose[at + 1]!, oz - pose[at + 2]!, out, 0);
  rotate(qx, qy, qz, qw, dx, dy, dz, out, 3);
}

/** v' = q v q⁻¹ for a unit quaternion (t = 2 q×v; v' = v + w t + q×t). */
function rotate(qx: number, qy: number, qz: number, qw: number, vx: number, vy: number, vz: number, out: Float64Array, at: number): void {
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out[at] = vx + qw * tx + (qy * tz - qz * ty);
  out[at + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[at + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/** First hit of the unit ray with a sphere of radius r centred at (cx, cy, cz): distance, 0 if the origin is inside, -1 for none. */
function raySphere(
  ox: number, oy: number, oz: number, dx: number, dy: number, dz: number, cx: number, cy: number, cz: number, r: number,
): number {
  const px = ox - cx;
  const py = oy - cy;
  const pz = oz - cz;
  const c = px * px + py * py + pz * pz - r * r;
  if (c <= 0) return 0;
  const b = px * dx + py * dy + pz * dz;
  const disc = b * b - c;
  if (disc < 0) return -1;
  const t = -b - Math.sqrt(disc);
  return t >= 0 ? t : -1;
}

/** Slab test against the box |x| ≤ hx, |y| ≤ hy, |z| ≤ hz. */
function rayBox(o: Float64Array, hx: number, hy: number, hz: number, maxDistance: number): number {
  let near = 0;
  let far = maxDistance;
  for (let axis = 0; axis < 3; axis++) {
    const h = axis === 0 ? hx : axis === 1 ? hy : hz;
    const p = o[axis]!;
    const d = o[axis + 3]!;
    if (Math.abs(d) < 1e-12) {
      if (p < -h || p > h) return -1;
      continue;
    }
    const t1 = (-h - p) / d;
    const t2 = (h - p) / d;
    near = Math.max(near, Math.min(t1, t2));
    far = Math.min(far, Math.max(t1, t2));
    if (near > far) return -1;
  }
  return near;
}

/** Capsule = the segment y ∈ [−hh, hh] on the local y axis, swept by radius r: the nearest of body and caps. */
function rayCapsule(o: Float64Array, hh: number, r: number): number {
  const ox = o[0]!;
  const oy = o[1]!;
  const oz = o[2]!;
  const dx = o[3]!;
  const dy = o[4]!;
  const dz = o[5]!;
  const cy = Math.max(-hh, Math.min(hh, oy));
  if (ox * ox + (oy - cy) * (oy - cy) + oz * oz <= r * r) return 0; // origin inside
  let best = -1;
  const a = dx * dx + dz * dz;
  if (a > 1e-12) {
    const b = ox * dx + oz * dz;
    const disc = b * b - a * (ox * ox + oz * oz - r * r);
    if (disc >= 0) {
      const t = (-b - Math.sqrt(disc)) / a;
      if (t >= 0 && Math.abs(oy + t * dy) <= hh) best = t;
    }
  }
  const low = raySphere(ox, oy, oz, dx, dy, dz, 0, -hh, 0, r);
  if (low >= 0 && (best < 0 || low < best)) best = low;
  const high = raySphere(ox, oy, oz, dx, dy, dz, 0, hh, 0, r);
  if (high >= 0 && (best < 0 || high < best)) best = high;
  return best;
}

/** Distance to the first hit of the local ray in `local[0..5]` (unit direction) within maxDistance; 0 if it starts inside; -1 for none. */
export function rayShape(shape: CompiledShape, local: Float64Array, maxDistance: number): number {
  let t: number;
  if (shape.kind === SPHERE) t = raySphere(local[0]!, local[1]!, local[2]!, local[3]!, local[4]!, local[5]!, 0, 0, 0, shape.a);
  else if (shape.kind === BOX) t = rayBox(local, shape.a, shape.b, shape.c, maxDistance);
  else t = rayCapsule(local, shape.a, shape.b);
  return t >= 0 && t <= maxDistance ? t : -1;
}
