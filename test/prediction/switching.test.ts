// Prediction switching end to end: a ball that moves past the local player is
// predicted inside the radius and interpolated beyond radius + margin, with a blend
// so the shown position never jumps.

import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, system, type Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';

const quiet: Logger = () => {};
const protocol = defineProtocol({
  ghosts: {
    ball: ghost({ position: field.vec3({ quantize: 1000 }), velocity: field.vec3({ quantize: 1000 }) }),
    crate: ghost({ position: field.vec3({ quantize: 1000 }), velocity: field.vec3({ quantize: 1000 }) }),
    marker: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['interpolated'] }),
  },
  join: { name: field.string(8) },
});
const systems = defineSystems(protocol, [
  system.shared('move', (world, ctx) => {
    for (const b of world.query('ball')) {
      b.components.position.x += b.components.velocity.x * ctx.dt;
      if (Math.abs(b.components.position.x) > 30) b.components.velocity.x = -b.components.velocity.x;
    }
  }),
]);

function setup(velocity: number, startX: number) {
  const link = { latencyMs: 50 };
  const s = createStepper({ protocol, systems, log: quiet, clients: [{ link: { up: link, down: link }, clock: { framePeriodMs: 1000 / 120 } }] });
  const ball = s.server.spawn('ball', { position: { x: startX, y: 0, z: 0 }, velocity: { x: velocity, y: 0, z: 0 } });
  s.joinAll({ name: 'p' });
  const client = s.clients[0]!.client;
  s.advance(1500);
  const modes: string[] = [];
  client.ghosts.events.on('mode', (_g, mode) => modes.push(mode));
  client.setPredictionSwitching({ radius: 5, margin: 2, transitionMs: 200, center: () => ({ x: 0, y: 0, z: 0 }) });
  return { s, client, ball, modes };
}

describe('prediction switching (engine)', () => {
  it('a ghost crossing the radius once switches exactly once in and once out, without a visible jump', () => {
    const { s, client, ball, modes } = setup(4, -20); // passes x = 0 after 5 s, leaves 7 m beyond at 6.75 s
    const g = client.world.get(ball.id)!;
    let lastX = client.view(g).position as { x: number };
    let prevX = lastX.x;
    let maxStep = 0;
    for (let i = 0; i < 120 * 10; i++) {
      s.advance(1000 / 120);
      const x = (client.view(g).position as { x: number }).x;
      maxStep = Math.max(maxStep, Math.abs(x - prevX));
      prevX = x;
    }
    expect(modes).toEqual(['predicted', 'interpolated']);
    // 4 m/s at 120 fps = 0.033 m per frame. Switching to predicted moves the ghost about
    // (RTT + interpolation delay) ahead, ~0.9 m here, but the 200 ms blend spreads that over
    // 24 frames: no frame moves more than a few times the normal step.
    expect(maxStep).toBeLessThan(0.2);
    lastX = client.view(g).position as { x: number };
    expect(lastX.x).toBeGreaterThan(7);
  });

  it('a ghost oscillating within ± margin/2 around the radius switches at most once', () => {
    const { s, client, modes } = setup(0, 5); // starts on the radius
    const server = [...s.server.world.query('ball')][0]!;
    for (let i = 0; i < 120 * 10; i++) {
      server.components.position.x = 5 + Math.sin(i / 30); // 5 ± 1 m: margin/2 = 1
      s.advance(1000 / 120);
    }
    expect(modes.length).toBeLessThanOrEqual(1);
    expect(client.world.size).toBe(1);
  });

  it('types: only the listed ghost types switch; unknown or single-mode types are refused', () => {
    const { s, client, ball, modes } = setup(0, 1); // a ball 1 m from the centre
    const crate = s.server.spawn('crate', { position: { x: 1, y: 0, z: 0 }, velocity: { x: 0, y: 0, z: 0 } });
    s.advance(500);
    client.setPredictionSwitching(undefined);
    for (const g of client.world.all()) client.setGhostMode(g, 'interpolated');
    modes.length = 0;
    client.setPredictionSwitching({ radius: 5, margin: 2, center: () => ({ x: 0, y: 0, z: 0 }), types: ['crate'] });
    s.advance(200);
    expect(client.world.get(crate.id)!.mode).toBe('predicted');
    expect(client.world.get(ball.id)!.mode).toBe('interpolated');
    expect(modes).toEqual(['predicted']);
    expect(() => client.setPredictionSwitching({ radius: 5, margin: 2, center: () => undefined, types: ['nope'] })).toThrow(/react-netcode: .*'nope'.*ghost types: ball, crate, marker/);
    expect(() => client.setPredictionSwitching({ radius: 5, margin: 2, center: () => undefined, types: ['marker'] })).toThrow(/react-netcode: .*'marker'.*modes/);
    // A refused call changes nothing: the crate-only switching still runs.
    expect(client.world.get(ball.id)!.mode).toBe('interpolated');
  });
});
