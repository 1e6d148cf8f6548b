// The demo's shared systems on a deterministic Stepper (virtual time, no sleeps):
// the Rapier character against the static level, jumping, kicking, grenade blasts
// with their chain reaction and vertical clamp, and live tuning through the `tune`
// RPC into the server's config and the client's prediction.
import RAPIER from '@dimforge/rapier3d-compat';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { setupGame } from '../../demo/server/game.ts';
import { DEFAULT_CONFIG } from '../../demo/shared/config.ts';
import { protocol } from '../../demo/shared/protocol.ts';
import {
  ARENA_HALF_SIZE,
  BALL_RADIUS,
  blastVelocity,
  JUMP_SPEED,
  GRAVITY,
  KICK_RANGE,
  PLAYER_CENTRE_Y,
  PLAYER_RADIUS,
  physics,
  placePlayer,
  systems,
} from '../../demo/shared/systems.ts';

await RAPIER.init();

const quiet: Logger = () => {};

/**
 * Server (the demo's game set-up, with these balls) + one client joined and predicting. The
 * player joins on its kickoff spot; `at` puts it elsewhere first (placePlayer, as the server's
 * kickoff line-up does), and the client's prediction is corrected to it before the test goes on.
 */
function game(balls: readonly { x: number; z: number }[] = [], at?: { x: number; z: number; facing: number }) {
  const s = createStepper({ protocol, systems, seed: 7, log: quiet, clients: 1 });
  setupGame(s.server, { balls });
  s.joinAll({ name: 'p' });
  const client = s.clients[0]!.client;
  s.until(() => [...client.world.query('player')].length === 1 && client.prediction!.lastTick !== undefined, 5000, 'prediction to start');
  const me = [...client.world.query('player')][0]!;
  const serverMe = s.server.world.get(me.id)! as typeof me;
  if (at) placePlayer(serverMe, at);
  s.tick(30); // land on the ground
  if (at) expect(Math.hypot(me.components.position.x - at.x, me.components.position.z - at.z)).toBeLessThan(0.01);
  return { s, client, me, serverMe };
}

/** Where the kickball tests stand: 4 m from the centre, facing it, clear of the kickoff spots and the walls. */
const SPOT = { x: 2.703, z: -2.948, facing: Math.atan2(-2.703, 2.948) };

describe('demo systems: character', () => {
  it('stands on the ground, and walking into a wall stops at the wall', () => {
    const { s, client, me, serverMe } = game();
    // Standing: the capsule's centre rests PLAYER_CENTRE_Y (0.9 m) above the ground, plus the controller's 1 cm skin at most.
    expect(serverMe.components.grounded).toBe(true);
    expect(serverMe.components.position.y).toBeGreaterThan(PLAYER_CENTRE_Y - 0.005);
    expect(serverMe.components.position.y).toBeLessThan(PLAYER_CENTRE_Y + 0.02);
    // Walk towards the camera (+z) for 5 s at 6 m/s = 30 m, far more than the ≤ 24 m to the side wall at z = 20
    // (the end walls at x = ±20 have the goals in them).
    client.input.current.move = { x: 0, y: -1 };
    s.advance(5000);
    const z = serverMe.components.position.z;
    // Stopped by the wall's inner face at z = 20: the centre stays a radius (0.4) + skin (0.01) short of it.
    expect(z).toBeLessThan(ARENA_HALF_SIZE - PLAYER_RADIUS + 0.001);
    expect(z).toBeGreaterThan(ARENA_HALF_SIZE - PLAYER_RADIUS - 0.05);
    // The client's prediction agrees, and the height never drifted.
    expect(Math.abs(me.components.position.z - z)).toBeLessThan(0.05);
    expect(Math.abs(serverMe.components.position.y - PLAYER_CENTRE_Y)).toBeLessThan(0.02);
    client.input.current.move = { x: 0, y: 0 };
  });

  it('jumps and comes back to the ground', () => {
    const { s, client, serverMe } = game();
    const ground = serverMe.components.position.y;
    client.input.press('jump');
    let top = ground;
    let airborne = 0;
    // Up at 7 m/s under 20 m/s²: apex 7² / (2·20) = 1.225 m after 0.35 s, back after 0.7 s.
    for (let i = 0; i < 60; i++) {
      s.tick(1);
      top = Math.max(top, serverMe.components.position.y);
      if (!serverMe.components.grounded) airborne++;
    }
    const apex = (JUMP_SPEED * JUMP_SPEED) / (2 * GRAVITY);
    expect(top - ground).toBeGreaterThan(apex - 0.15);
    expect(top - ground).toBeLessThan(apex + 0.05);
    expect(airborne).toBeGreaterThan(30); // ≈ 0.7 s = 42 ticks in the air
    expect(serverMe.components.grounded).toBe(true);
    expect(Math.abs(serverMe.components.position.y - ground)).toBeLessThan(0.01);
    expect(serverMe.components.vy).toBeLessThanOrEqual(0);
  });
});

