// The rollback's tolerance check, asked on the predicted history's flat storage: the generated kernel
// (compileKernels' `beyond` and `settle`) and the reference kernel against the definition, a loop over
// Field.distance on values (referenceBeyondTolerance), for every field kind, predicted-only and nonOwner
// fields, local and remote ghosts, and values near each tolerance.
import { describe, expect, it } from 'vitest';
import { field, type Field } from '../../src/core/field.ts';
import { compileKernels, historyLayout, referenceKernels, type HistoryKernels } from '../../src/core/history-layout.ts';
import { referenceBeyondTolerance, squaredTolerance, type BeyondTolerance } from '../../src/core/prediction-check.ts';
import { Rng } from '../../src/core/rng.ts';
import { compileSchema, type Schema, type SchemaCodec, type Values } from '../../src/core/schema.ts';

const schema = {
  alive: field.bool(),
  hp: field.u8(),
  ammo: field.u16({ replicated: false }),
  speed: field.f32({ quantize: 100 }),
  aim: field.vec2({ tolerance: 0.01 }),
  position: field.vec3({ quantize: 1000 }),
  rotation: field.quat(),
  velocity: field.vec3({ replicated: false }),
  heading: field.f32({ sendTo: 'nonOwner', tolerance: 0.5 }),
  state: field.enum(['idle', 'run', 'jump']),
  'odd key-1': field.f32(),
};

/** The kernels' check as a BeyondTolerance: the prediction stored in a slot of its own, then `beyond` (or `settle`, which must agree). */
function onSlot(codec: SchemaCodec<Schema>, make: (layout: ReturnType<typeof historyLayout>) => HistoryKernels, via: 'beyond' | 'settle' = 'beyond'): BeyondTolerance {
  const layout = historyLayout(codec);
  const kernels = make(layout);
  const a = new Float64Array(layout.width * 2);
  const x = new Array<unknown>(layout.others * 2);
  const v = codec.defaults();
  return (predicted, confirmed, local) => {
    kernels.store(predicted, a, x, 1);
    return via === 'beyond' ? kernels.beyond(a, x, 1, confirmed, local) : kernels.settle(confirmed, a, x, 1, v, local);
  };
}

/** The checks that must answer as the definition: generated and reference kernels, through beyond and settle. */
function checks(codec: SchemaCodec<Schema>): BeyondTolerance[] {
  return [onSlot(codec, compileKernels), onSlot(codec, referenceKernels), onSlot(codec, compileKernels, 'settle'), onSlot(codec, referenceKernels, 'settle')];
}

/** The definition of `count`: the compared fields (replicated; nonOwner ones not when `local`) whose Field.distance exceeds the tolerance. */
function referenceCount(codec: SchemaCodec<Schema>, p: Values<Schema>, c: Values<Schema>, local: boolean): number {
  const fields = codec.schema as Record<string, Field<unknown>>;
  return codec.keys.filter((key) => {
    const o = fields[key]!.options;
    if (!o.replicated || (o.sendTo === 'nonOwner' && local)) return false;
    return !(fields[key]!.distance((p as Record<string, unknown>)[key], (c as Record<string, unknown>)[key]) <= o.tolerance);
  }).length;
}

/** The kernels' `count` (generated and reference) as counts of one pair of values. */
function counts(codec: SchemaCodec<Schema>, p: Values<Schema>, c: Values<Schema>, local: boolean): number[] {
  const layout = historyLayout(codec);
  return [compileKernels(layout), referenceKernels(layout)].map((k) => k.count(p, c, local));
}

/** A copy of `base` where each field, with probability 1/8, moves by up to twice its tolerance (or to NaN, rarely). */
function near(rng: Rng, base: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(base);
  const nudge = (v: number): number => (rng.next() < 0.02 ? Number.NaN : v + (rng.next() < 0.5 ? rng.range(-0.002, 0.002) : rng.range(-1, 1)));
  for (const key of Object.keys(out)) {
    if (rng.next() > 1 / 8) continue;
    const v = out[key];
    if (typeof v === 'number') out[key] = key === 'hp' ? (v + 1) % 256 : nudge(v);
    else if (typeof v === 'boolean') out[key] = !v;
    else if (typeof v === 'string') out[key] = v === 'run' ? 'jump' : 'run';
    else for (const c of Object.keys(v as object)) (v as Record<string, number>)[c] = nudge((v as Record<string, number>)[c]!);
  }
  return out;
}

