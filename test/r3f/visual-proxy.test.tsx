// <VisualProxy> over a loopback server: the group's transform follows client.view(ghost)
// every frame (predicted ship: frame interpolation + VisualCorrection; interpolated
// rock: the timeline), differs from the simulated body while a correction is active,
// and rendering never writes ghost.components.

import ReactThreeTestRenderer from '@react-three/test-renderer';
import { createRef } from 'react';
import { Group, Mesh, type Quaternion, type Vector3 } from 'three';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Quat, Vec3 } from '../../src/index.ts';
import { NetcodeFrame, VisualProxy } from '../../src/r3f/index.ts';
import { ROCK_SPEED, SHIP_SPEED, spaceProtocol, spaceSystems } from './fixtures.ts';
import { Catch } from './catch.tsx';
import { createTestNetcode, FRAME_MS } from './test-netcode.tsx';

type Renderer = Awaited<ReturnType<typeof ReactThreeTestRenderer.create>>;
let renderer: Renderer | undefined;
afterEach(async () => {
  await renderer?.unmount();
  renderer = undefined;
  vi.restoreAllMocks();
});

function setup() {
  const h = createTestNetcode(spaceProtocol, spaceSystems);
  h.stepper.server.events.on('join', (c) => h.stepper.server.spawn('ship', {}, { owner: c.networkId }));
  const serverRock = h.stepper.server.spawn('rock', { velocity: { x: ROCK_SPEED, y: 0, z: 0 } });
  h.joinAndSettle({ name: 'p' });
  const ship = [...h.client.world.query('ship')][0]!;
  const rock = [...h.client.world.query('rock')][0]!;
  expect(ship.mode).toBe('predicted');
  expect(rock.mode).toBe('interpolated');
  h.client.input.current.thrust = 1; // the ship flies along +z at 6 m/s
  return { h, ship, rock, serverRock };
}

function expectVec(actual: Vector3, expected: Vec3, eps = 1e-6): void {
  expect(Math.abs(actual.x - expected.x)).toBeLessThan(eps);
  expect(Math.abs(actual.y - expected.y)).toBeLessThan(eps);
  expect(Math.abs(actual.z - expected.z)).toBeLessThan(eps);
}

function expectQuat(actual: Quaternion, expected: Quat, eps = 1e-6): void {
  expect(Math.abs(actual.x - expected.x)).toBeLessThan(eps);
  expect(Math.abs(actual.y - expected.y)).toBeLessThan(eps);
  expect(Math.abs(actual.z - expected.z)).toBeLessThan(eps);
  expect(Math.abs(actual.w - expected.w)).toBeLessThan(eps);
}

