// Render stage, after prediction: when a rollback moves a predicted ghost, the jump becomes a
// render-only offset that decays linearly to zero (Source's NotePredictionError and
// GetPredictionErrorSmoothingVector). Simulation state is never read back or written (docs/architecture.md, house rule 3).

import { NetcodeError } from '../errors.ts';
import type { Quat, Vec3 } from '../field.ts';

export interface CorrectionOptions {
  /**
   * How long an offset takes to decay to zero, in ms (default 100, Source's cl_smoothtime 0.1 s). 0 turns smoothing off: every correction
   * snaps.
   */
  smoothingMs?: number;
  /** Position errors below this many metres are ignored (default 0.001 = 1 mm). */
  minDistance?: number;
  /**
   * Position errors (or a summed offset) above this many metres snap instead of sliding (default 2 m:
   * Source treats errors over 64 units ≈ 1.63 m as teleports; 2 m is the metric round-up, large enough
   * for a 10 m/s runner mispredicted for 200 ms and small enough that respawns and portals cut).
   */
  teleportDistance?: number;
  /** Rotation errors below this many radians are ignored (default 0.001 rad ≈ 0.057°, 1 mm of arc at 1 m). */
  minAngle?: number;
  /** Rotation errors above this many radians snap (default Infinity: a rotation error alone, at most π, is always smoothed). */
  teleportAngle?: number;
}

export type CorrectionResult = 'ignored' | 'smoothed' | 'snapped';

export const DEFAULT_CORRECTION_OPTIONS: Readonly<Required<CorrectionOptions>> = Object.freeze({
  smoothingMs: 100,
  minDistance: 0.001,
  teleportDistance: 2,
  minAngle: 0.001,
  teleportAngle: Infinity,
});

function option(name: keyof CorrectionOptions, value: number | undefined): number {
  const v = value ?? DEFAULT_CORRECTION_OPTIONS[name];
  if (!(v >= 0)) throw new NetcodeError('usage', `react-netcode: VisualCorrection ${name} ${String(v)} is invalid; pass a number >= 0 or omit it for the default.`);
  if (name === 'smoothingMs' && v === Infinity) throw new NetcodeError('usage', 'react-netcode: VisualCorrection smoothingMs must be finite; pass e.g. 100.');
  return v;
}

/** Scratch for quaternion products (no allocation per call). */
const q = { x: 0, y: 0, z: 0, w: 1 };

/** An operand scratch (a conjugate, a stored offset), and the identity. */
const t = { x: 0, y: 0, z: 0, w: 1 };
const IDENTITY: Readonly<Quat> = Object.freeze({ x: 0, y: 0, z: 0, w: 1 });

/**
 * q = a · b (Hamilton product), reading the quaternions itself: eight floats passed to a call V8 does
 * not inline (the per-ghost render loop is past its inlining budget) would be eight heap numbers per
 * ghost and frame. `a` and `b` must not be `q`.
 */
function mul(a: Readonly<Quat>, b: Readonly<Quat>): void {
  const ax = a.x;
  const ay = a.y;
  const az = a.z;
  const aw = a.w;
  const bx = b.x;
  const by = b.y;
  const bz = b.z;
  const bw = b.w;
  q.x = aw * bx + ax * bw + ay * bz - az * by;
  q.y = aw * by - ax * bz + ay * bw + az * bx;
  q.z = aw * bz + ax * by - ay * bx + az * bw;
  q.w = aw * bw - ax * bx - ay * by - az * bz;
}

/** Normalize q onto the w ≥ 0 hemisphere; returns its half-angle (0 for identity or a degenerate q). */
function canonical(): number {
  const len = Math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  if (!(len > 0)) return 0;
  const s = q.w < 0 ? -1 / len : 1 / len;
  q.x *= s;
  q.y *= s;
  q.z *= s;
  q.w *= s;
  return Math.atan2(Math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z), q.w);
}

