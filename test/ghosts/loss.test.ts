// Snapshots over a bad link: every ghost in every snapshot the client decodes must
// equal, bit for bit, the server's quantized state at that snapshot's tick.

import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/index.ts';
import { createRng } from '../../src/internals.ts';
import { createStepper } from '../../src/testing/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';

const quiet: Logger = () => {};

describe('snapshots under loss, duplication and reordering', () => {
  it('decode bit-identically to the server’s quantized state', () => {
    const bad = { latencyMs: 40, jitterMs: 15, loss: 0.2, duplicate: 0.1, reorder: 0.1 };
    const s = createStepper({ protocol: arena, systems: arenaSystems, seed: 11, log: quiet, clients: [{ link: { up: bad, down: bad } }, { link: { up: bad, down: bad } }] });
    s.server.events.on('join', (c) => s.server.spawn('player', { hp: 100 }, { owner: c.networkId }));
    const rng = createRng(5);
    for (let i = 0; i < 60; i++) {
      s.server.spawn('ball', {
        position: { x: rng.range(-10, 10), y: 0, z: rng.range(-10, 10) },
        velocity: { x: rng.range(-3, 3), y: 0, z: rng.range(-3, 3) },
        spin: { x: 0, y: Math.sin(i), z: 0, w: Math.cos(i) },
        kind: i % 2 ? 'red' : 'blue',
      });
    }
    // The server's quantized truth per tick, recorded after each tick's systems ran.
    const truth = new Map<number, Map<number, string>>();
    s.server.events.on('tick', (tick) => {
      const byId = new Map<number, string>();
      for (const g of s.server.world.all()) {
        const codec = arena.ghostByName.get(g.type)!.codec;
        byId.set(g.id, JSON.stringify(codec.quantize(g.components as never)));
      }
      truth.set(tick, byId);
    });
    let checked = 0;
    let mismatches = 0;
    for (const c of s.clients) {
      c.client.ghosts.events.on('update', (g, tick) => {
        const rec = c.client.ghosts.record(g.id)!;
        const got = rec.history.get(tick)!;
        const want = JSON.parse(truth.get(tick)!.get(g.id)!) as Record<string, unknown>;
        const wire = Object.fromEntries(Object.entries(want).filter(([k]) => !(g.type === 'player' && k === 'secret' && g.owner !== c.client.networkId)));
        const gotWire = Object.fromEntries(Object.keys(wire).map((k) => [k, (got as Record<string, unknown>)[k]]));
        checked++;
        if (JSON.stringify(gotWire) !== JSON.stringify(wire)) mismatches++;
      });
    }
    s.joinAll({ name: 'p' }, 30_000);
    s.advance(20_000);
    // 20 s at 20 Hz = 400 snapshots per client; at 20 % loss about 320 arrive, each with up to 62 ghosts
    // (the 1200-byte budget spreads them): many thousands of ghost states checked.
    expect(checked).toBeGreaterThan(10_000);
    expect(mismatches).toBe(0);
    for (const c of s.clients) expect(c.client.ghosts.rejectedSnapshots).toBe(0);
  });
});