describe('rollback tolerance check', () => {
  it('the generated and reference kernels answer exactly what the definition answers', () => {
    const codec = compileSchema(schema as Schema);
    const reference = referenceBeyondTolerance(codec);
    const kernels = checks(codec);
    const rng = new Rng(0xbe70);
    let beyond = 0;
    for (let i = 0; i < 2000; i++) {
      const base = {
        alive: true, hp: rng.int(256), ammo: rng.int(65536), speed: rng.range(-10, 10), aim: { x: rng.range(-1, 1), y: rng.range(-1, 1) },
        position: { x: rng.range(-100, 100), y: rng.range(-100, 100), z: rng.range(-100, 100) },
        rotation: { x: 0, y: Math.sin(i), z: 0, w: Math.cos(i) }, velocity: { x: 1, y: 2, z: 3 }, heading: rng.range(0, 6),
        state: 'idle', 'odd key-1': rng.range(0, 1),
      };
      const other = near(rng, base);
      for (const local of [false, true]) {
        const want = reference(base as Values<Schema>, other as Values<Schema>, local);
        for (const check of kernels) expect(check(base as Values<Schema>, other as Values<Schema>, local)).toBe(want);
        const n = referenceCount(codec, base as Values<Schema>, other as Values<Schema>, local);
        expect(n > 0).toBe(want);
        for (const got of counts(codec, base as Values<Schema>, other as Values<Schema>, local)) expect(got).toBe(n);
        if (want) beyond++;
      }
    }
    // Both answers occur often: the comparison above is not of two constant functions.
    expect(beyond).toBeGreaterThan(400);
    expect(beyond).toBeLessThan(3600);
  });

  it('ignores predicted-only fields always and nonOwner fields on the local ghost', () => {
    const codec = compileSchema(schema as Schema);
    const a = codec.defaults() as Record<string, unknown>;
    const b = codec.defaults() as Record<string, unknown>;
    (b['velocity'] as { x: number }).x = 5;
    b['ammo'] = 7;
    for (const check of [referenceBeyondTolerance(codec), ...checks(codec)]) {
      expect(check(a as Values<Schema>, b as Values<Schema>, false)).toBe(false);
      b['heading'] = 1;
      expect(check(a as Values<Schema>, b as Values<Schema>, true)).toBe(false);
      expect(check(a as Values<Schema>, b as Values<Schema>, false)).toBe(true);
      b['heading'] = 0;
    }
  });

  it('squaredTolerance: sqrt(s) <= tolerance exactly when s <= squaredTolerance(tolerance), at and around the boundary', () => {
    const ulps = (x: number, n: number): number => {
      const f = new Float64Array([x]);
      const w = new BigInt64Array(f.buffer);
      w[0] = w[0]! + BigInt(n);
      return f[0]!;
    };
    const rng = new Rng(0x5afe);
    const tolerances = [0, 5e-324, 1e-300, 1e-160, 1e-5, 0.001, 0.01, 0.1, 0.5, 1, 2, 3, 1e154, 1e155, 1e300, Number.MAX_VALUE, Infinity];
    for (let i = 0; i < 300; i++) tolerances.push(rng.range(0, 2), 10 ** rng.range(-12, 12));
    for (const tolerance of tolerances) {
      const t = squaredTolerance(tolerance);
      const sums = [0, t, tolerance * tolerance, Infinity, Number.NaN];
      for (const base of [t, tolerance * tolerance]) for (let n = -3; n <= 3; n++) if (base > 0 && base < Infinity) sums.push(ulps(base, n));
      for (const s of sums) expect(s <= t, `tolerance ${tolerance}, sum ${s}`).toBe(Math.sqrt(s) <= tolerance);
    }
    for (const tolerance of [-1, Number.NaN]) for (const s of [0, 1, Infinity, Number.NaN]) expect(s <= squaredTolerance(tolerance)).toBe(Math.sqrt(s) <= tolerance);
  });

  it('the generated vec2 / vec3 checks (sums of squares) agree with the definition at exact boundaries, NaN and Infinity', () => {
    const tolerances = [0, 0.001, 0.1, 0.3, 1 / 3, 1e-9];
    for (const tolerance of tolerances) {
      const codec = compileSchema({ a: field.vec2({ tolerance }), b: field.vec3({ tolerance }) } as Schema);
      const reference = referenceBeyondTolerance(codec);
      const kernels = checks(codec);
      const offsets = [0, tolerance, tolerance * (1 + 2 ** -52), tolerance * (1 - 2 ** -53), tolerance / Math.SQRT2, tolerance / Math.sqrt(3),
        -tolerance, 1e-320, Number.NaN, Infinity, -Infinity, 1e200];
      for (const dx of offsets) for (const dy of offsets) {
        const p = { a: { x: 0.1, y: 0.2 }, b: { x: 0.1, y: 0.2, z: 0.3 } };
        for (const c of [{ a: { x: 0.1 + dx, y: 0.2 + dy }, b: p.b }, { a: p.a, b: { x: 0.1 + dx, y: 0.2, z: 0.3 + dy } }]) {
          const want = reference(p as Values<Schema>, c as Values<Schema>, false);
          for (const check of kernels) expect(check(p as Values<Schema>, c as Values<Schema>, false), `tolerance ${tolerance}, ${dx}, ${dy}`).toBe(want);
        }
      }
    }
  });

  it('the generated quat and number checks agree with the definition around the tolerance, at NaN and Infinity', () => {
    const rng = new Rng(0x9a7);
    for (const tolerance of [0, 1e-4, 0.01, 0.1, 1]) {
      const codec = compileSchema({ r: field.quat({ tolerance }), n: field.f32({ tolerance }), i: field.i32({ tolerance }) } as Schema);
      const reference = referenceBeyondTolerance(codec);
      const kernels = checks(codec);
      for (let k = 0; k < 400; k++) {
        const angle = rng.range(0, Math.PI);
        // A rotation about y by `angle`, and one turned further by about the tolerance (either side of it), or by a special value.
        const turn = [tolerance, tolerance * (1 + 1e-12), tolerance * (1 - 1e-12), rng.range(0, 2 * tolerance), Number.NaN, Infinity][k % 6]!;
        const p = { r: { x: 0, y: Math.sin(angle / 2), z: 0, w: Math.cos(angle / 2) }, n: rng.range(-5, 5), i: rng.int(100) };
        const b = (angle + turn) / 2;
        const c = { r: { x: 0, y: Math.sin(b), z: 0, w: -Math.cos(b) }, n: p.n + turn, i: p.i + (k % 3) };
        const want = reference(p as Values<Schema>, c as Values<Schema>, false);
        for (const check of kernels) expect(check(p as Values<Schema>, c as Values<Schema>, false), `tolerance ${tolerance}, turn ${turn}`).toBe(want);
        const n = referenceCount(codec, p as Values<Schema>, c as Values<Schema>, false);
        for (const got of counts(codec, p as Values<Schema>, c as Values<Schema>, false)) expect(got).toBe(n);
      }
    }
  });
});