/**
 * A decaying render offset for one predicted ghost. After a resimulation call `onCorrection(before,
 * after)`; every frame `update(dtMs)` then `apply(sim, out)`. The offset is `base · k` with
 * k = 1 − elapsed / smoothingMs: its magnitude decreases linearly and monotonically to exactly zero,
 * never overshooting (k ≥ 0, so no component changes sign). A new error is added to the remaining
 * offset and restarts the linear decay of the sum. Rotation decays along the shortest arc at a
 * constant angular rate (angle · k about a fixed axis) to identity.
 */
export class VisualCorrection {
  readonly smoothingMs: number;
  readonly minDistance: number;
  readonly teleportDistance: number;
  readonly minAngle: number;
  readonly teleportAngle: number;
  private readonly pos: Vec3 = { x: 0, y: 0, z: 0 };
  private readonly rot: Quat = { x: 0, y: 0, z: 0, w: 1 };
  private readonly base: Vec3 = { x: 0, y: 0, z: 0 };
  /** Unit rotation axis of the base rotation offset and its half-angle. */
  private readonly axis: Vec3 = { x: 0, y: 0, z: 0 };
  private half = 0;
  private baseMagnitude = 0;
  private k = 0;
  private elapsed = 0;

  constructor(options: CorrectionOptions = {}) {
    this.smoothingMs = option('smoothingMs', options.smoothingMs);
    this.minDistance = option('minDistance', options.minDistance);
    this.teleportDistance = option('teleportDistance', options.teleportDistance);
    this.minAngle = option('minAngle', options.minAngle);
    this.teleportAngle = option('teleportAngle', options.teleportAngle);
  }

  /** The current position offset (live; do not keep it across frames). */
  get offset(): Readonly<Vec3> {
    return this.pos;
  }
  get offsetMagnitude(): number {
    return this.baseMagnitude * this.k;
  }
  /** The current rotation offset (live; identity when none). */
  get rotationOffset(): Readonly<Quat> {
    return this.rot;
  }
  /** The angle of the rotation offset in radians. */
  get offsetAngle(): number {
    return 2 * this.half * this.k;
  }
  /** True while an offset remains. */
  get active(): boolean {
    return this.k > 0;
  }

  /**
   * After a resimulation: `before` is the transform predicted for the current tick before the rollback,
   * `after` the newly predicted one. The new offset is (before − after) + the remaining offset, so
   * `after + offset` is where the ghost was rendered. Pass both rotations or neither.
   * 'ignored': the error is below minDistance and minAngle (the remaining offset keeps decaying);
   * 'snapped': the error or the summed offset exceeds a teleport threshold (or smoothingMs is 0), so
   * the whole offset is dropped; 'smoothed' otherwise.
   */
  onCorrection(
    beforePos: Readonly<Vec3>, afterPos: Readonly<Vec3>, beforeRot?: Readonly<Quat>, afterRot?: Readonly<Quat>,
  ): CorrectionResult {
    const ex = beforePos.x - afterPos.x;
    const ey = beforePos.y - afterPos.y;
    const ez = beforePos.z - afterPos.z;
    const distance = Math.sqrt(ex * ex + ey * ey + ez * ez);
    let angle = 0;
    let dx = 0;
    let dy = 0;
    let dz = 0;
    let dw = 1;
    if (beforeRot !== undefined || afterRot !== undefined) {
      if (beforeRot === undefined || afterRot === undefined) {
        throw new NetcodeError('usage', 'react-netcode: VisualCorrection.onCorrection needs both rotations (before and after) or neither.');
      }
      // d = before · after⁻¹, so d · after = before (conjugate = inverse for unit quaternions).
      t.x = -afterRot.x;
      t.y = -afterRot.y;
      t.z = -afterRot.z;
      t.w = afterRot.w;
      mul(beforeRot, t);
      angle = 2 * canonical();
      ({ x: dx, y: dy, z: dz, w: dw } = q);
    }
    if (!(distance <= this.teleportDistance) || !(angle <= this.teleportAngle)) return this.snap();
    const addPos = distance >= this.minDistance && distance > 0;
    const addRot = angle >= this.minAngle && angle > 0;
    if (!addPos && !addRot) return 'ignored';
    if (this.smoothingMs === 0) return this.snap();

    const px = this.pos.x + (addPos ? ex : 0);
    const py = this.pos.y + (addPos ? ey : 0);
    const pz = this.pos.z + (addPos ? ez : 0);
    const magnitude = Math.sqrt(px * px + py * py + pz * pz);
    // Rendered before = rot · before; the new offset r must give r · after = rot · before, so r = rot · d.
    const r = this.rot;
    t.x = dx;
    t.y = dy;
    t.z = dz;
    t.w = dw;
    mul(r, addRot ? t : IDENTITY);
    const half = canonical();
    if (!(magnitude <= this.teleportDistance) || !(2 * half <= this.teleportAngle)) return this.snap();

    this.base.x = px;
    this.base.y = py;
    this.base.z = pz;
    this.baseMagnitude = magnitude;
    const sinHalf = Math.sin(half);
    const s = sinHalf > 0 ? 1 / sinHalf : 0;
    this.axis.x = q.x * s;
    this.axis.y = q.y * s;
    this.axis.z = q.z * s;
    this.half = half;
    this.elapsed = 0;
    this.k = magnitude > 0 || half > 0 ? 1 : 0;
    this.write();
    return 'smoothed';
  }

