// <PredictedRigidBody>: a predicted physics ghost rendered through <VisualProxy> with
// the body's field mapping from the physics adapter; a ghost without a body is refused.

import ReactThreeTestRenderer from '@react-three/test-renderer';
import { createRef } from 'react';
import type { Group } from 'three';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Vec3 } from '../../src/index.ts';
import { NetcodeFrame, PredictedRigidBody } from '../../src/r3f/index.ts';
import { Catch } from './catch.tsx';
import { spaceProtocol, spaceSystems } from './fixtures.ts';
import { createTestNetcode } from './test-netcode.tsx';

type Renderer = Awaited<ReturnType<typeof ReactThreeTestRenderer.create>>;
let renderer: Renderer | undefined;
afterEach(async () => {
  await renderer?.unmount();
  renderer = undefined;
  vi.restoreAllMocks();
});

// Only the ship has a body here; `fields` is all the component reads from the adapter.
const physics = { fields: (type: string) => (type === 'ship' ? { position: 'position', rotation: 'rotation' } : undefined) };

describe('<PredictedRigidBody>', () => {
  it('follows client.view(ghost) of a predicted body and never writes the simulated state', async () => {
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    h.stepper.server.events.on('join', (c) => h.stepper.server.spawn('ship', {}, { owner: c.networkId }));
    h.joinAndSettle({ name: 'p' });
    const ship = [...h.client.world.query('ship')][0]!;
    h.client.input.current.thrust = 1;
    const ref = createRef<Group>();
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <NetcodeFrame now={() => h.stepper.now} />
        <PredictedRigidBody ghost={ship} physics={physics} ref={ref}>
          <mesh />
        </PredictedRigidBody>
      </h.Provider>,
    );
    const zs: number[] = [];
    for (let i = 0; i < 20; i++) {
      await h.canvasFrame(renderer);
      const view = h.client.view(ship).position as Vec3;
      expect(Math.abs(ref.current!.position.z - view.z)).toBeLessThan(1e-6);
      zs.push(ref.current!.position.z);
    }
    expect(zs.at(-1)! - zs[0]!).toBeGreaterThan(1); // 6 m/s × 19 frames / 60 ≈ 1.9 m
  });

  it('leaves the rotation alone when the body type has no rotation field (the adapter\'s default names one anyway)', async () => {
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    h.stepper.server.spawn('rock', { position: { x: 2, y: 0, z: 0 } });
    h.joinAndSettle({ name: 'p' });
    const rock = [...h.client.world.query('rock')][0]!;
    // createPhysics().fields(type) always says rotation: 'rotation'; a rock's quat is called 'spin'.
    const rocks = { fields: (type: string) => (type === 'rock' ? { position: 'position', rotation: 'rotation' } : undefined) };
    const ref = createRef<Group>();
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <NetcodeFrame now={() => h.stepper.now} />
        <PredictedRigidBody ghost={rock} physics={rocks} ref={ref}>
          <mesh />
        </PredictedRigidBody>
      </h.Provider>,
    );
    await h.canvasFrame(renderer);
    expect(ref.current!.position.x).toBeCloseTo(2, 3);
    expect(ref.current!.quaternion.w).toBe(1); // untouched
  });

  it('refuses a ghost whose type has no body, saying what to do', async () => {
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    h.stepper.server.spawn('rock', {});
    h.joinAndSettle({ name: 'p' });
    const rock = [...h.client.world.query('rock')][0]!;
    const errors: unknown[] = [];
    vi.spyOn(console, 'error').mockImplementation(() => {});
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <Catch onError={(e) => errors.push(e)}>
          <PredictedRigidBody ghost={rock} physics={physics} />
        </Catch>
      </h.Provider>,
    );
    expect(String(errors[0])).toMatch(/react-netcode: <PredictedRigidBody> got a "rock" ghost, which has no body in createPhysics/);
  });
});
