// <NetcodeFrame/>: steps the engine exactly once per R3F frame, before user frame
// callbacks (its negative priority), with an injected clock or R3F's (kept monotonic);
// holds the provider's frame driver while mounted and releases it on unmount.

import { useFrame, useThree, type RootState } from '@react-three/fiber';
import ReactThreeTestRenderer from '@react-three/test-renderer';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NETCODE_STEP_PRIORITY, NETCODE_VIEW_PRIORITY, NetcodeFrame } from '../../src/r3f/index.ts';
import { spaceProtocol, spaceSystems } from './fixtures.ts';
import { Catch } from './catch.tsx';
import { createTestNetcode, FRAME_MS } from './test-netcode.tsx';

type Renderer = Awaited<ReturnType<typeof ReactThreeTestRenderer.create>>;
let renderer: Renderer | undefined;
afterEach(async () => {
  await renderer?.unmount();
  renderer = undefined;
  vi.restoreAllMocks();
});

/** A user frame callback at the default priority 0: records how many steps it has seen. */
function Probe({ steps, seen, onState }: { steps: readonly number[]; seen: number[]; onState?: (state: RootState) => void }) {
  const state = useThree();
  onState?.(state);
  useFrame(() => seen.push(steps.length));
  return null;
}

describe('<NetcodeFrame/>', () => {
  it('steps once per frame with the injected time, before user callbacks mounted ahead of it', async () => {
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    const seen: number[] = [];
    let t = 1000;
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        {/* Mounted first: at equal priority it would run first and see no step of its frame. */}
        <Probe steps={h.steps} seen={seen} />
        <NetcodeFrame now={() => t} />
      </h.Provider>,
    );
    expect(h.steps).toEqual([]); // mounting alone steps nothing
    for (let i = 0; i < 5; i++) {
      t = 1000 + 16 * i;
      await renderer.advanceFrames(1, 0.016);
    }
    expect(h.steps).toEqual([1000, 1016, 1032, 1048, 1064]); // one step per frame, at now()
    expect(seen).toEqual([1, 2, 3, 4, 5]); // each user callback ran after its frame's step
  });

  it('reads the R3F frame clock on the performance.now() base by default, and never steps back', async () => {
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    let root: RootState | undefined;
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <NetcodeFrame />
        <Probe steps={h.steps} seen={[]} onState={(s) => (root = s)} />
      </h.Provider>,
    );
    const clock = root!.clock;
    // [startTime ms, elapsedTime s]: the Canvas clock started at performance.now() = 5000 ms.
    const readings: [number, number][] = [
      [5000, 2], // 5000 + 2 × 1000 = 7000 ms
      [5000, 2.5], // 7500 ms
      [7600, 0], // R3F restarted its clock (frameloop change) at 7600 ms: 7600 + 0 = 7600, continuous
      [7600, 0.05], // 7650 ms
      [7000, 0.5], // a reading behind the last one (7500 < 7650): held at 7650 (dt = 0) …
      [7000, 0.6], // … and continuing from there at the clock's rate: 7650 + 100 = 7750 ms
    ];
    for (const [start, elapsed] of readings) {
      clock.startTime = start;
      clock.elapsedTime = elapsed;
      await renderer.advanceFrames(1, FRAME_MS / 1000);
    }
    expect(h.steps.map((x) => Math.round(x * 1e6) / 1e6)).toEqual([7000, 7500, 7600, 7650, 7650, 7750]);
  });

  it('under frameloop="demand" asks R3F for its first frame and for each next one (the engine steps every frame)', async () => {
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    let state: RootState | undefined;
    // R3F's own loop (requestAnimationFrame) never runs here: frames are only counted as asked for.
    vi.stubGlobal('requestAnimationFrame', () => 0);
    let t = 1000;
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <Probe steps={h.steps} seen={[]} onState={(s) => (state = s)} />
        <NetcodeFrame now={() => t} />
      </h.Provider>,
      { frameloop: 'demand' },
    );
    expect(state!.frameloop).toBe('demand');
    expect(state!.internal.frames).toBeGreaterThan(0); // the first frame, asked for at mount
    for (let i = 1; i <= 3; i++) {
      state!.internal.frames = 0;
      t += 16;
      await renderer.advanceFrames(1, 0.016);
      expect(state!.internal.frames, `after frame ${i}`).toBeGreaterThan(0); // the next one
    }
    expect(h.steps).toEqual([1016, 1032, 1048]);
    vi.unstubAllGlobals();
  });

  it('under frameloop="never" asks for no frame: the app advances the Canvas', async () => {
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    let state: RootState | undefined;
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <Probe steps={h.steps} seen={[]} onState={(s) => (state = s)} />
        <NetcodeFrame now={() => 1000} />
      </h.Provider>,
    );
    await renderer.advanceFrames(2, 0.016);
    expect(state!.frameloop).toBe('never');
    expect(state!.internal.frames).toBe(0);
    expect(h.steps).toEqual([1000, 1000]);
  });

  it('claims the frame driver while mounted and releases it on unmount', async () => {
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    let t = 0;
    const tree = (withFrame: boolean) => <h.Provider>{withFrame && <NetcodeFrame now={() => (t += 10)} />}</h.Provider>;
    expect(h.claims()).toBe(0);
    renderer = await ReactThreeTestRenderer.create(tree(true));
    expect(h.claims()).toBe(1);
    expect(() => h.ownFrame()).toThrow(/own loop/); // the test provider's own loop is paused meanwhile
    await renderer.advanceFrames(1, 0.01);
    expect(h.steps).toEqual([10]);

    await renderer.update(tree(false));
    expect(h.claims()).toBe(0); // released
    await renderer.advanceFrames(1, 0.01);
    expect(h.steps).toEqual([10]); // unsubscribed: no step after unmount
    h.ownFrame(); // the provider's own loop may run again
    expect(h.steps).toHaveLength(2);

    await renderer.update(tree(true));
    expect(h.claims()).toBe(1); // claimed again on remount
    await renderer.unmount();
    renderer = undefined;
    expect(h.claims()).toBe(0);
  });

  it('throws the documented errors outside a provider and for a priority that would run after the proxies', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const errors: unknown[] = [];
    renderer = await ReactThreeTestRenderer.create(
      <Catch onError={(e) => errors.push(e)}>
        <NetcodeFrame />
      </Catch>,
    );
    expect(String(errors[0])).toMatch(/^NetcodeError: react-netcode: <NetcodeFrame> must be used inside <NetcodeProvider>/);
    await renderer.unmount();

    const h = createTestNetcode(spaceProtocol, spaceSystems);
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <Catch onError={(e) => errors.push(e)}>
          <NetcodeFrame priority={NETCODE_VIEW_PRIORITY} />
        </Catch>
      </h.Provider>,
    );
    expect(String(errors[1])).toContain(`react-netcode: <NetcodeFrame priority={${NETCODE_VIEW_PRIORITY}}> must be a finite number below ${NETCODE_VIEW_PRIORITY}`);
    expect(h.claims()).toBe(0);
    expect(NETCODE_STEP_PRIORITY).toBeLessThan(NETCODE_VIEW_PRIORITY);
    expect(NETCODE_VIEW_PRIORITY).toBeLessThan(0); // both before user callbacks at the default 0
  });
});