  /** Advance the decay by dtMs (≥ 0). */
  update(dtMs: number): void {
    if (!(dtMs >= 0)) throw new NetcodeError('usage', `react-netcode: VisualCorrection.update(dtMs) needs a frame time >= 0, got ${String(dtMs)}.`);
    if (this.k === 0) return;
    this.elapsed += dtMs;
    const k = 1 - this.elapsed / this.smoothingMs;
    if (k > 0) {
      this.k = k;
      this.write();
    } else {
      this.reset();
    }
  }

  /**
   * Rendered transform = sim + offset, rotation = offsetRot · simRot, written into `outPos` / `outRot`
   * (which must not be the simulation's own objects). The sim arguments are only read.
   */
  apply(simPos: Readonly<Vec3>, outPos: Vec3, simRot?: Readonly<Quat>, outRot?: Quat): void {
    outPos.x = simPos.x + this.pos.x;
    outPos.y = simPos.y + this.pos.y;
    outPos.z = simPos.z + this.pos.z;
    if (simRot === undefined && outRot === undefined) return;
    if (simRot === undefined || outRot === undefined) {
      throw new NetcodeError('usage', 'react-netcode: VisualCorrection.apply needs both simRot and outRot, or neither.');
    }
    mul(this.rot, simRot);
    outRot.x = q.x;
    outRot.y = q.y;
    outRot.z = q.z;
    outRot.w = q.w;
  }

  /** Drop any offset at once. */
  reset(): void {
    this.k = 0;
    this.elapsed = 0;
    this.half = 0;
    this.baseMagnitude = 0;
    this.pos.x = this.pos.y = this.pos.z = 0;
    this.rot.x = this.rot.y = this.rot.z = 0;
    this.rot.w = 1;
  }

  private snap(): 'snapped' {
    this.reset();
    return 'snapped';
  }

  /** pos = base · k; rot = (axis · sin(half · k), cos(half · k)). */
  private write(): void {
    const k = this.k;
    this.pos.x = this.base.x * k;
    this.pos.y = this.base.y * k;
    this.pos.z = this.base.z * k;
    const h = this.half * k;
    const s = Math.sin(h);
    this.rot.x = this.axis.x * s;
    this.rot.y = this.axis.y * s;
    this.rot.z = this.axis.z * s;
    this.rot.w = Math.cos(h);
  }
}
