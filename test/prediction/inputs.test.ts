// The input pipeline end to end over the Stepper: InputEvent presses are counted
// exactly once on the server and once in first-time prediction whatever the link does,
// and a hidden page (setPaused) stops the player within the documented number of ticks.

import { beforeEach, describe, expect, it } from 'vitest';
import { defineSystems, system, tickDiff } from '../../src/index.ts';
import { Rng } from '../../src/internals.ts';
import { dropInputs, FRAME_MS, inputRun } from '../helpers/input-run.ts';
import { runnerProtocol, runnerSystems, seen, SPEED } from '../helpers/runner.ts';

const bad = { latencyMs: 75, jitterMs: 20 }; // 150 ms RTT ± 20 ms each way
const STEP = SPEED / 60; // 4 m/s over one 60 Hz tick = 0.0667 m

beforeEach(() => {
  seen.server = seen.clientFirst = seen.clientResim = 0;
});

describe('input events', () => {
  it('60 Hz, 150 ms RTT ± 20 ms, 10 % loss, 1000 presses: 1000 on the server, 1000 in first-time prediction, side effects never repeated', () => {
    const perTick = new Map<number, number>(); // server tick → presses the server's systems saw in it
    const systems = defineSystems(runnerProtocol, [
      ...runnerSystems,
      // A push the client cannot predict, every 0.5 s: a misprediction, so a rollback whose
      // resimulation replays the ticks (and presses) since the snapshot, whatever the seed.
      system.server('push', (world, ctx) => {
        if (ctx.tick % 30 === 0) for (const r of world.query('runner')) r.components.position.z += 0.1;
      }),
      system.server('probe', (world, ctx) => {
        for (const r of world.query('runner')) {
          const presses = ctx.input(r).jump;
          if (presses > 0) perTick.set(ctx.tick, presses);
        }
      }),
    ]);
    // No extra slack after missing inputs (maxMissSlackPackets: 0): late presses must happen, to be carried.
    const { s, c, client, me, serverGhost, stats, since, confirmed } = inputRun({ link: { ...bad, loss: 0.1 }, systems, seed: 9, engine: { clock: { maxMissSlackPackets: 0 } } });
    const before = stats();
    const rollbacksBefore = client.prediction!.stats.rollbacks;
    expect(seen).toEqual({ server: 0, clientFirst: 0, clientResim: 0 }); // nothing pressed yet

    // The plan: 30 % of frames press 1..4 times (seeded), until 1000 presses in all, while the
    // stick moves every frame, so a tick the server runs with a repeated input is a misprediction.
    const rng = new Rng(2024);
    let left = 1000;
    let multi = 0;
    let frames = 0;
    while (left > 0) {
      if (rng.chance(0.3)) {
        const n = Math.min(left, 1 + rng.int(4));
        client.input.press('jump', n);
        left -= n;
        if (n > 1) multi++;
      }
      client.input.current.move.x = Math.round(Math.sin(frames / 20) * 100) / 100;
      s.advance(FRAME_MS);
      frames++;
    }
    s.advance(2000); // far more than the last input's trip and lead (≤ 95 ms + ≈ 7 ticks) plus a snapshot back (≤ 95 + 50 ms)

    expect(seen.server).toBe(1000); // each press runs once on the server
    expect(seen.clientFirst).toBe(1000); // and once in first-time prediction, rollbacks notwithstanding
    expect([...perTick.values()].reduce((a, b) => a + b, 0)).toBe(1000); // the probe agrees: Σ presses per tick = 1000
    // The side effect (jumps += presses) was not repeated anywhere:
    expect(serverGhost.components.jumps).toBe(1000); // server: 1000 presses → 1000 jumps
    expect(confirmed().jumps).toBe(1000); // the client's confirmed (replicated) state
    expect(me.components.jumps).toBe(1000); // and its predicted state, after resimulations

    // The case is real: several presses in one tick, lost and late input copies, and rollbacks.
    expect(multi).toBeGreaterThan(100); // 3 in 4 pressing frames press 2–4 times: 299 of ≈ 1360 frames here
    expect(Math.max(...perTick.values())).toBeGreaterThanOrEqual(4); // the server ran ticks with ≥ 4 presses at once (7 here: late presses pile up)
    expect(c.link!.up.stats.dropped).toBeGreaterThan(0.08 * frames); // 10 % of ≥ 1 packet per frame up (inputs, pings, acks): 247 lost here
    const d = since(before);
    expect(d.late + d.missing).toBeGreaterThan(0); // ticks that ran without their input, presses moved to a later tick (6 ticks, 11 late copies here)
    expect(client.prediction!.stats.rollbacks - rollbacksBefore).toBeGreaterThan(frames / 30 / 2); // one push per 30 ticks ≈ 45, plus late inputs: 53 here
    expect(seen.clientResim).toBeGreaterThan(0); // presses were seen again while resimulating, to rebuild the same state (391 here)
  });
});

