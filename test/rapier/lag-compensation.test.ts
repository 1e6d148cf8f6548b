// Lag compensation over the Stepper: a client at 150 ms RTT with 20 Hz snapshots
// fires at an interpolated target exactly where it sees it; the server casts the ray
// as that client saw the world (hits) and at the present (misses). Plus the history's
// bounds and clamping, and the analytic shapes.

import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, system, type Logger, type Vec3 } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { createLagCompensation, type LagCompensation } from '../../src/rapier/lag-compensation.ts';
import { PoseHistory, type Rewind } from '../../src/rapier/lag-compensation-history.ts';

const quiet: Logger = () => {};
const FRAME_MS = 1000 / 60;
const SPEED = 5; // m/s along x
const HALF_WIDTH = 0.25; // target: a 0.5 m sphere
const SHOOTER: Vec3 = { x: 0, y: 0, z: -10 };

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    shooter: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted'] }),
    target: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['interpolated'] }),
  },
  // viewTick/viewFraction: the client's own view per input, to compare with the Connection's (newest packet's) view.
  input: { aim: field.vec3({ quantize: 10000 }), fire: field.event(), viewTick: field.u32(), viewFraction: field.f32({ quantize: 10000 }) },
  join: { name: field.string(16) },
});
type P = typeof protocol;

/** Target x at tick t: back and forth over [-10, 10] at SPEED (a triangle wave, 40 m per period). */
function targetX(tick: number): number {
  const s = ((tick * SPEED) / 60) % 40;
  return s < 20 ? s - 10 : 30 - s;
}

interface Shot {
  /** x where the client saw the target when it fired. */
  seenX: number;
  /** x of the target in the server's history at the connection's view, at the view sent in the input, and now. */
  rewoundX: number;
  inputViewX: number;
  nowX: number;
  /** Ticks from the connection's (clamped) view back to the tick the shot ran at, and whether it was clamped. */
  rewindTicks: number;
  clamped: boolean;
  lag: boolean;
  inputView: boolean;
  engineView: boolean;
  now: boolean;
}

