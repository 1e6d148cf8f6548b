// One truth for inputs (issue 16): whatever a client sends, the server's systems, the
// input it replicates to other clients, their prediction of that player and the sender's
// own prediction all see the same sanitized, clamped values.

import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, system } from '../../src/index.ts';
import type { BitWriter } from '../../src/core/bits.ts';
import { MessageKind } from '../../src/core/wire.ts';
import { createStepper } from '../../src/testing/index.ts';
import { joinedRawPeer, rawMessage } from '../helpers/raw-peer.ts';

const protocol = defineProtocol({
  ghosts: { player: ghost({ x: field.f32({ quantize: 1000 }) }) },
  input: { move: field.vec2({ quantize: 100, maxLength: 1 }), aim: field.f32({ min: -1, max: 1 }), weapon: field.u8({ max: 3 }), fire: field.event() },
  join: { name: field.string(16) },
});

type Seen = { move: [number, number]; aim: number; weapon: number; fire: number };
/** What systems saw, per side and owner: the newest input of each owner. */
const seen = { server: new Map<number, Seen>(), client: new Map<number, Seen>(), fires: { server: 0, client: 0 } };

const systems = defineSystems(protocol, [
  system.shared('record', (world, ctx) => {
    for (const p of world.query('player')) {
      const i = ctx.input(p);
      const entry: Seen = { move: [i.move.x, i.move.y], aim: i.aim, weapon: i.weapon, fire: i.fire };
      if (ctx.isServer) {
        seen.server.set(p.owner, entry);
        seen.fires.server += i.fire;
      } else if (ctx.isFirstTimeFullyPredictingTick) {
        seen.client.set(p.owner, entry);
        if (p.owner === ctx.localNetworkId) seen.fires.client += i.fire;
      }
    }
  }),
]);

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);
function writeRawF32(w: BitWriter, v: number): void {
  f32[0] = v;
  w.writeBits(f32Bits[0]!, 32);
}

/** An Input packet for one tick, written field by field (nothing validated). */
function input(tick: number, v: { moveX: number; aim: number; weapon: number; fire: number }): Uint8Array {
  return rawMessage((w) => {
    w.writeBits(MessageKind.Input, 8);
    w.writeBits(tick >>> 0, 32);
    w.writeBits(1, 8);
    w.writeVarInt(Math.round(v.moveX * 100)); // move.x, quantize 100
    w.writeVarInt(0); // move.y
    writeRawF32(w, v.aim); // aim: raw float32, NaN and ±Infinity included
    w.writeBits(v.weapon, 8); // weapon: u8
    w.writeVarUint(v.fire >>> 0); // fire: running count
    w.writeBits(0, 32);
    w.writeBits(0, 16);
    w.writeBits(0, 32);
    w.writeBits(0, 32);
  });
}

function arena(server: { maxInputLeadMs?: number } = {}) {
  seen.server.clear();
  seen.client.clear();
  seen.fires.server = seen.fires.client = 0;
  const s = createStepper({ protocol, systems, clients: 1, log: () => {}, server });
  s.server.events.on('join', (c) => s.server.spawn('player', {}, { owner: c.networkId }));
  s.joinAll({ name: 'good' });
  const { peer: attacker, connection: bad } = joinedRawPeer(s, protocol, { name: 'bad' });
  const good = s.clients[0]!.client;
  s.advance(1000);
  return { s, attacker, good, bad };
}

