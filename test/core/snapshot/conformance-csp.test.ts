// The no-code-generation fallback (a page whose Content-Security-Policy forbids
// 'unsafe-eval'): with `new Function` throwing, encoders fall back to the reference
// kernel, and the conformance scenarios still give the reference's bytes and decode
// exactly. Its own test file: generated functions are compiled once per process, and
// none may exist before `Function` is stubbed.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { kernelsFor } from '../../../src/core/snapshot/kernels.ts';
import { compileLayouts } from '../../../src/core/snapshot/layout.ts';
import { protocol } from './harness.ts';
import { randomScenario, runScenario } from './scenarios.ts';

describe('snapshot encoder without code generation (strict CSP)', () => {
  beforeAll(() => {
    vi.stubGlobal('Function', function csp(): never {
      throw new EvalError('Refused to evaluate a string as JavaScript because \'unsafe-eval\' is not an allowed source of script.');
    });
  });
  afterAll(() => vi.unstubAllGlobals());

  it('falls back to the reference kernel', () => {
    expect(() => new Function('return 1')).toThrow(EvalError);
    expect(kernelsFor(compileLayouts(protocol), 'compiled').some((k) => k.generated)).toBe(false);
  });

  it('encodes the conformance scenarios end to end: the reference bytes, decoded exactly', () => {
    const rng = new Rng(0xc5b);
    let compared = 0;
    for (let k = 0; k < 8; k++) compared += runScenario({ ...randomScenario(rng, 2000 + k), loss: 0.1, maxDelay: 1 }, ['reference', 'compiled']);
    expect(compared).toBeGreaterThan(100);
  });
});