describe('<VisualProxy>', () => {
  it('writes client.view(ghost) to the group every frame, for a predicted and an interpolated ghost', async () => {
    const { h, ship, rock } = setup();
    const shipRef = createRef<Group>();
    const rockRef = createRef<Group>();
    // For the rock, client.view(rock) IS rock.components (the timeline writes it in the step):
    // the proxy must only read it. Remember both ghosts' components after every step.
    let afterStep: unknown;
    h.value.frame.onStep(() => (afterStep = structuredClone({ ship: ship.components, rock: rock.components })));
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <NetcodeFrame now={() => h.stepper.now} />
        <VisualProxy ghost={ship} ref={shipRef} name="ship">
          <mesh name="hull" />
        </VisualProxy>
        <VisualProxy ghost={rock} rotationField="spin" ref={rockRef} />
      </h.Provider>,
    );
    const shipGroup = shipRef.current!;
    const rockGroup = rockRef.current!;
    expect(shipGroup).toBeInstanceOf(Group);
    expect(shipGroup.name).toBe('ship'); // other group props pass through
    expect(shipGroup.children[0]).toBeInstanceOf(Mesh); // children render inside the proxy
    // Placed at mount already, before any frame ran.
    expectVec(shipGroup.position, h.client.view(ship).position as Vec3);

    const rockX: number[] = [];
    const shipZ: number[] = [];
    for (let i = 0; i < 30; i++) {
      await h.canvasFrame(renderer);
      expect({ ship: ship.components, rock: rock.components }).toEqual(afterStep);
      const shipView = h.client.view(ship);
      expectVec(shipGroup.position, shipView.position as Vec3);
      expectQuat(shipGroup.quaternion, shipView.rotation as Quat);
      const rockView = h.client.view(rock);
      expectVec(rockGroup.position, rockView.position as Vec3);
      expectQuat(rockGroup.quaternion, rockView.spin as Quat);
      rockX.push(rockGroup.position.x);
      shipZ.push(shipGroup.position.z);
    }
    // Moving, not frozen: 29 frames of 1/60 s. Rock: 3 m/s × 29/60 s = 1.45 m; ship: 6 m/s × 29/60 s = 2.9 m.
    // (±15 %: the interpolation timeline and the prediction clock may run 0.9–1.1× while they settle.)
    expect(rockX.at(-1)! - rockX[0]!).toBeGreaterThan(ROCK_SPEED * (29 / 60) * 0.85);
    expect(rockX.at(-1)! - rockX[0]!).toBeLessThan(ROCK_SPEED * (29 / 60) * 1.15);
    expect(shipZ.at(-1)! - shipZ[0]!).toBeGreaterThan(SHIP_SPEED * (29 / 60) * 0.85);
    expect(shipZ.at(-1)! - shipZ[0]!).toBeLessThan(SHIP_SPEED * (29 / 60) * 1.15);
    expect(h.claims()).toBe(1);
  });

  it('shows the VisualCorrection after a server push while the simulated body takes the server value, and never writes ghost.components', async () => {
    const { h, ship } = setup();
    const shipRef = createRef<Group>();
    // After every step (before the proxies run) remember what the engine left in the components.
    let afterStep: unknown;
    h.value.frame.onStep(() => (afterStep = structuredClone(ship.components)));
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <NetcodeFrame now={() => h.stepper.now} />
        <VisualProxy ghost={ship} ref={shipRef} />
      </h.Provider>,
    );
    const group = shipRef.current!;
    const correction = () => h.client.prediction!.correction(ship)!;
    for (let i = 0; i < 5; i++) await h.canvasFrame(renderer);
    expect(correction().active).toBe(false); // nothing to correct yet: the ship only flies on z
    expect(ship.components.position.x).toBe(0);

    // The server pushes the ship 0.5 m on x: the client cannot predict it.
    h.stepper.server.world.get(ship.id)!.components.position.x += 0.5;
    let frames = 0;
    while (!correction().active) {
      await h.canvasFrame(renderer);
      expect(ship.components).toEqual(afterStep); // rendering wrote nothing into the simulated body
      if (++frames > 60) throw new Error('test: the push was never corrected');
    }
    // The rollback moved the simulated x from 0 to 0.5 (the server's word) in this frame's step.
    expect(ship.components.position.x).toBe(0.5);
    // Offset = before − after = 0 − 0.5 = −0.5 m, then decayed by this frame: k = 1 − 16.667/100 = 0.8333,
    // so the rendered x = 0.5 − 0.5 × 0.8333 = 0.08333 m. x does not move between ticks (the ship flies on z),
    // so frame interpolation adds nothing on x and the whole difference is the correction.
    const k1 = 1 - FRAME_MS / 100;
    expect(group.position.x).toBeCloseTo(0.5 - 0.5 * k1, 6);
    expect(group.position.x - ship.components.position.x).toBeCloseTo(correction().offset.x, 9);
    expectVec(group.position, h.client.view(ship).position as Vec3);

    await h.canvasFrame(renderer);
    expect(ship.components).toEqual(afterStep);
    // One more frame of decay: k = 1 − 2 × 16.667/100 = 0.6667 → x = 0.5 − 0.5 × 0.6667 = 0.16667 m.
    expect(group.position.x).toBeCloseTo(0.5 - 0.5 * (1 - (2 * FRAME_MS) / 100), 6);
    expectVec(group.position, h.client.view(ship).position as Vec3);
    expect(ship.components.position.x).toBe(0.5);
  });

  it('smoothed={false} places the group at the raw simulated state: the correction snaps', async () => {
    const { h, ship } = setup();
    const shipRef = createRef<Group>();
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <NetcodeFrame now={() => h.stepper.now} />
        <VisualProxy ghost={ship} ref={shipRef} smoothed={false} />
      </h.Provider>,
    );
    const group = shipRef.current!;
    const correction = () => h.client.prediction!.correction(ship)!;
    for (let i = 0; i < 5; i++) await h.canvasFrame(renderer);
    expectVec(group.position, ship.components.position);
    h.stepper.server.world.get(ship.id)!.components.position.x += 0.5;
    let frames = 0;
    while (!correction().active) {
      await h.canvasFrame(renderer);
      if (++frames > 60) throw new Error('test: the push was never corrected');
    }
    // The smoothed view is still 0.42 m short of the server's x; the raw proxy is already there.
    expect((h.client.view(ship).position as Vec3).x).toBeLessThan(0.1);
    expect(group.position.x).toBe(0.5);
    expectVec(group.position, ship.components.position);
  });

  it('leaves ghost.components alone when frames run without a step, and still places the group', async () => {
    const { h, ship } = setup();
    h.ownFrame(); // the provider's own loop steps once; no <NetcodeFrame/> in the Canvas
    const before = structuredClone(ship.components);
    const shipRef = createRef<Group>();
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <VisualProxy ghost={ship} ref={shipRef} positionField="position" rotationField={null} />
      </h.Provider>,
    );
    shipRef.current!.quaternion.set(0, 0, 1, 0); // rotationField={null}: the proxy must leave this alone
    await renderer.advanceFrames(1, FRAME_MS / 1000);
    expect(ship.components).toEqual(before);
    expectVec(shipRef.current!.position, h.client.view(ship).position as Vec3);
    expect(shipRef.current!.quaternion.toArray()).toEqual([0, 0, 1, 0]);
  });

  it('throws the documented error for a named field that is not a vec3/quat of the ghost type', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const { h, ship, rock } = setup();
    const errors: unknown[] = [];
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <Catch onError={(e) => errors.push(e)}>
          {/* A typed protocol rejects this at compile time too; the cast stands for untyped callers. */}
          <VisualProxy ghost={ship} positionField={'hp' as 'position'} />
        </Catch>
        <Catch onError={(e) => errors.push(e)}>
          <VisualProxy ghost={rock} rotationField={'rotation' as 'spin'} />
        </Catch>
      </h.Provider>,
    );
    expect(errors.map(String)).toEqual([
      'NetcodeError: react-netcode: <VisualProxy> positionField="hp" is not a vec3 field of ghost type "ship" (its vec3 fields: position); name one of them, or pass positionField={null} to leave it alone.',
      'NetcodeError: react-netcode: <VisualProxy> rotationField="rotation" is not a quat field of ghost type "rock" (its quat fields: spin); name one of them, or pass rotationField={null} to leave it alone.',
    ]);
  });
});
