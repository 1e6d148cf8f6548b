// Shared fixtures of the snapshot tests: a protocol with every field kind, seeded
// random values, the expected client view of a ghost (quantized, view-filtered),
// and a seeded lossy link (drop / duplicate / reorder) for snapshot byte arrays.

import { field, type Quat } from '../../../src/core/field.ts';
import { defineProtocol, ghost, type Protocol } from '../../../src/core/protocol.ts';
import type { Rng } from '../../../src/core/rng.ts';
import type { SnapshotGhost } from '../../../src/core/snapshot/index.ts';

export const protocol = defineProtocol({
  ghosts: {
    box: ghost({
      position: field.vec3({ quantize: 1000 }),
      rotation: field.quat({ bits: 12 }),
      velocity: field.vec3({ quantize: 1000 }),
    }),
    every: ghost({
      flag: field.bool(),
      small: field.u8(),
      mid: field.u16(),
      big: field.u32(),
      signed: field.i32(),
      raw: field.f32(),
      fixed: field.f32({ quantize: 100 }),
      flat: field.vec2(),
      flatq: field.vec2({ quantize: 10 }),
      pos: field.vec3({ quantize: 1000 }),
      rawPos: field.vec3(),
      turn: field.quat(),
      coarse: field.quat({ bits: 6 }),
      fine: field.quat({ bits: 16 }),
      name: field.string(12),
      mode: field.enum(['idle', 'run', 'jump']),
      only: field.enum(['one']),
      shots: field.event(),
      ammo: field.u8({ sendTo: 'owner' }),
      label: field.string(12, { sendTo: 'nonOwner' }),
      secret: field.vec3({ quantize: 10, sendTo: 'owner' }),
      local: field.f32({ replicated: false }),
    }),
  },
  input: { move: field.vec2({ quantize: 100 }), jump: field.bool(), fire: field.event() },
});

export const BOX = 0;
export const EVERY = 1;
type Values = Record<string, unknown>;

export function randomQuat(rng: Rng): Quat {
  const q = { x: rng.range(-1, 1), y: rng.range(-1, 1), z: rng.range(-1, 1), w: rng.range(-1, 1) };
  return rng.chance(0.1) ? { x: 0, y: 0, z: 0, w: 1 } : q;
}

export function randomBox(rng: Rng, spread = 50): Values {
  return {
    position: { x: rng.range(-spread, spread), y: rng.range(0, 10), z: rng.range(-spread, spread) },
    rotation: randomQuat(rng),
    velocity: { x: rng.range(-5, 5), y: 0, z: rng.range(-5, 5) },
  };
}

const NAMES = ['', 'a', 'héllo', 'ünï', '日本語', 'x'.repeat(12), '🙂 ok'];

/** Values for the `every` type, each field drawn from its full range (including -0 and big magnitudes). */
export function randomEvery(rng: Rng): Values {
  const pick = <T>(xs: readonly T[]): T => xs[rng.int(xs.length)]!;
  return {
    flag: rng.chance(0.5),
    small: rng.int(256),
    mid: rng.int(65536),
    big: rng.chance(0.2) ? 0xffff_ffff : rng.nextUint32(),
    signed: rng.chance(0.2) ? -0x8000_0000 : (rng.nextUint32() | 0),
    raw: pick([0, -0, 1e-30, -3.4e38, rng.range(-1e6, 1e6)]),
    fixed: rng.range(-1e5, 1e5),
    flat: { x: rng.range(-1, 1), y: pick([-0, 1e20, rng.range(-10, 10)]) },
    flatq: { x: rng.range(-1e3, 1e3), y: -0 },
    pos: { x: rng.range(-2e6, 2e6), y: rng.range(-1, 1), z: 0 },
    rawPos: { x: rng.range(-1e3, 1e3), y: rng.range(-1e-3, 1e-3), z: pick([0, -0, 7.25]) },
    turn: randomQuat(rng),
    coarse: randomQuat(rng),
    fine: randomQuat(rng),
    name: pick(NAMES),
    mode: pick(['idle', 'run', 'jump']),
    only: 'one',
    shots: rng.nextUint32(),
    ammo: rng.int(256),
    label: pick(['', 'red', 'blue team']),
    secret: { x: rng.range(-100, 100), y: 1, z: -1 },
    local: rng.range(-1, 1),
  };
}

/** What a client with `networkId` must hold for a ghost: quantized fields it receives, defaults for the rest. */
export function expected(p: Protocol, typeId: number, owner: number, networkId: number, values: Values): Values {
  const entry = p.ghostList[typeId]!;
  const q = entry.codec.quantize(values as never) as Values;
  const out = entry.codec.defaults() as Values;
  for (const key of entry.codec.keys) {
    const f = entry.codec.schema[key]!;
    const to = f.options.sendTo;
    if (!f.options.replicated || (to === 'owner' && owner !== networkId) || (to === 'nonOwner' && owner === networkId)) continue;
    out[key] = q[key];
  }
  return out;
}

/** A deep copy of ghost values (the server mutates its objects between ticks). */
export function clone(values: Values): Values {
  return structuredClone(values);
}

export function makeGhost(id: number, typeId: number, owner: number, values: Values, importance?: number): SnapshotGhost & { values: Values } {
  return importance === undefined ? { id, typeId, owner, values } : { id, typeId, owner, values, importance };
}

/** A seeded unreliable link: each sent message is dropped, delivered once or twice, after a random delay (so reordered). */
export class LossyLink {
  private queue: { at: number; data: Uint8Array }[] = [];
  sent = 0;
  dropped = 0;
  duplicated = 0;

  constructor(
    private readonly rng: Rng,
    private readonly loss: number,
    private readonly dup: number,
    private readonly maxDelay: number,
  ) {}

  send(now: number, data: Uint8Array): void {
    this.sent++;
    if (this.rng.chance(this.loss)) {
      this.dropped++;
      return;
    }
    const copies = this.rng.chance(this.dup) ? 2 : 1;
    if (copies === 2) this.duplicated++;
    for (let i = 0; i < copies; i++) this.queue.push({ at: now + this.rng.int(this.maxDelay + 1), data: data.slice() });
  }

  /** Messages due at `now`, in a seeded shuffled order. */
  receive(now: number): Uint8Array[] {
    const due = this.queue.filter((m) => m.at <= now);
    this.queue = this.queue.filter((m) => m.at > now);
    for (let i = due.length - 1; i > 0; i--) {
      const j = this.rng.int(i + 1);
      [due[i], due[j]] = [due[j]!, due[i]!];
    }
    return due.map((m) => m.data);
  }
}
