// <NetDebug>: per ghost a line (predicted path), points (confirmed samples) and a point
// (rendered position) with the documented colours, vertex counts taken from the
// engine's histories, buffers allocated once, and the ghost list following spawns and
// despawns at UI rate.

import ReactThreeTestRenderer from '@react-three/test-renderer';
import { Line, Points, type BufferAttribute, type LineBasicMaterial, type Object3D, type PointsMaterial } from 'three';
import { afterEach, describe, expect, it } from 'vitest';
import type { Ghost, Vec3 } from '../../src/index.ts';
import { NET_DEBUG_COLORS, NET_DEBUG_NAMES, NetcodeFrame, NetDebug } from '../../src/r3f/index.ts';
import { ROCK_SPEED, spaceProtocol, spaceSystems } from './fixtures.ts';
import { createTestNetcode } from './test-netcode.tsx';

type Renderer = Awaited<ReturnType<typeof ReactThreeTestRenderer.create>>;
let renderer: Renderer | undefined;
afterEach(async () => {
  await renderer?.unmount();
  renderer = undefined;
});

const TRAIL = 32;

function debugGroup(r: Renderer, ghost: Ghost): Object3D | undefined {
  return (r.scene.instance as Object3D).getObjectByName(`net-debug-${ghost.id}`);
}

function parts(r: Renderer, ghost: Ghost) {
  const group = debugGroup(r, ghost)!;
  const predicted = group.getObjectByName(NET_DEBUG_NAMES.predicted) as Line;
  const confirmed = group.getObjectByName(NET_DEBUG_NAMES.confirmed) as Points;
  const rendered = group.getObjectByName(NET_DEBUG_NAMES.rendered) as Points;
  return { group, predicted, confirmed, rendered };
}

const positions = (o: Line | Points) => o.geometry.getAttribute('position') as BufferAttribute;
const vertex = (o: Line | Points, i: number) => ({ x: positions(o).getX(i), y: positions(o).getY(i), z: positions(o).getZ(i) });

function expectNear(actual: Vec3, expected: Vec3): void {
  // Float32 buffers: within 1e-5 m of the float64 engine values at these magnitudes (< 100 m).
  expect(Math.abs(actual.x - expected.x)).toBeLessThan(1e-5);
  expect(Math.abs(actual.y - expected.y)).toBeLessThan(1e-5);
  expect(Math.abs(actual.z - expected.z)).toBeLessThan(1e-5);
}

