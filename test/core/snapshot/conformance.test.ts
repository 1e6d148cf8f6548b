// The conformance suite of the snapshot encoder's fast path: the generated kernel
// (compiled.ts) against the reference kernel (layout.ts quantizeRow, body.ts writeBody),
// over the same scenarios — loss, reordering, churn, budgets, owner-only fields, inputs,
// skipped ticks and random protocols — every message compared byte for byte, and over
// the inputs where their arithmetic differs most (rounding edges, quaternion ties,
// unnormalised and subnormal quaternions). conformance-csp.test.ts runs it without code generation.

import { describe, expect, it } from 'vitest';
import { BitWriter } from '../../../src/core/bits.ts';
import { field } from '../../../src/core/field.ts';
import { defineProtocol, ghost } from '../../../src/core/protocol.ts';
import { Rng } from '../../../src/core/rng.ts';
import { BitSink } from '../../../src/core/snapshot/codes.ts';
import { kernelsFor } from '../../../src/core/snapshot/kernels.ts';
import { compileLayouts } from '../../../src/core/snapshot/layout.ts';
import { EVERY, protocol, randomEvery } from './harness.ts';
import { randomScenario, runScenario, same, type Scenario } from './scenarios.ts';

const base: Scenario = {
  seed: 1, randomProtocol: false, ticks: 30, clients: 3, ghosts: 50, budgetBytes: 60_000, refreshTicks: 20,
  still: 0.2, churn: 0, loss: 0, maxDelay: 0, skip: 0, inputs: false, predicted: false,
};

