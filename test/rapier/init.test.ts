// initRapier: RAPIER.init() once per module, without the loader's deprecation warning that
// @dimforge/rapier3d-compat 0.19.2 prints on every start; every other warning goes through.

import RAPIER from '@dimforge/rapier3d-compat';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { initRapier } from '../../src/rapier/index.ts';
import { RAPIER_INIT_WARNING } from '../../src/rapier/init.ts';

afterEach(() => vi.restoreAllMocks());

describe('initRapier', () => {
  it('initialises the real module with no console warning, once', async () => {
    const warn = vi.spyOn(console, 'warn');
    let calls = 0;
    const module = { init: () => (calls++, RAPIER.init()) }; // the module's own init (its namespace cannot be spied on)
    await Promise.all([initRapier(module), initRapier(module)]);
    await initRapier(module);
    expect(calls).toBe(1);
    expect(warn).not.toHaveBeenCalled();
    expect(new RAPIER.World({ x: 0, y: -9.81, z: 0 }).gravity.y).toBeCloseTo(-9.81, 5); // usable
  });

  it("drops only the loader's message while init runs, and restores console.warn", async () => {
    const seen: unknown[][] = [];
    const original = (...args: unknown[]): void => void seen.push(args);
    vi.spyOn(console, 'warn').mockImplementation(original);
    const installed = console.warn;
    const fake = {
      init: async () => {
        console.warn(RAPIER_INIT_WARNING);
        console.warn('another warning', 1);
      },
    };
    await initRapier(fake);
    expect(seen).toEqual([['another warning', 1]]);
    expect(console.warn).toBe(installed);
    console.warn(RAPIER_INIT_WARNING); // after init it is an ordinary message again
    expect(seen).toHaveLength(2);
  });
});