describe('<NetDebug>', () => {
  it('draws three objects per ghost with vertex counts from the histories, in the documented colours', async () => {
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    h.stepper.server.events.on('join', (c) => h.stepper.server.spawn('ship', {}, { owner: c.networkId }));
    h.stepper.server.spawn('rock', { velocity: { x: ROCK_SPEED, y: 0, z: 0 } });
    h.joinAndSettle({ name: 'p' });
    h.client.input.current.thrust = 1;
    const ship = [...h.client.world.query('ship')][0]! as unknown as Ghost;
    const rock = [...h.client.world.query('rock')][0]! as unknown as Ghost;
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <NetcodeFrame now={() => h.stepper.now} />
        <NetDebug trail={TRAIL} />
      </h.Provider>,
    );
    await h.canvasFrame(renderer);
    const first = parts(renderer, ship);
    const shipArray = positions(first.predicted).array;
    for (let i = 0; i < 10; i++) await h.canvasFrame(renderer);

    for (const ghost of [ship, rock]) {
      const { group, predicted, confirmed, rendered } = parts(renderer, ghost);
      expect(group.children).toHaveLength(3);
      expect(predicted).toBeInstanceOf(Line);
      expect(confirmed).toBeInstanceOf(Points);
      expect(rendered).toBeInstanceOf(Points);
      expect((predicted.material as LineBasicMaterial).color.getHex()).toBe(NET_DEBUG_COLORS.predicted);
      expect((confirmed.material as PointsMaterial).color.getHex()).toBe(NET_DEBUG_COLORS.confirmed);
      expect((rendered.material as PointsMaterial).color.getHex()).toBe(NET_DEBUG_COLORS.rendered);
      // Preallocated: TRAIL vertices for the path and the samples, one for the rendered point.
      expect(positions(predicted).count).toBe(TRAIL);
      expect(positions(confirmed).count).toBe(TRAIL);
      expect(positions(rendered).count).toBe(1);
      // Rendered point = client.view(ghost).position, one vertex.
      expect(rendered.geometry.drawRange.count).toBe(1);
      expectNear(vertex(rendered, 0), h.client.view(h.client.world.get(ghost.id)!).position);
      // Confirmed samples: every sample in the ghost's confirmed history. It keeps 64 ticks and a
      // snapshot comes every 60/20 = 3 ticks, so 64/3 → 21 or 22 samples (fewer than TRAIL: all drawn).
      const confirmedHistory = h.client.ghosts.record(ghost.id)!.history;
      expect(confirmed.geometry.drawRange.count).toBe(confirmedHistory.size);
      expect(confirmedHistory.size).toBeGreaterThanOrEqual(21);
      expect(confirmedHistory.size).toBeLessThanOrEqual(22);
      const rec = h.client.ghosts.record(ghost.id)!;
      expectNear(vertex(confirmed, confirmedHistory.size - 1), rec.history.get(rec.confirmedTick)!.position as Vec3); // newest last
    }

    // The predicted ship: its history holds up to maxRollbackTicks + 8 = 128 ticks; after ≈ 78 ticks (1.3 s) of prediction
    // (77–78: the frame phase) it holds them all, more than TRAIL, so the path shows the newest TRAIL = 32, ending at the newest predicted tick.
    const history = h.client.prediction!.history(ship)!;
    expect(history.size).toBeGreaterThanOrEqual(70);
    expect(history.size).toBeLessThanOrEqual(128);
    const { predicted } = parts(renderer, ship);
    expect(predicted.geometry.drawRange.count).toBe(TRAIL);
    expectNear(vertex(predicted, TRAIL - 1), history.get(h.client.prediction!.lastTick!)!.position as Vec3);
    // Ticks of 1/60 s at 6 m/s: consecutive path vertices are 0.1 m apart on z.
    expect(vertex(predicted, TRAIL - 1).z - vertex(predicted, TRAIL - 2).z).toBeCloseTo(0.1, 4);
    expect(positions(predicted).array).toBe(shipArray); // same buffer as 10 frames ago: nothing reallocated
    // The interpolated rock has no predicted path.
    expect(parts(renderer, rock).predicted.geometry.drawRange.count).toBe(0);
  });

  it('adds and removes a ghost’s objects on spawn and despawn, and disposes its buffers', async () => {
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    h.stepper.server.events.on('join', (c) => h.stepper.server.spawn('ship', {}, { owner: c.networkId }));
    h.joinAndSettle({ name: 'p' }, 200);
    renderer = await ReactThreeTestRenderer.create(
      <h.Provider>
        <NetcodeFrame now={() => h.stepper.now} />
        <NetDebug trail={8} />
      </h.Provider>,
    );
    await h.canvasFrame(renderer);
    const root = () => (renderer!.scene.instance as Object3D).getObjectByName('net-debug')!;
    expect(root().children).toHaveLength(1); // the ship

    const serverRock = h.stepper.server.spawn('rock', { velocity: { x: ROCK_SPEED, y: 0, z: 0 } });
    for (let i = 0; i < 20 && !h.client.world.get(serverRock.id); i++) await h.canvasFrame(renderer);
    const rock = h.client.world.get(serverRock.id)! as unknown as Ghost;
    expect(rock).toBeDefined();
    expect(root().children).toHaveLength(2);
    const { confirmed } = parts(renderer, rock);
    let disposed = false;
    confirmed.geometry.addEventListener('dispose', () => (disposed = true));

    h.stepper.server.despawn(serverRock);
    for (let i = 0; i < 20 && rock.alive; i++) await h.canvasFrame(renderer);
    expect(rock.alive).toBe(false);
    expect(debugGroup(renderer, rock)).toBeUndefined();
    expect(root().children).toHaveLength(1);
    expect(disposed).toBe(true);
  });

  it('hidden (visible={false}): no per-ghost objects, so nothing is refilled per frame; shown again, drawn at once', async () => {
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    h.stepper.server.events.on('join', (c) => h.stepper.server.spawn('ship', {}, { owner: c.networkId }));
    h.stepper.server.spawn('rock', { velocity: { x: ROCK_SPEED, y: 0, z: 0 } });
    h.joinAndSettle({ name: 'p' }, 200);
    const view = (visible: boolean) => (
      <h.Provider>
        <NetcodeFrame now={() => h.stepper.now} />
        <NetDebug trail={8} visible={visible} />
      </h.Provider>
    );
    renderer = await ReactThreeTestRenderer.create(view(false));
    for (let i = 0; i < 5; i++) await h.canvasFrame(renderer);
    const root = () => (renderer!.scene.instance as Object3D).getObjectByName('net-debug')!;
    expect(root().visible).toBe(false);
    expect(root().children).toHaveLength(0);
    await renderer.update(view(true));
    await h.canvasFrame(renderer);
    expect(root().children).toHaveLength(2); // the ship and the rock
    const rock = [...h.client.world.query('rock')][0]! as unknown as Ghost;
    expect(parts(renderer, rock).confirmed.geometry.drawRange.count).toBeGreaterThan(1); // samples from the history kept while hidden
  });
});