describe('hidden page', () => {
  /** Hold move.x = 1 for 1 s, pause, and record the server ghost's x after every server tick for 1 s. */
  function pauseWhileRunning(options: Parameters<typeof inputRun>[0], losePausePacket = false) {
    const run = inputRun(options);
    const { s, c, client, serverGhost } = run;
    const dropper = dropInputs(c, (n) => losePausePacket && n === 0); // n = 0: the packet setPaused(true) sends
    client.input.current.move.x = 1;
    s.advance(1000);
    const xs: number[] = [];
    s.server.events.on('tick', () => xs.push(serverGhost.components.position.x));
    const x0 = serverGhost.components.position.x;
    const serverTick = s.server.currentTick; // the tick the server simulates next
    const lead = tickDiff(client.clock.predictedTick, serverTick);
    const lastTick = client.prediction!.lastTick!;
    dropper.enabled = true;
    client.setPaused(true);
    expect(dropper.sent).toBe(3); // the Input packet carrying the neutral inputs, at once, three times (nothing repeats it later)
    expect(client.input.current.move.x).toBe(0); // the live input went neutral
    s.advance(1000);
    expect(xs.length).toBe(60); // 1 s of server ticks
    expect(client.prediction!.lastTick).toBe(lastTick); // no prediction while paused
    expect(dropper.sent).toBe(3); // …and no more Input packets
    return { ...run, xs, x0, lead };
  }

  /** Ticks (after the pause) in which the server's player still moved. */
  const movingTicks = (x0: number, xs: readonly number[]) => xs.filter((x, i) => x !== (i === 0 ? x0 : xs[i - 1])).length;

  it.each([
    ['4 inputs per packet (default)', {}],
    ['1 input per packet', { inputsPerPacket: 1 }],
  ])('stops the player within leadTicks + 1 server ticks of setPaused(true) (%s); setPaused(false) resyncs and prediction resumes', (_label, engine) => {
    const { s, client, me, serverGhost, xs, x0, lead } = pauseWhileRunning({ link: bad, engine });
    expect(lead).toBeGreaterThanOrEqual(4); // the one-way trip alone (75 ms = 4.5 ticks) keeps ≥ 4 ticks of input in flight (5 here)
    // Inputs sent before the pause still run: ticks serverTick … serverTick + lead (lead + 1 ticks) move…
    expect(movingTicks(x0, xs)).toBe(lead + 1);
    expect(xs[lead]! - x0).toBeCloseTo((lead + 1) * STEP, 9); // (lead + 1) ticks × 4 m/s / 60 = 0.4 m for lead 5
    expect(xs[lead - 1]).toBeLessThan(xs[lead]!); // …up to the last one (the bound is tight)…
    expect(xs.slice(lead).every((x) => x === xs[lead])).toBe(true); // …then the neutral inputs stop it for good

    // Back: the clock forgets its time base, resyncs on a fresh pong, and prediction goes on.
    const pausedAt = client.prediction!.lastTick!;
    client.setPaused(false);
    expect(client.clock.synced).toBe(false);
    const took = s.until(() => client.clock.synced, 1000, 'the clock to resync');
    expect(took).toBeLessThanOrEqual(100 + 150 + 40 + 2 * FRAME_MS); // next ping (≤ 100 ms) + RTT (150 ± 2 × 20 ms) + 2 frames of rounding = 323 ms (250 here)
    client.input.current.move.x = 1;
    const predictedX = me.components.position.x;
    const serverX = serverGhost.components.position.x;
    s.advance(1000);
    expect(tickDiff(client.prediction!.lastTick!, pausedAt)).toBeGreaterThanOrEqual(120); // (1 s paused + 0.25 s resync + 1 s) × 60 ≈ 135 ticks on (134 here)
    expect(me.components.position.x - predictedX).toBeGreaterThanOrEqual(54 * STEP); // 1 s at time scale ≥ 0.9 predicts ≥ 54 ticks × 0.0667 m = 3.6 m (4.0 here)
    expect(serverGhost.components.position.x - serverX).toBeGreaterThanOrEqual(50 * STEP); // the server follows ≤ 10 ticks behind: ≥ 50 × 0.0667 = 3.33 m (3.67 here)
  });

  it('stops the player within leadTicks + 1 ticks even when a copy of the pause packet is lost', () => {
    // Every ordinary input travels in 4 packets, so a single loss costs nothing (redundancy.test.ts);
    // nothing follows the pause packet, so it is sent three times. Were it sent once and lost, the
    // server would repeat the held input (move.x = 1) for maxInputRepeatTicks = 8 more ticks.
    const { xs, x0, lead } = pauseWhileRunning({ link: bad }, true);
    expect(movingTicks(x0, xs)).toBeLessThanOrEqual(lead + 1);
  });
});