describe('demo systems: kickball', () => {
  it('a kick moves the nearest ball within range only', () => {
    const at = SPOT;
    const { s, client, me, serverMe } = game([
      { x: at.x + 1.2, z: at.z }, // nearest, within KICK_RANGE (1.8 m)
      { x: at.x - 1.6, z: at.z }, // in range but farther
      { x: at.x, z: at.z + 5 }, // out of range
    ], at);
    const balls = [...s.server.world.query('ball')];
    const start = balls.map((b) => ({ ...b.components.position }));
    const moved = (): number[] => balls.map((b, i) => Math.hypot(b.components.position.x - start[i]!.x, b.components.position.z - start[i]!.z));
    expect(moved().every((d) => d < 0.01)).toBe(true);
    client.input.press('kick');
    s.advance(500);
    const [near, other, far] = moved();
    // Kicked at 10 m/s away from the player (+x): it rolls metres in 0.5 s.
    expect(near).toBeGreaterThan(2);
    expect(balls[0]!.components.position.x).toBeGreaterThan(start[0]!.x + 2);
    expect(other).toBeLessThan(0.01);
    expect(far).toBeLessThan(0.01);

    // Out of range: walk 4 m away from every ball (−z), kick: nothing moves.
    client.input.current.move = { x: 0, y: 1 }; // forward = −z
    s.advance(700);
    client.input.current.move = { x: 0, y: 0 };
    const resting = (): boolean => balls.every((b) => Math.hypot(b.components.linvel.x, b.components.linvel.y, b.components.linvel.z) < 0.005);
    s.until(resting, 20_000, 'the kicked ball to come to rest');
    const before = balls.map((b) => ({ ...b.components.position }));
    const p = serverMe.components.position;
    for (const b of before) expect(Math.hypot(b.x - p.x, b.z - p.z)).toBeGreaterThan(KICK_RANGE);
    client.input.press('kick');
    s.advance(500);
    balls.forEach((b, i) => expect(Math.hypot(b.components.position.x - before[i]!.x, b.components.position.z - before[i]!.z)).toBeLessThan(0.05));
    expect(me.alive).toBe(true);
  });

  it('ball switching: near balls predicted, far ones interpolated, with hysteresis; players are not switched', async () => {
    const { switchBallsAround } = await import('../../demo/client/switching.ts');
    const at = SPOT;
    const { s, client } = game([
      { x: at.x + 3, z: at.z }, // inside radius 6
      { x: at.x + 7, z: at.z }, // between radius and radius + margin (8): stays interpolated
      { x: at.x, z: at.z + 15 }, // far
    ], at);
    s.tick(10);
    const me = [...client.world.query('player')][0]!;
    const balls = [...client.world.query('ball')];
    expect(balls.map((b) => b.mode)).toEqual(['interpolated', 'interpolated', 'interpolated']);
    const switched: string[] = [];
    client.ghosts.events.on('mode', (g, mode) => switched.push(`${g.type}:${mode}`));
    const off = switchBallsAround(client, () => client.view(me).position as { x: number; y: number; z: number });
    s.tick(2);
    expect(balls.map((b) => b.mode)).toEqual(['predicted', 'interpolated', 'interpolated']);
    expect(switched).toEqual(['ball:predicted']);
    // Walk 1.5 m towards −x: ball 1 is 4.5 m away (still predicted), ball 2 8.5 m (still interpolated).
    client.input.current.move = { x: -1, y: 0 };
    s.advance(250); // 6 m/s × 0.25 s = 1.5 m
    // 3 m more (7.5 m from ball 1, inside radius + margin = 8): still predicted.
    s.advance(500);
    client.input.current.move = { x: 0, y: 0 };
    s.tick(10);
    expect(balls[0]!.mode).toBe('predicted');
    expect(switched).toEqual(['ball:predicted']);
    // 1 m more: 8.5 m > 8, interpolated again.
    client.input.current.move = { x: -1, y: 0 };
    s.advance(1000 / 6);
    client.input.current.move = { x: 0, y: 0 };
    s.tick(10);
    expect(balls.map((b) => b.mode)).toEqual(['interpolated', 'interpolated', 'interpolated']);
    expect(switched).toEqual(['ball:predicted', 'ball:interpolated']);
    // Off: walking back next to ball 1 no longer switches it; the local player was never switched.
    off();
    client.input.current.move = { x: 1, y: 0 };
    s.advance(1000);
    client.input.current.move = { x: 0, y: 0 };
    s.tick(10);
    expect(balls[0]!.mode).toBe('interpolated');
    expect(me.mode).toBe('predicted');
  });
});