describe('snapshot encoder fast path conformance (generated kernel vs reference)', () => {
  it('uses generated code here', () => {
    expect(kernelsFor(compileLayouts(protocol), 'compiled').every((k) => k.generated)).toBe(true);
    expect(kernelsFor(compileLayouts(protocol), 'reference').some((k) => k.generated)).toBe(false);
  });

  it('gives the same bytes under loss, reordering, churn, owner-only fields, inputs, prediction and skipped ticks', () => {
    const s = { ...base, seed: 2, loss: 0.15, maxDelay: 2, churn: 0.3, skip: 0.1, inputs: true, predicted: true, refreshTicks: 5 };
    expect(runScenario(s, ['reference', 'compiled'])).toBeGreaterThan(50);
  });

  it('gives the same bytes when the budget binds, at every budget around the message size', () => {
    // 30 ghosts take ~300 bytes: each budget byte near it moves the line between all and some.
    for (let budget = 120; budget <= 420; budget += 15) runScenario({ ...base, seed: budget, ghosts: 30, clients: 1, ticks: 8, budgetBytes: budget }, ['reference', 'compiled']);
  });

  it('gives the same bytes over random scenarios and random protocols (property test)', () => {
    const rng = new Rng(0xc0f0);
    let compared = 0;
    for (let k = 0; k < 25; k++) compared += runScenario(randomScenario(rng, 1000 + k), ['reference', 'compiled']);
    expect(compared).toBeGreaterThan(800);
  });

  it('quantizes like the reference at rounding edges and on every kind of quaternion', () => {
    const p = defineProtocol({ ghosts: { g: ghost({ one: field.vec3({ quantize: 1 }), mm: field.f32({ quantize: 1000 }), rot: field.quat({ bits: 12 }), fine: field.quat({ bits: 16 }) }) } });
    const layout = compileLayouts(p)[0]!;
    const [fast] = kernelsFor([layout], 'compiled');
    const [ref] = kernelsFor([layout], 'reference');
    const h = Math.SQRT1_2;
    // Ties between the largest components, signs, far from unit length, squares that underflow or overflow.
    const quats = [
      [0.5, 0.5, 0.5, 0.5], [-0.5, 0.5, -0.5, 0.5], [h, h, 0, 0], [0, -h, h, 0], [0, 0, -h, -h], [h, 0, 0, -h], [1, 0, 0, 0], [0, 0, 0, -1], [-0, 0, -0, 1],
      [3, 3, 3, 3], [1e-150, -1e-150, 1e-150, 2e-150], [1e150, 2e150, -3e150, 1e150], [1, 1e-20, -1e-20, 0], [0, 0, 0, 0], [NaN, 0, 0, 1], [1e-170, 0, 0, 0],
    ];
    const edge = [0.49999999999999994, -0.49999999999999994, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0, -0, 1e-300, 2 ** 31 - 1.5, 2 ** 31 - 0.5, -(2 ** 31) + 0.5, 2 ** 52 + 1, NaN, Infinity];
    const rng = new Rng(9);
    const a = new Int32Array(layout.slotCount);
    const b = new Int32Array(layout.slotCount);
    for (let i = 0; i < 4000; i++) {
      const q = i < quats.length ? quats[i]! : [0, 1, 2, 3].map(() => rng.range(-1, 1) * [1, 1, 1e3, 1e-145, 1e-158, 1e145][i % 6]!);
      if (i >= quats.length && rng.chance(0.5)) q[rng.int(4)] = (rng.chance(0.5) ? 1 : -1) * Math.abs(q[rng.int(4)]!);
      const pick = (): number => (i < edge.length ? edge[i]! : rng.chance(0.1) ? edge[rng.int(edge.length)]! : rng.range(-1e4, 1e4));
      const [x, y, z, w] = q as [number, number, number, number];
      const values = { one: { x: pick(), y: rng.range(-10, 10), z: pick() }, mm: pick() / 1000, rot: { x, y, z, w }, fine: { x: -y, y: x, z: w, w: -z } };
      const ok = ref!.quantize(values, a, 0, [], 0);
      const okFast = fast!.quantize(values, b, 0, [], 0);
      if (okFast !== ok || (ok && !same(a, b))) expect([okFast, [...b]], JSON.stringify(values)).toEqual([ok, [...a]]);
    }
  });

  it('writes the same bodies as the reference, with and without a prediction baseline, for both views', () => {
    const layout = compileLayouts(protocol)[EVERY]!;
    const [fast] = kernelsFor([layout], 'compiled');
    const [ref] = kernelsFor([layout], 'reference');
    const n = layout.slotCount;
    const rng = new Rng(4);
    const row = new Int32Array(3 * n);
    const strs = new Array<string>(3 * layout.stringCount).fill('');
    const bits = (k: typeof ref, view: 0 | 1, b1o: number, dt0: number, dt1: number): [number[], boolean] => {
      const w = new BitWriter(8);
      const sink = new BitSink().begin(w);
      const used = k!.body[view](sink, row, 0, row, n, b1o, dt0, dt1, strs, 0, strs, layout.stringCount);
      sink.flush();
      return [[...w.view()], used];
    };
    for (let i = 0; i < 700; i++) {
      for (let r = 0; r < 3; r++) ref!.quantize(randomEvery(rng), row, r * n, strs, r * layout.stringCount);
      if (i >= 600) {
        // At the small-residual threshold: b0 is the row itself, b1 puts the prediction k steps off (k = ±31, ±32, ±33), so
        // the prediction's residual is just below or above 64 (zigzag) while the plain body is the shortest.
        row.copyWithin(n, 0, n);
        for (let j = 0; j < n; j++) row[2 * n + j] = (row[j]! + [-33, -32, -31, 31, 32, 33][i % 6]!) | 0;
        for (const view of [0, 1] as const) {
          const [got, want] = [bits(fast, view, 2 * n, 3, 3), bits(ref, view, 2 * n, 3, 3)];
          if (!same(got, want)) expect(got).toEqual(want);
        }
        continue;
      }
      // Sometimes small residuals (the table-coded path of moving ghosts), sometimes unchanged.
      if (rng.chance(0.5)) for (let j = 0; j < n; j++) row[n + j] = rng.chance(0.3) ? row[j]! : (row[j]! + rng.int(7) - 3) | 0;
      if (rng.chance(0.3)) for (let j = 0; j < layout.stringCount; j++) strs[layout.stringCount + j] = strs[j]!;
      const b1o = rng.chance(0.5) ? 2 * n : -1;
      const [dt0, dt1] = rng.chance(0.5) ? [3 * (1 + rng.int(4)), 3] : [1 + rng.int(9), 1 + rng.int(9)];
      for (const view of [0, 1] as const) {
        const [got, want] = [bits(fast, view, b1o, dt0, dt1), bits(ref, view, b1o, dt0, dt1)];
        if (!same(got, want)) expect(got).toEqual(want);
      }
    }
  });
});