function shooting(link: { latencyMs: number; jitterMs: number; loss: number }, historyMs?: number, fps = 60) {
  const shots: Shot[] = [];
  const box: { lag?: LagCompensation<P> } = {};
  const systems = defineSystems(protocol, [
    system.server('patrol', (world, ctx) => {
      for (const t of world.query('target')) t.components.position.x = targetX(ctx.tick);
    }),
    system.server('shoot', (world, ctx) => {
      const lag = box.lag!;
      for (const s of world.query('shooter')) {
        const input = ctx.input(s);
        if (input.fire === 0) continue;
        const target = [...world.query('target')][0]!;
        const origin = s.components.position;
        const view = { tick: input.viewTick, fraction: input.viewFraction };
        const withLag = lag.raycast(s.owner, origin, input.aim, 100, { ignore: s });
        const withView = lag.raycast(view, origin, input.aim, 100, { ignore: s });
        const engineView = ctx.interpolationView(s); // the view the engine kept for this input tick
        const withEngineView = engineView ? lag.raycast(engineView, origin, input.aim, 100, { ignore: s }) : undefined;
        const now = lag.raycastNow(origin, input.aim, 100, { ignore: s });
        const rewind = lag.rewindOf(s.owner)!;
        shots.push({
          seenX: NaN,
          rewindTicks: ctx.tick - rewind.tick - rewind.fraction,
          clamped: rewind.clamped,
          rewoundX: lag.positionAt(s.owner, target)!.x,
          inputViewX: lag.positionAt(view, target)!.x,
          nowX: target.components.position.x,
          lag: withLag?.ghost === target,
          inputView: withView?.ghost === target,
          engineView: withEngineView?.ghost === target,
          now: now?.ghost === target,
        });
      }
    }),
  ]);
  // `fps`: the client's and the server's frame rate (a server in the page, as in the stories, runs its ticks in bursts too).
  const clock = { framePeriodMs: 1000 / fps };
  const s = createStepper({ protocol, systems, seed: 3, log: quiet, serverClock: clock, clients: [{ link: { up: link, down: link }, clock }] });
  box.lag = createLagCompensation(s.server, {
    ...(historyMs !== undefined ? { historyMs } : {}),
    colliders: { shooter: { shape: { sphere: 0.5 } }, target: { shape: { sphere: HALF_WIDTH } } },
  });
  s.server.spawn('target', { position: { x: targetX(0), y: 0, z: 0 } });
  s.server.events.on('join', (c) => s.server.spawn('shooter', { position: SHOOTER }, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  const client = s.clients[0]!.client;
  s.until(() => client.world.size === 2 && client.prediction!.lastTick !== undefined, 5000, 'prediction to start');
  s.advance(2000); // clock sync and the interpolation delay settle
  const target = [...client.world.query('target')][0]!;
  const seen: number[] = [];
  for (let i = 0; i < 100; i++) {
    // Aim exactly at the centre of the target as this client shows it now; the press and
    // the aim are committed with the next predicted tick, which also carries this view.
    const p = client.view(target).position as Vec3;
    const d = { x: p.x - SHOOTER.x, y: p.y - SHOOTER.y, z: p.z - SHOOTER.z };
    const len = Math.hypot(d.x, d.y, d.z);
    client.input.current.aim = { x: d.x / len, y: d.y / len, z: d.z / len };
    client.input.current.viewTick = client.time.interpolationTick;
    client.input.current.viewFraction = client.time.interpolationFraction;
    client.input.press('fire');
    seen.push(p.x);
    s.advance(15 * FRAME_MS); // a shot every 250 ms (at 10 fps: every 2.5 frames)
  }
  s.advance(1000); // the last inputs reach the server
  shots.forEach((shot, i) => (shot.seenX = seen[i]!));
  return { s, shots, lag: box.lag };
}

describe('lag compensation', () => {
  it('150 ms RTT, 20 Hz snapshots: 100 of 100 shots at the interpolated target hit with lag compensation; without, most miss', () => {
    const { shots, lag } = shooting({ latencyMs: 75, jitterMs: 0, loss: 0 });
    expect(lag.historyTicks).toBe(61); // ceil(1000 ms / 16.67 ms) + 1 = 60 + 1
    expect(shots.length).toBe(100);
    const err = (key: 'rewoundX' | 'inputViewX' | 'nowX') => shots.map((s) => Math.abs(s[key] - s.seenX));
    // With lag compensation every shot lands: the rewound target is within its 0.25 m half-width of where it was seen.
    expect(shots.filter((s) => s.lag).length).toBe(100);
    expect(Math.max(...err('rewoundX'))).toBeLessThan(HALF_WIDTH);
    // Passing the connection rewinds to the view of the input the server runs now (the firing
    // input's own view, as ctx.interpolationView): only quantization is left (0.3 mm here).
    expect(Math.max(...err('rewoundX'))).toBeLessThan(0.01);
    // The view sent with the firing input itself leaves only quantization and the corner the
    // client's 3-tick snapshot interpolation cuts at a reversal (≤ 1.5 ticks × 5/60 = 0.125 m).
    expect(shots.filter((s) => s.inputView).length).toBe(100);
    expect(shots.filter((s) => s.engineView).length).toBe(100); // ctx.interpolationView needs no extra input field
    expect(Math.max(...err('inputViewX'))).toBeLessThan(0.01); // this run: 0.3 mm
    // Without: the target moved on by 5 m/s × (one-way 75 + interpolation delay 100 + input
    // margin ~33 + view/send offsets) ≈ 1.5 m on average; it only comes back near a reversal.
    // The rewind, from the tick the firing input runs to the view it was sampled with: 75 ms down
    // + 100 ms interpolation delay + 75 ms up + the input's lead over its arrival (slack ≈ 2.3 ticks)
    // + the view of the frame before (1 tick) ≈ 9 + 6 + 2.3 + 1 ≈ 19.5 ticks (19.55 seen), inside
    // the 61-tick (1000 ms) history: never clamped.
    for (const shot of shots) expect(shot.rewindTicks).toBeGreaterThanOrEqual(18);
    for (const shot of shots) expect(shot.rewindTicks).toBeLessThanOrEqual(21);
    expect(shots.some((s) => s.clamped)).toBe(false);
    const now = err('nowX');
    expect(now.reduce((a, b) => a + b) / now.length).toBeGreaterThan(1.2);
    expect(shots.filter((s) => s.now).length).toBeLessThanOrEqual(5); // this seed: 0
  });

  it('a history shorter than the rewind clamps it: the shots land behind the target and most miss', () => {
    // 200 ms = 12 steps → 13 ticks, T − 13 … T − 1 while tick T runs: the 17-tick rewind stops 4 ticks
    // short, leaving the target 4 × 5/60 = 0.33 m (+ the 0.17 m margin error) ahead of where it was seen.
    const { shots, lag } = shooting({ latencyMs: 75, jitterMs: 0, loss: 0 }, 200);
    expect(lag.historyTicks).toBe(13);
    expect(shots.every((s) => s.clamped && s.rewindTicks === 13)).toBe(true);
    expect(shots.filter((s) => s.lag).length).toBeLessThanOrEqual(5); // this seed: 0
    expect(shots.filter((s) => s.inputView).length).toBeLessThanOrEqual(5);
  });

  it('with ±20 ms jitter and 5 % loss the input margin grows: the view sent with the firing input still hits 100 of 100', () => {
    const { shots } = shooting({ latencyMs: 75, jitterMs: 20, loss: 0.05 });
    expect(shots.length).toBe(100); // a lost press is carried by the next packet's running count
    expect(shots.filter((s) => s.inputView).length).toBe(100);
    expect(shots.filter((s) => s.engineView).length).toBe(100); // ctx.interpolationView: the view of the firing input's own tick
    expect(Math.max(...shots.map((s) => Math.abs(s.inputViewX - s.seenX)))).toBeLessThan(HALF_WIDTH); // this run: 0.088 m
    // Passing the connection uses the firing input's own view too, whatever the input margin
    // (≈ 3.2 ticks of slack here): every shot lands.
    expect(shots.filter((s) => s.lag).length).toBe(100);
    expect(shots.filter((s) => s.now).length).toBeLessThanOrEqual(5);
  });

  it('at 10, 15 and 30 fps (client and server) every shot still hits: the inputs of one frame share its view, and the default history covers the longer rewind', () => {
    for (const fps of [10, 15, 30]) {
      const { shots } = shooting({ latencyMs: 75, jitterMs: 0, loss: 0 }, undefined, fps);
      expect(shots.length, `${fps} fps`).toBe(100);
      // A frame commits several input ticks, sampled at once: each gets the frame's own view, not one
      // moved back a tick per tick (which missed up to 5 ticks of target motion at 10 fps: 4 of 100 hit).
      expect(shots.filter((s) => s.engineView).length, `${fps} fps`).toBe(100);
      expect(shots.filter((s) => s.lag).length, `${fps} fps`).toBe(100);
      expect(Math.max(...shots.map((s) => Math.abs(s.rewoundX - s.seenX))), `${fps} fps`).toBeLessThan(0.01);
      // The interpolation delay grows with the frame time: 10–15 fps rewinds ≈ 40–50 ticks, past the
      // old 500 ms (31-tick) default, inside 1000 ms.
      expect(shots.some((s) => s.clamped), `${fps} fps`).toBe(false);
      if (fps <= 15) expect(Math.max(...shots.map((s) => s.rewindTicks)), `${fps} fps`).toBeGreaterThan(31);
      expect(shots.filter((s) => s.now).length, `${fps} fps`).toBeLessThanOrEqual(8);
    }
  });

  it('at 15 fps with ±20 ms jitter and 5 % loss: a lost packet leaves its inputs the next frame\'s view, and nearly every shot hits', () => {
    const { shots } = shooting({ latencyMs: 75, jitterMs: 20, loss: 0.05 }, undefined, 15);
    expect(shots.length).toBe(100);
    expect(shots.filter((s) => s.inputView).length).toBe(100);
    expect(shots.filter((s) => s.engineView).length).toBeGreaterThanOrEqual(90); // this seed: 93
  });
});

const shapes = defineProtocol({
  tickRate: 60,
  ghosts: {
    ball: ghost({ position: field.vec3() }, { modes: ['interpolated'] }),
    crate: ghost({ center: field.vec3(), rotation: field.quat() }, { modes: ['interpolated'] }),
    pill: ghost({ position: field.vec3() }, { modes: ['interpolated'] }),
  },
});
/** The ball slides along x: x = tick / 10, so its recorded pose names its tick. */
const slide = defineSystems(shapes, [
  system.server('slide', (world, ctx) => {
    for (const b of world.query('ball')) b.components.position.x = ctx.tick / 10;
  }),
]);
const Z = { x: 0, y: 0, z: 1 };
const X = { x: 1, y: 0, z: 0 };

describe('lag compensation history', () => {
  it('keeps ceil(historyMs / stepMs) + 1 ticks, interpolates inside and clamps outside', () => {
    const s = createStepper({ protocol: shapes, systems: slide, log: quiet });
    expect(createLagCompensation(s.server, { colliders: { ball: { shape: { sphere: 0.5 } } } }).historyTicks).toBe(61); // the default 1000 ms: 1000 / 16.67 = 60, + 1
    expect(createLagCompensation(s.server, { historyMs: 110, colliders: { ball: { shape: { sphere: 0.5 } } } }).historyTicks).toBe(8); // ceil(6.6) + 1
    const lag = createLagCompensation(s.server, { historyMs: 100, colliders: { ball: { shape: { sphere: 0.5 } } } });
    expect(lag.historyTicks).toBe(7); // 100 / 16.67 = 6, + 1
    const ball = s.server.spawn('ball');
    s.tick(60);
    const n = lag.newestTick!;
    expect(n).toBeGreaterThan(50);
    expect(lag.oldestTick).toBe(n - 6);
    const at = (tick: number, fraction: number) => ({ tick, fraction });
    expect(lag.rewindOf(at(n - 3, 0.25))).toEqual<Rewind>({ tick: n - 3, fraction: 0.25, clamped: false });
    expect(lag.positionAt(at(n - 3, 0.25), ball)!.x).toBeCloseTo((n - 2.75) / 10, 9); // between ticks n−3 and n−2
    // 50 ticks back is beyond the 7-tick ring: clamped to the oldest tick, fraction 0.
    expect(lag.rewindOf(at(n - 50, 0.5))).toEqual<Rewind>({ tick: n - 6, fraction: 0, clamped: true });
    expect(lag.positionAt(at(n - 50, 0.5), ball)!.x).toBeCloseTo((n - 6) / 10, 9);
    // A ray at where the ball was 50 ticks ago misses (it is 4.4 m off); one at the oldest pose hits.
    expect(lag.raycast(at(n - 50, 0), { x: (n - 50) / 10, y: 0, z: -10 }, Z, 100)).toBeUndefined();
    expect(lag.raycast(at(n - 50, 0), { x: (n - 6) / 10, y: 0, z: -10 }, Z, 100)?.distance).toBeCloseTo(9.5, 9);
    // Ahead of the newest recorded tick: clamped to it. networkId 0 (no client): the newest tick, unclamped.
    expect(lag.rewindOf(at(n + 5, 0))).toEqual<Rewind>({ tick: n, fraction: 0, clamped: true });
    expect(lag.rewindOf(0)).toEqual<Rewind>({ tick: n, fraction: 0, clamped: false });
    expect(() => lag.rewindOf(42)).toThrow(/^react-netcode: lag compensation: no connection has networkId 42/);
    // A ghost that was not there at the view is never hit; the present cast sees it.
    const late = s.server.spawn('ball');
    s.tick(1);
    const origin = { x: late.components.position.x, y: 0, z: -10 };
    expect(lag.raycast(at(n - 3, 0), origin, Z, 100)?.ghost).not.toBe(late);
    expect(lag.raycastNow(origin, Z, 100)?.ghost).toBe(late);
    const listeners = s.server.events.listenerCount;
    lag.dispose();
    expect(s.server.events.listenerCount).toBe(listeners - 1);
    expect(lag.newestTick).toBeUndefined();
  });

  it('is a bounded ring per ghost, pooled: old ticks fall out, the track of a ghost that leaves is reused', () => {
    const h = new PoseHistory<{ id: number }>(4);
    const a = { id: 1 };
    const b = { id: 2 };
    for (let t = 100; t < 110; t++) {
      h.begin(t);
      h.record(a, 0, t, 0, 0, 0, 0, 0, 1);
      h.record(b, 0, -t, 0, 0, 0, 0, 0, 1);
      h.end();
    }
    const [ta, tb] = h.tracks;
    const poses = ta!.poses;
    expect(poses.length).toBe(4 * 7); // 4 ticks × (xyz + quaternion), allocated once
    const out = new Float64Array(7);
    const r = (tick: number, fraction = 0): Rewind => ({ tick, fraction, clamped: false });
    expect(h.oldestTick).toBe(106); // 109 − (4 − 1)
    expect(h.sample(ta!, r(105), out)).toBe(false); // evicted
    expect(h.sample(ta!, r(107, 0.5), out) && out[0]).toBe(107.5);
    h.begin(110);
    h.record(a, 0, 110, 0, 0, 0, 0, 0, 1); // b left
    h.end();
    expect(h.tracks).toEqual([ta]);
    h.begin(111);
    h.record(a, 0, 111, 0, 0, 0, 0, 0, 1);
    h.record({ id: 3 }, 0, 3, 0, 0, 0, 0, 0, 1);
    h.end();
    expect(h.tracks[1]).toBe(tb); // the pooled track, cleared
    expect(h.sample(tb!, r(109), out)).toBe(false);
    expect(ta!.poses).toBe(poses);
  });
});

describe('lag compensation shapes', () => {
  function scene() {
    const s = createStepper({ protocol: shapes, log: quiet });
    const lag = createLagCompensation(s.server, {
      colliders: { ball: { shape: { sphere: 0.5 } }, crate: { shape: { box: [1, 0.5, 0.25] }, positionField: 'center', rotationField: 'rotation' }, pill: { shape: { capsule: [0.5, 0.25] } } },
    });
    const ball = s.server.spawn('ball');
    // Turned 90° about y: the box's local x (half extent 1) lies along world z, its z (0.25) along world x.
    const crate = s.server.spawn('crate', { center: { x: 0, y: 0, z: 20 }, rotation: { x: 0, y: Math.SQRT1_2, z: 0, w: Math.SQRT1_2 } });
    const pill = s.server.spawn('pill', { position: { x: 0, y: 0, z: 40 } });
    s.tick(2);
    return { lag, ball, crate, pill };
  }

  it('sphere, turned box and capsule: exact distances, nearest first, ignore, types and maxDistance', () => {
    const { lag, ball, crate, pill } = scene();
    const cast = (o: Vec3, d: Vec3, types?: ('ball' | 'crate' | 'pill')[]) => lag.raycast(0, o, d, 100, types ? { types } : {})?.distance;
    expect(cast({ x: 0, y: 0, z: -10 }, Z)).toBeCloseTo(9.5, 9); // 10 − r 0.5, the ball before the others
    expect(lag.raycast(0, { x: 0, y: 0, z: -10 }, { x: 0, y: 0, z: 3 }, 100)?.point.z).toBeCloseTo(-0.5, 9); // direction normalized
    expect(cast({ x: 0.6, y: 0, z: -10 }, Z, ['ball'])).toBeUndefined();
    expect(cast({ x: 0.1, y: 0, z: 0 }, Z, ['ball'])).toBe(0); // starts inside
    expect(cast({ x: 0, y: 0, z: 10 }, Z, ['crate'])).toBeCloseTo(9, 9); // 20 − 10 − hx 1 (turned)
    expect(cast({ x: -10, y: 0, z: 20 }, X, ['crate'])).toBeCloseTo(9.75, 9); // 10 − hz 0.25 (turned)
    expect(cast({ x: 0, y: 10, z: 40 }, { x: 0, y: -1, z: 0 }, ['pill'])).toBeCloseTo(9.25, 9); // 10 − (hh 0.5 + r 0.25)
    expect(cast({ x: -10, y: 0.5, z: 40 }, X, ['pill'])).toBeCloseTo(9.75, 9); // body edge: 10 − r
    expect(cast({ x: -10, y: 0.7, z: 40 }, X, ['pill'])).toBeCloseTo(9.85, 9); // cap: 10 − √(0.25² − 0.2²) = 10 − 0.15
    expect(cast({ x: -10, y: 0.8, z: 40 }, X, ['pill'])).toBeUndefined(); // 0.3 above the segment > r
    expect(lag.raycast(0, { x: 0, y: 0, z: -10 }, Z, 9)).toBeUndefined(); // the ball is 9.5 away
    const past = lag.raycast(0, { x: 0, y: 0, z: -10 }, Z, 100, { ignore: ball });
    expect(past?.ghost).toBe(crate);
    expect(past?.distance).toBeCloseTo(29, 9); // 30 − 1
    expect(lag.raycastNow({ x: 0, y: 0, z: -10 }, Z, 100, { types: ['pill'] })?.ghost).toBe(pill);
  });

  it('rejects bad options with react-netcode errors', () => {
    const s = createStepper({ protocol: shapes, log: quiet });
    const make = (options: unknown) => () => createLagCompensation(s.server, options as never);
    expect(make({ colliders: { tank: { shape: { sphere: 1 } } } })).toThrow(/^react-netcode: .*"tank" is not a ghost type/);
    expect(make({ colliders: { crate: { shape: { sphere: 1 } } } })).toThrow(/^react-netcode: .*vec3 field "position"/);
    expect(make({ colliders: { ball: { shape: { sphere: 1 }, rotationField: 'position' } } })).toThrow(/^react-netcode: .*not a quat field/);
    expect(make({ colliders: { ball: { shape: { sphere: -1 } } } })).toThrow(/^react-netcode: .*sphere radius must be/);
    expect(make({ colliders: { ball: { shape: { cone: 1 } } } })).toThrow(/^react-netcode: .*needs shape/);
    expect(make({ colliders: {} })).toThrow(/^react-netcode: .*at least one collider/);
    expect(make({ historyMs: 0, colliders: { ball: { shape: { sphere: 1 } } } })).toThrow(/^react-netcode: .*historyMs/);
    const lag = createLagCompensation(s.server, { colliders: { ball: { shape: { sphere: 1 } } } });
    expect(() => lag.raycastNow({ x: 0, y: 0, z: 0 }, { x: 0, y: 0, z: 0 }, 10)).toThrow(/^react-netcode: raycast direction/);
  });
});
