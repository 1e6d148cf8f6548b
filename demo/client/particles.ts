// Pooled particles for explosions and goals: one preallocated pool of sparks (position,
// velocity, age, life, colour in typed arrays) drawn by one InstancedMesh (Particles.tsx).
// A burst takes the next slots of a ring (the oldest sparks go when it is full); `step`
// moves the live ones under gravity and drag and writes each slot's instance matrix —
// shrinking with age, scale 0 when dead — into the mesh's buffer. Nothing is allocated
// after construction.
import type { Vec3 } from 'react-netcode';

export interface BurstSpec {
  count: number;
  /** Initial speed range (m/s), in a random direction of the upper hemisphere, lifted by `lift`. */
  speed: readonly [number, number];
  /** Added to every spark's upward speed (m/s). */
  lift: number;
  /** Life range (s). */
  life: readonly [number, number];
  /** Size at birth (m). */
  size: number;
  /** Colours as 0xRRGGBB, one picked per spark. */
  colours: readonly number[];
  /** Gravity on the sparks (m/s², downwards) and drag (1/s). */
  gravity: number;
  drag: number;
}

/** An explosion: hot sparks and smoke-grey bits, quick and heavy. */
export const BLAST_BURST: Readonly<BurstSpec> = Object.freeze<BurstSpec>({
  count: 64, speed: [3, 11], lift: 2, life: [0.4, 1], size: 0.5, colours: [0xffab40, 0xffd54f, 0xff7043, 0x6d6d6d], gravity: 14, drag: 1.5,
});

/** A goal: confetti in the scoring team's colours and white, slow to fall. */
export function goalBurst(teamColour: number): Readonly<BurstSpec> {
  return { count: 120, speed: [2, 8], lift: 5, life: [1.2, 2.2], size: 0.3, colours: [teamColour, teamColour, 0xffffff, 0xffee58], gravity: 5, drag: 1.2 };
}

/** A seeded generator (mulberry32), so the pool is deterministic for tests. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class ParticlePool {
  readonly capacity: number;
  /** Per slot: x y z. */
  readonly position: Float32Array;
  readonly velocity: Float32Array;
  /** Per slot: r g b in 0..1 (the mesh's instanceColor buffer can share it). */
  readonly colour: Float32Array;
  /** Per slot: seconds lived and seconds to live (age ≥ life: dead). */
  readonly age: Float32Array;
  readonly life: Float32Array;
  readonly size: Float32Array;
  readonly gravity: Float32Array;
  readonly drag: Float32Array;
  private next = 0;
  private readonly rand: () => number;

  constructor(capacity: number, seed = 1) {
    this.capacity = capacity;
    this.position = new Float32Array(capacity * 3);
    this.velocity = new Float32Array(capacity * 3);
    this.colour = new Float32Array(capacity * 3);
    this.age = new Float32Array(capacity).fill(1);
    this.life = new Float32Array(capacity).fill(0);
    this.size = new Float32Array(capacity);
    this.gravity = new Float32Array(capacity);
    this.drag = new Float32Array(capacity);
    this.rand = random(seed);
  }

  /** Sparks alive now. */
  get alive(): number {
    let n = 0;
    for (let i = 0; i < this.capacity; i++) if (this.age[i]! < this.life[i]!) n++;
    return n;
  }

  burst(at: Readonly<Vec3>, spec: Readonly<BurstSpec>): void {
    const r = this.rand;
    for (let k = 0; k < spec.count; k++) {
      const i = this.next;
      this.next = (this.next + 1) % this.capacity;
      // A direction in the upper hemisphere (cos θ uniform in 0..1).
      const phi = 2 * Math.PI * r();
      const cy = r();
      const sy = Math.sqrt(1 - cy * cy);
      const speed = spec.speed[0] + (spec.speed[1] - spec.speed[0]) * r();
      this.position[3 * i] = at.x;
      this.position[3 * i + 1] = at.y;
      this.position[3 * i + 2] = at.z;
      this.velocity[3 * i] = Math.cos(phi) * sy * speed;
      this.velocity[3 * i + 1] = cy * speed + spec.lift;
      this.velocity[3 * i + 2] = Math.sin(phi) * sy * speed;
      const c = spec.colours[Math.floor(r() * spec.colours.length)] ?? 0xffffff;
      this.colour[3 * i] = ((c >> 16) & 0xff) / 255;
      this.colour[3 * i + 1] = ((c >> 8) & 0xff) / 255;
      this.colour[3 * i + 2] = (c & 0xff) / 255;
      this.age[i] = 0;
      this.life[i] = spec.life[0] + (spec.life[1] - spec.life[0]) * r();
      this.size[i] = spec.size;
      this.gravity[i] = spec.gravity;
      this.drag[i] = spec.drag;
    }
  }

  /**
   * Advance `dt` seconds and write each slot's 4×4 column-major matrix (a uniform scale and a
   * translation) into `matrices` (16 × capacity floats). Sparks bounce off the ground (y = 0)
   * losing most of their speed. Returns whether any spark is alive.
   */
  step(dt: number, matrices: Float32Array): boolean {
    let any = false;
    for (let i = 0; i < this.capacity; i++) {
      const m = 16 * i;
      const life = this.life[i]!;
      let age = this.age[i]!;
      if (age >= life) {
        if (matrices[m] !== 0) writeMatrix(matrices, m, 0, 0, 0, 0);
        continue;
      }
      age += dt;
      this.age[i] = age;
      if (age >= life) {
        writeMatrix(matrices, m, 0, 0, 0, 0);
        continue;
      }
      any = true;
      const damp = Math.exp(-this.drag[i]! * dt);
      const v = 3 * i;
      this.velocity[v] = this.velocity[v]! * damp;
      this.velocity[v + 1] = this.velocity[v + 1]! * damp - this.gravity[i]! * dt;
      this.velocity[v + 2] = this.velocity[v + 2]! * damp;
      this.position[v] = this.position[v]! + this.velocity[v]! * dt;
      this.position[v + 1] = this.position[v + 1]! + this.velocity[v + 1]! * dt;
      this.position[v + 2] = this.position[v + 2]! + this.velocity[v + 2]! * dt;
      if (this.position[v + 1]! < 0) {
        this.position[v + 1] = 0;
        this.velocity[v + 1] = -0.3 * this.velocity[v + 1]!;
        this.velocity[v] = 0.5 * this.velocity[v]!;
        this.velocity[v + 2] = 0.5 * this.velocity[v + 2]!;
      }
      const s = this.size[i]! * (1 - age / life);
      writeMatrix(matrices, m, s, this.position[v]!, this.position[v + 1]!, this.position[v + 2]!);
    }
    return any;
  }
}

function writeMatrix(out: Float32Array, m: number, s: number, x: number, y: number, z: number): void {
  out[m] = s;
  out[m + 5] = s;
  out[m + 10] = s;
  out[m + 12] = x;
  out[m + 13] = y;
  out[m + 14] = z;
  out[m + 15] = 1;
}
