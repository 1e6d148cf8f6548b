// The simulated world the snapshot benchmark replicates: 1000 ghosts whose float
// values feed react-netcode and whose pre-quantized integers (mm, mm/s, smallest-three
// 12-bit codes) feed @colyseus/schema and JSON, so every system carries the same information.
import { createRng, type Rng } from '../../src/core/rng.ts';
import type { Quat, Vec3 } from '../../src/core/field.ts';

export type Motion = 'static' | 'linear' | 'random';

/** Integers per ghost: px py pz (mm), qi (largest component), qa qb qc (smallest three), vx vy vz (mm/s). */
export const INTS = 10;
/** Position / velocity quantization: 1000 steps per metre (mm, mm/s). */
export const QUANTIZE = 1000;
/** Bits per smallest-three quaternion component, as `field.quat({ bits: 12 })`. */
export const QUAT_BITS = 12;
const QUAT_MAX = (1 << (QUAT_BITS - 1)) - 1;

/** A type alias (not an interface) so that it is assignable to `Record<string, unknown>`. */
export type GhostValues = {
  position: Vec3;
  rotation: Quat;
  velocity: Vec3;
};

interface Body {
  home: Vec3;
  velocity: Vec3;
  axis: Vec3;
  angle0: number;
  spin: number;
}

function randomUnit(rng: Rng): Vec3 {
  const z = rng.range(-1, 1);
  const a = rng.range(0, 2 * Math.PI);
  const r = Math.sqrt(1 - z * z);
  return { x: r * Math.cos(a), y: r * Math.sin(a), z };
}

function axisAngle(axis: Vec3, angle: number, out: Quat): void {
  const s = Math.sin(angle / 2);
  out.x = axis.x * s;
  out.y = axis.y * s;
  out.z = axis.z * s;
  out.w = Math.cos(angle / 2);
}

/**
 * Smallest-three codes of `q` exactly as react-netcode's `BitWriter.writeQuat` computes
 * them (src/core/bits.ts), stored signed: index of the largest component, then the
 * other three as round(c · 2047 / (1/√2)) in −2047..2047.
 */
function quatCodes(q: Quat, out: Int32Array, at: number): void {
  const len = Math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  const c = [q.x, q.y, q.z, q.w];
  let idx = 0;
  for (let i = 1; i < 4; i++) if (Math.abs(c[i]!) > Math.abs(c[idx]!)) idx = i;
  const scale = (c[idx]! < 0 ? -QUAT_MAX : QUAT_MAX) / Math.SQRT1_2 / len;
  out[at] = idx;
  for (let i = 0, j = 1; i < 4; i++) {
    if (i === idx) continue;
    const v = Math.round(c[i]! * scale);
    out[at + j++] = (v > QUAT_MAX ? QUAT_MAX : v < -QUAT_MAX ? -QUAT_MAX : v) + 0;
  }
}

/**
 * The quaternion a receiver rebuilds from the stored codes (same arithmetic as src/core/bits.ts
 * decodeQuat), into `out` (no allocation: the verification runs between timed encodes).
 */
export function quatFromCodesInto(ints: ArrayLike<number>, at: number, out: Quat): Quat {
  const step = Math.SQRT1_2 / QUAT_MAX;
  const a = ints[at + 1]! * step;
  const b = ints[at + 2]! * step;
  const c = ints[at + 3]! * step;
  const sum = a * a + b * b + c * c;
  const big = Math.sqrt(sum >= 1 ? 0 : 1 - sum);
  const idx = ints[at]!;
  out.x = idx === 0 ? big : a;
  out.y = idx === 1 ? big : idx === 0 ? a : b;
  out.z = idx === 2 ? big : idx === 3 ? c : b;
  out.w = idx === 3 ? big : c;
  return out;
}

const mm = (v: number): number => Math.round(v * QUANTIZE) + 0;

/** Ghost ids are 1..count; `values[i]` and `ints[i * INTS ..]` describe ghost i + 1. */
export class World {
  readonly values: GhostValues[] = [];
  /** The quantized state, INTS integers per ghost. */
  readonly ints: Int32Array;
  private readonly bodies: Body[] = [];
  private readonly rng: Rng;

  constructor(readonly motion: Motion, readonly count: number, seed: number) {
    this.rng = createRng(seed);
    this.ints = new Int32Array(count * INTS);
    for (let i = 0; i < count; i++) {
      const home = { x: this.rng.range(-100, 100), y: this.rng.range(0, 10), z: this.rng.range(-100, 100) };
      const dir = randomUnit(this.rng);
      const speed = motion === 'linear' ? this.rng.range(0.5, 5) : 0;
      const body: Body = {
        home,
        velocity: { x: dir.x * speed, y: dir.y * speed * 0.2, z: dir.z * speed },
        axis: randomUnit(this.rng),
        angle0: this.rng.range(0, 2 * Math.PI),
        spin: (this.rng.chance(0.5) ? -1 : 1) * this.rng.range(0.2, 1), // rad/s: a slow turn
      };
      this.bodies.push(body);
      this.values.push({ position: { ...home }, rotation: { x: 0, y: 0, z: 0, w: 1 }, velocity: { ...body.velocity } });
      axisAngle(body.axis, body.angle0, this.values[i]!.rotation);
      this.quantize(i);
    }
  }

  /** Move every ghost to its state at `tick` (60 Hz) and refresh the integers. */
  step(tick: number): void {
    const t = tick / 60;
    for (let i = 0; i < this.count; i++) {
      const body = this.bodies[i]!;
      const v = this.values[i]!;
      if (this.motion === 'linear') {
        v.position.x = body.home.x + body.velocity.x * t;
        v.position.y = body.home.y + body.velocity.y * t;
        v.position.z = body.home.z + body.velocity.z * t;
        axisAngle(body.axis, body.angle0 + body.spin * t, v.rotation);
      } else if (this.motion === 'random') {
        const r = this.rng;
        v.position.x = body.home.x + r.range(-3, 3);
        v.position.y = body.home.y + r.range(-3, 3);
        v.position.z = body.home.z + r.range(-3, 3);
        v.velocity.x = r.range(-5, 5);
        v.velocity.y = r.range(-5, 5);
        v.velocity.z = r.range(-5, 5);
        axisAngle(randomUnit(r), r.range(0, 2 * Math.PI), v.rotation);
      } else continue;
      this.quantize(i);
    }
  }

  private quantize(i: number): void {
    const v = this.values[i]!;
    const o = i * INTS;
    const ints = this.ints;
    ints[o] = mm(v.position.x);
    ints[o + 1] = mm(v.position.y);
    ints[o + 2] = mm(v.position.z);
    quatCodes(v.rotation, ints, o + 3);
    ints[o + 7] = mm(v.velocity.x);
    ints[o + 8] = mm(v.velocity.y);
    ints[o + 9] = mm(v.velocity.z);
  }
}