describe('one truth for inputs', () => {
  it('a peer sending move (1e6, 0), aim 5, weapon 200, fire +2^31−1: every side sees (1, 0), 1, 3 and at most 32 presses', () => {
    const { s, attacker, good, bad } = arena();
    const aOnGood = [...good.world.query('player')].find((g) => g.owner === bad.networkId)!;
    expect(good.setGhostMode(aOnGood, 'predicted')).toBe(true); // the good client predicts the attacker
    for (let i = 0; i < 40; i++) {
      attacker.send(input(s.server.currentTick + 2, { moveX: 1e6, aim: 5, weapon: 200, fire: 0x7fff_ffff }), 'unreliable');
      s.tick(1);
    }
    const expected: Seen = { move: [1, 0], aim: 1, weapon: 3, fire: 0 };
    // Server systems: move scaled to maxLength 1, aim clamped to max 1, weapon to max 3.
    expect(seen.server.get(bad.networkId)).toEqual(expected);
    // The good client's prediction of the attacker, from the replicated input (presses are never replicated).
    expect(seen.client.get(bad.networkId)).toEqual(expected);
    // The first tick carried 2^31 − 1 presses: capped at maxPerTick 32, later ticks 0 (same count).
    expect(s.server.world.get(aOnGood.id)).toBeDefined();
    const stats = s.server.inputStats(bad)!;
    // Per stored input (some of the 40 land on the same tick: duplicates): move, aim and weapon
    // clamped (3 fields), + 1 for the capped presses.
    expect(stats.received).toBeGreaterThan(20);
    expect(stats.clamped).toBe(3 * stats.received + 1);
    expect(attacker.closed()).toBeUndefined();
  });

  it('the sender’s own prediction sees what the server sees, presses capped alike', () => {
    const { s, good } = arena();
    const firesBefore = { ...seen.fires };
    good.input.current.move.x = 1e6;
    good.input.current.aim = 5;
    good.input.current.weapon = 200;
    good.input.press('fire', 100); // 100 presses in one tick: maxPerTick is 32
    s.tick(30);
    const me = good.networkId!;
    expect(seen.client.get(me)).toEqual({ move: [1, 0], aim: 1, weapon: 3, fire: 0 });
    expect(seen.server.get(me)).toEqual({ move: [1, 0], aim: 1, weapon: 3, fire: 0 });
    expect(seen.fires.server - firesBefore.server).toBe(32);
    expect(seen.fires.client - firesBefore.client).toBe(32);
    // Committed 30+ ticks with move, aim, weapon each fixed (3 per tick), + 1 for the presses.
    expect(good.input.clamped % 3).toBe(1);
  });

  it('NaN and ±Infinity in a raw float become the field default (docs/prediction.md), the connection stays', () => {
    const { s, attacker, bad } = arena();
    for (const aim of [NaN, Infinity, -Infinity]) {
      attacker.send(input(s.server.currentTick + 1, { moveX: 0.5, aim, weapon: 1, fire: 0 }), 'unreliable');
      s.tick(3); // delivered, stored, simulated
      expect(seen.server.get(bad.networkId)).toEqual({ move: [0.5, 0], aim: 0, weapon: 1, fire: 0 });
    }
    expect(s.server.inputStats(bad)!.clamped).toBe(3); // aim, three times
    expect(attacker.closed()).toBeUndefined();
  });

  it('inputs further ahead than maxInputLeadMs are dropped as early and do not move the reported margin', () => {
    const { s, attacker, bad } = arena({ maxInputLeadMs: 1000 });
    const stats = s.server.inputStats(bad)!;
    // maxInputLeadMs 1000 = 60 ticks at 60 Hz: an input 60 or more ahead is dropped. The
    // packets are handled in the server's next tick or the one after: 64 ahead stays ≥ 60, 50 stays < 60.
    attacker.send(input(s.server.currentTick + 50, { moveX: 1, aim: 0, weapon: 1, fire: 0 }), 'unreliable');
    attacker.send(input(s.server.currentTick + 64, { moveX: 1, aim: 0, weapon: 1, fire: 0 }), 'unreliable');
    s.tick(3);
    expect([stats.received, stats.early]).toEqual([1, 1]);
    expect(s.server.connections.get(bad.networkId)).toBeDefined();
    // The margin Pongs report follows the newest stored input (50 − 1..2 ticks ahead when handled), not the dropped one.
    attacker.ping();
    s.tick(2);
    const margin = attacker.pongs.at(-1)!.inputMarginTicks;
    expect(margin).toBeGreaterThanOrEqual(48);
    expect(margin).toBeLessThanOrEqual(50);
  });

  it('a system that writes into the input it got does not change what the next system reads', () => {
    const order: number[] = [];
    const tamper = defineSystems(protocol, [
      system.server('tamper', (world, ctx) => {
        for (const p of world.query('player')) ctx.input(p).move.x = 99;
      }),
      system.server('read', (world, ctx) => {
        for (const p of world.query('player')) order.push(ctx.input(p).move.x);
      }),
    ]);
    const s = createStepper({ protocol, systems: tamper, clients: 1, log: () => {} });
    s.server.events.on('join', (c) => s.server.spawn('player', {}, { owner: c.networkId }));
    s.joinAll({ name: 'good' });
    s.clients[0]!.client.input.current.move.x = 0.5;
    s.tick(20);
    expect(order.length).toBeGreaterThan(10);
    expect(order.slice(-5)).toEqual([0.5, 0.5, 0.5, 0.5, 0.5]);
  });
});
