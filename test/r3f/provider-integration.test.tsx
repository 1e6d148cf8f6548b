// The R3F layer with the real <NetcodeProvider> (src/react) instead of the test stand-in:
// <NetcodeFrame/> claims the provider's driver (its own loop stops asking for frames),
// steps the engine through connect → auto-join → prediction, <VisualProxy> follows
// client.view, and on unmount the provider's own loop asks for frames again.

import ReactThreeTestRenderer from '@react-three/test-renderer';
import { act, createRef, useSyncExternalStore, type RefObject } from 'react';
import type { Group } from 'three';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger, Vec3 } from '../../src/index.ts';
import { NetcodeFrame, VisualProxy } from '../../src/r3f/index.ts';
import { NetcodeProvider, useNetcodeContext, type FrameClock, type NetcodeContextValue } from '../../src/react/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { spaceProtocol, spaceSystems, type SpaceProtocol } from './fixtures.ts';
import { FRAME_MS } from './test-netcode.tsx';

type Renderer = Awaited<ReturnType<typeof ReactThreeTestRenderer.create>>;
let renderer: Renderer | undefined;
afterEach(async () => {
  await renderer?.unmount();
  renderer = undefined;
});

const quiet: Logger = () => {};

/** Renders one VisualProxy for the local ship once it exists (re-rendered on ghostsVersion only). */
function Ship({ groupRef }: { groupRef: RefObject<Group | null> }) {
  const { client, store } = useNetcodeContext<SpaceProtocol>('Ship');
  useSyncExternalStore(store.subscribe, () => store.getState().ghostsVersion);
  const ship = [...client.world.query('ship')][0];
  return ship ? <VisualProxy key={ship.handle} ghost={ship} ref={groupRef} /> : null;
}

function Grab({ into }: { into: { value?: NetcodeContextValue<SpaceProtocol> } }) {
  into.value = useNetcodeContext<SpaceProtocol>('Grab');
  return null;
}

describe('R3F bindings under the real <NetcodeProvider>', () => {
  it('claims the provider loop, runs the game from the Canvas, and gives the loop back on unmount', async () => {
    const s = createStepper({ protocol: spaceProtocol, systems: spaceSystems, log: quiet });
    s.server.events.on('join', (c) => s.server.spawn('ship', {}, { owner: c.networkId }));
    // The provider's clock: virtual time, and frame requests we record but never run.
    const pending = new Set<number>();
    let nextHandle = 1;
    const clock: FrameClock<number> = {
      now: () => s.now,
      requestFrame: () => {
        pending.add(nextHandle);
        return nextHandle++;
      },
      cancelFrame: (h) => void pending.delete(h),
    };
    const ctx: { value?: NetcodeContextValue<SpaceProtocol> } = {};
    const groupRef = createRef<Group>();
    const tree = (withFrame: boolean) => (
      <NetcodeProvider protocol={spaceProtocol} systems={spaceSystems} transport={() => s.network.createClient()} join={{ name: 'p' }} clock={clock as FrameClock} pauseWhenHidden={false} clientOptions={{ log: quiet }}>
        {withFrame && <NetcodeFrame now={() => s.now} />}
        <Grab into={ctx} />
        <Ship groupRef={groupRef} />
      </NetcodeProvider>
    );
    renderer = await ReactThreeTestRenderer.create(tree(true));
    await act(async () => {}); // the provider's init promise resolves: the engine connects
    const client = ctx.value!.client;
    expect(pending.size).toBe(0); // NetcodeFrame holds the driver: the provider's loop has no frame pending

    const frame = async () => {
      s.advance(FRAME_MS);
      await act(async () => {
        await renderer!.advanceFrames(1, FRAME_MS / 1000);
      });
    };
    for (let i = 0; i < 300 && !(client.status === 'in-game' && client.prediction?.lastTick !== undefined && groupRef.current); i++) await frame();
    expect(client.status).toBe('in-game'); // the provider auto-joined inside steps run by NetcodeFrame
    client.input.current.thrust = 1;
    for (let i = 0; i < 60; i++) await frame(); // 1 s: the clock settles, the ship flies
    const ship = [...client.world.query('ship')][0]!;
    const view = client.view(ship).position as Vec3;
    const group = groupRef.current!;
    expect(Math.abs(group.position.z - view.z)).toBeLessThan(1e-6);
    expect(group.position.z).toBeGreaterThan(1); // flying for most of that second at 6 m/s
    expect(pending.size).toBe(0); // still no provider frame: one stepper only

    await renderer.update(tree(false));
    expect(pending.size).toBe(1); // released: the provider's own loop asked for its next frame
  });
});