describe('demo client: the prediction toggle', () => {
  it('off: the local player is interpolated (moves show late) and throws are not predicted; on: predicted again', async () => {
    const { setLocalPrediction } = await import('../../demo/client/switching.ts');
    const { s, client, me, serverMe } = game();
    setLocalPrediction(client, false);
    expect(me.mode).toBe('interpolated');
    s.advance(300);
    const startX = serverMe.components.position.x;
    client.input.current.move = { x: 1, y: 0 };
    s.advance(500);
    client.input.current.move = { x: 0, y: 0 };
    // The server moved the player (6 m/s × ~0.5 s); the client's interpolated view is still behind it.
    expect(serverMe.components.position.x - startX).toBeGreaterThan(2);
    const shown = (client.view(me).position as { x: number }).x;
    expect(serverMe.components.position.x - shown).toBeGreaterThan(0.3);
    // A throw is not predicted: the grenade arrives from a snapshot (origin 'snapshot').
    client.input.press('fire');
    s.until(() => [...client.world.query('grenade')].length === 1, 1000, 'the grenade from the snapshot');
    expect([...client.world.query('grenade')][0]!.origin).toBe('snapshot');
    s.advance(1000);
    expect((client.view(me).position as { x: number }).x).toBeCloseTo(serverMe.components.position.x, 2);
    setLocalPrediction(client, true);
    expect(me.mode).toBe('predicted');
    client.input.press('fire');
    s.until(() => [...client.world.query('grenade')].some((g) => g.origin === 'predicted'), 200, 'a predicted grenade');
  });
});

