import { describe, expect, it } from 'vitest';
import type { Quat, Vec3 } from '../../../src/core/field.ts';
import { Rng } from '../../../src/core/rng.ts';
import { SnapshotDecoder, SnapshotEncoder } from '../../../src/core/snapshot/index.ts';
import { BOX, expected, makeGhost, protocol } from './harness.ts';

type Motion = 'static' | 'linear' | 'random';

/**
 * Bytes per ghost per snapshot for 1000 ghosts (vec3 mm + quat 12 bits + vec3 mm), acked baselines, everything fits;
 * the client's acks reach the server `lag` snapshots after their snapshot (its round trip).
 */
function bytesPerEntity(motion: Motion, lag = 1): number {
  const rng = new Rng(42);
  const N = 1000;
  const homes = Array.from({ length: N }, () => ({ x: rng.range(-100, 100), y: rng.range(0, 10), z: rng.range(-100, 100) }));
  const vel = Array.from({ length: N }, () => ({ x: rng.range(-5, 5), y: rng.range(-1, 1), z: rng.range(-5, 5) }));
  const spin = Array.from({ length: N }, () => rng.range(-1, 1)); // rad/s about y
  const ghosts = homes.map((h, i) => makeGhost(i + 1, BOX, 0, { position: { ...h }, rotation: { x: 0, y: 0, z: 0, w: 1 }, velocity: { ...vel[i]! } }));
  const enc = new SnapshotEncoder(protocol, { budgetBytes: 60_000 });
  const state = enc.createConnectionState(1);
  const dec = new SnapshotDecoder(protocol, 1);
  let bytes = 0;
  let measured = 0;
  const acks: [number, number][] = [];
  for (let n = 1; n <= 60; n++) {
    const tick = n * 3; // 60 Hz, a snapshot every 3rd tick
    const t = tick / 60;
    for (let i = 0; i < N; i++) {
      const v = ghosts[i]!.values as { position: Vec3; rotation: Quat; velocity: Vec3 };
      if (motion === 'linear') {
        v.position = { x: homes[i]!.x + vel[i]!.x * t, y: homes[i]!.y + vel[i]!.y * t, z: homes[i]!.z + vel[i]!.z * t };
        v.rotation = { x: 0, y: Math.sin((spin[i]! * t) / 2), z: 0, w: Math.cos((spin[i]! * t) / 2) };
      } else if (motion === 'random') {
        v.position = { x: homes[i]!.x + rng.range(-3, 3), y: homes[i]!.y + rng.range(-3, 3), z: homes[i]!.z + rng.range(-3, 3) };
        v.velocity = { x: rng.range(-5, 5), y: rng.range(-5, 5), z: rng.range(-5, 5) };
        v.rotation = { x: rng.range(-1, 1), y: rng.range(-1, 1), z: rng.range(-1, 1), w: rng.range(-1, 1) };
      }
    }
    const msg = enc.encode(state, tick, ghosts);
    const s = dec.decode(msg)!;
    acks.push([dec.ackTick, dec.ackMask]);
    if (acks.length >= lag) enc.ack(state, ...acks.shift()!);
    if (n > 20) {
      bytes += msg.length;
      measured++;
      // Spot check: what arrived is what the server has.
      const g = s.updates[0];
      if (g !== undefined) expect(g.values).toEqual(expected(protocol, BOX, 0, 1, ghosts[g.id - 1]!.values));
    }
  }
  return bytes / measured / N;
}

describe('snapshot size', () => {
  it('reports bytes per entity for 1000 static, linear and random ghosts', () => {
    const result = { static: bytesPerEntity('static'), linear: bytesPerEntity('linear'), random: bytesPerEntity('random') };
    console.log(`snapshot bytes per entity (1000 ghosts, acked baselines): static ${result.static.toFixed(3)}, linear ${result.linear.toFixed(3)}, random ${result.random.toFixed(3)}`);
    // Static: acked, unchanged ghosts are left out until their refresh, every 60 ticks = 20 snapshots,
    // at ~4 bits each: 1000 × 0.5 B / 20 ≈ 25 B per snapshot, plus the ~9 B header: ≈ 0.034 B per ghost.
    expect(result.static).toBeLessThan(0.05);
    // Linear: the prediction from two acked baselines leaves ±1-step residuals: ~3 B (id, flags, 3 + 3 small codes).
    expect(result.linear).toBeLessThan(4);
    // Random: full-range deltas, still below the 28.75 B of raw floats (3×32 + 38 + 3×32 bits).
    expect(result.random).toBeLessThan(25);
    expect(result.random).toBeGreaterThan(result.linear);
  });

  it('predicts linear motion for a client whose acks come 5 snapshots late (a 250 ms round trip at 20 Hz)', () => {
    const late = bytesPerEntity('linear', 5);
    console.log(`snapshot bytes per entity, linear, acks 5 snapshots late: ${late.toFixed(3)}`);
    // The prediction extrapolates 15 ticks from baselines 3 ticks apart: residuals of a few steps, ~4 B instead of the
    // ~9 B of deltas against the newest baseline alone (up to 12 cm of motion per axis between them).
    expect(late).toBeLessThan(4.5);
  });
});