describe('demo systems: grenades', () => {
  it('blastVelocity: power × (1 − d²/r²) along diff with diff.y biased to at least the clamp, normalised', () => {
    const c = DEFAULT_CONFIG; // radius² 40, power 10, clamp 1.5
    const at = { x: 0, y: 0, z: 0 };
    // 2 m away on x, level: 10 × (1 − 4/40) = 9 m/s along (2, max(1.5, 0), 0) / 2.5 = (0.8, 0.6, 0) → (7.2, 5.4, 0).
    const two = blastVelocity(at, { x: 2, y: 0, z: 0 }, c)!;
    expect(two.x).toBeCloseTo(7.2, 12);
    expect(two.y).toBeCloseTo(5.4, 12);
    expect(two.z).toBe(0);
    // 4 m: 10 × (1 − 16/40) = 6 m/s along (0, 1.5, −4) / √18.25 → z −5.618, lifted 2.107.
    const four = blastVelocity(at, { x: 0, y: 0, z: -4 }, c)!;
    expect(four.z).toBeCloseTo((-6 * 4) / Math.sqrt(18.25), 12);
    expect(four.y).toBeCloseTo((6 * 1.5) / Math.sqrt(18.25), 12);
    // sqrt(40) ≈ 6.32 m and beyond: out of reach; on the blast itself: straight up at full power (no 1/d blow-up).
    expect(blastVelocity(at, { x: 6.4, y: 0, z: 0 }, c)).toBeUndefined();
    expect(blastVelocity(at, at, c)).toEqual({ x: 0, y: 10, z: 0 });
    expect(blastVelocity(at, at, { ...c, verticalClamp: 0 })).toBeUndefined();
    // 3 m straight up: diff.y 3 is above the clamp, kept: 10 × (1 − 9/40) = 7.75 m/s up.
    expect(blastVelocity(at, { x: 0, y: 3, z: 0 }, c)!.y).toBeCloseTo(7.75, 12);
    // 2 m below (diff.y ≤ −0.05): pushed down, at least the clamp: (0, −2, 0) → 9 m/s down.
    expect(blastVelocity(at, { x: 0, y: -2, z: 0 }, c)!.y).toBeCloseTo(-9, 12);
    // Slightly below (−1 m at 2 m horizontal): diff.y min(−1.5, −1) = −1.5.
    // 10 × (1 − 5/40) = 8.75 m/s along (2, −1.5, 0) / 2.5 → (7, −5.25, 0).
    const low = blastVelocity(at, { x: 2, y: -1, z: 0 }, c)!;
    expect(low.x).toBeCloseTo(7, 12);
    expect(low.y).toBeCloseTo(-5.25, 12);
    // The clamp is live-tunable: 0 leaves a level body's push horizontal.
    expect(blastVelocity(at, { x: 2, y: 0, z: 0 }, { ...c, verticalClamp: 0 })).toEqual({ x: 9, y: 0, z: 0 });
  });

  it('a blast pushes balls by distance, not beyond its radius, and cuts a nearby grenade fuse to 0.4 s', () => {
    const { s } = game([
      { x: -10, z: 2 }, // 2 m from the blast at (−10, ·, 0)
      { x: -10, z: -4 }, // 4 m
      { x: -10, z: 7 }, // 7 m: out of reach
    ]);
    const y = BALL_RADIUS; // grenades and balls centred at the same height: a horizontal blast
    const blast = s.server.spawn('grenade', { position: { x: -10, y, z: 0 }, fuse: 0.05 });
    const caught = s.server.spawn('grenade', { position: { x: -13, y, z: 0 }, fuse: 3 }); // 3 m: caught
    const spared = s.server.spawn('grenade', { position: { x: -10, y, z: -12 }, fuse: 3 }); // 12 m: not
    const balls = [...s.server.world.query('ball')];
    s.until(() => !blast.alive, 1000, 'the blast');
    // The tick of the blast: the caught grenade's fuse is 0.4 s now (not yet decremented below 0.4 − 1/60).
    expect(caught.components.fuse).toBeLessThanOrEqual(DEFAULT_CONFIG.chainFuse);
    expect(caught.components.fuse).toBeGreaterThan(DEFAULT_CONFIG.chainFuse - 2 / 60);
    expect(spared.components.fuse).toBeGreaterThan(2.8);
    // Velocity change: 9 m/s at 2 m, 6 m/s at 4 m (blastPower 10 × (1 − d²/40)) along (d, 1.5, 0) normalised:
    // horizontally 9 × 2/2.5 = 7.2 and 6 × 4/√18.25 = 5.618; a tick of damping and friction takes a little.
    const speed = (i: number): number => Math.hypot(balls[i]!.components.linvel.x, balls[i]!.components.linvel.z);
    expect(speed(0)).toBeGreaterThan(6.5);
    expect(speed(0)).toBeLessThan(7.21);
    expect(speed(1)).toBeGreaterThan(5);
    expect(speed(1)).toBeLessThan(5.63);
    expect(speed(0) / speed(1)).toBeCloseTo(7.2 / 5.618, 1);
    expect(balls[0]!.components.linvel.z).toBeGreaterThan(0); // away from the blast
    expect(balls[1]!.components.linvel.z).toBeLessThan(0);
    expect(speed(2)).toBeLessThan(0.01);
    // Level with the blast, the balls are lifted too: 9 × 1.5/2.5 = 5.4 m/s at 2 m, 6 × 1.5/√18.25 = 2.107 at 4 m (less a tick of gravity).
    expect(balls[0]!.components.linvel.y).toBeGreaterThan(4.9);
    expect(balls[0]!.components.linvel.y).toBeLessThan(5.41);
    expect(balls[1]!.components.linvel.y).toBeGreaterThan(1.7);
    expect(balls[1]!.components.linvel.y).toBeLessThan(2.11);
    // The chain: the caught grenade explodes 0.4 s later (24 ticks), the spared one is still there.
    s.advance(450);
    expect(caught.alive).toBe(false);
    expect(spared.alive).toBe(true);
  });

  it('tune is clamped by the server and reaches the client’s prediction', () => {
    const { s, client } = game();
    const config = [...s.server.world.query('config')][0]!;
    const mine = [...client.world.query('config')][0]!;
    expect(mine.mode).toBe('predicted');
    expect(mine.components.grenadeSpeed).toBe(15);
    // grenadeSpeed above the 30 max, fuse below the 0.5 min, blastPower rounded to 0.01.
    client.send('tune', { grenadeSpeed: 100, fuse: 0.01, blastRadiusSq: 60, blastPower: 12.3456, verticalClamp: 2, chainFuse: 0.25 });
    s.until(() => config.components.grenadeSpeed !== 15, 1000, 'the server to apply the tune');
    expect({ ...config.components }).toEqual({ grenadeSpeed: 30, fuse: 0.5, blastRadiusSq: 60, blastPower: 12.35, verticalClamp: 2, chainFuse: 0.25 });
    s.until(() => mine.components.grenadeSpeed === 30, 1000, 'the client to get the new config');
    expect({ ...mine.components }).toEqual({ ...config.components });
    // The predicted throw uses it: 30 m/s along (sin f, 0.5, cos f)/|…| → 26.8 m/s horizontally at the throw.
    client.input.press('fire');
    s.until(() => [...client.world.query('grenade')].length === 1, 500, 'the predicted grenade');
    const g = [...client.world.query('grenade')][0]!;
    expect(g.origin).toBe('predicted');
    const horizontal = Math.hypot(g.components.linvel.x, g.components.linvel.z);
    expect(horizontal).toBeGreaterThan(26.5); // 30 / √1.25 = 26.83, less a tick of linear damping (0.3/s)
    expect(horizontal).toBeLessThan(26.84);
    // The server's grenade: the same throw, and its fuse is the tuned 0.5 s.
    s.until(() => [...s.server.world.query('grenade')].length === 1, 500, 'the server grenade');
    const sg = [...s.server.world.query('grenade')][0]!;
    expect(sg.components.fuse).toBeLessThanOrEqual(0.5);
    s.until(() => g.origin === 'matched', 1000, 'the match');
    s.advance(600);
    expect(sg.alive).toBe(false); // exploded after 0.5 s
    expect(physics.stats(s.server.world)!.bodies).toBeGreaterThan(0);
  });
});
