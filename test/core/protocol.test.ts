import { describe, expect, it } from 'vitest';
import { defineProtocol, field, ghost, rpc, type ProtocolDefinition } from '../../src/index.ts';

const base = {
  tickRate: 60,
  snapshotRate: 20,
  ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }), hp: field.u8() }) },
  input: { move: field.vec2({ quantize: 127 }), jump: field.event() },
  rpcs: { say: rpc.toServer({ text: field.string(100) }) },
};

describe('defineProtocol', () => {
  it('fills defaults and indexes ghosts and RPCs in declaration order', () => {
    const p = defineProtocol({});
    expect(p.tickRate).toBe(60);
    expect(p.snapshotRate).toBe(20);
    expect(p.stepMs).toBeCloseTo(16.6667, 3);
    const q = defineProtocol({ ...base, rpcs: { a: rpc.toServer({}), b: rpc.toClient({}) } });
    expect(q.rpcList.map((r) => [r.id, r.name, r.def.direction])).toEqual([
      [0, 'a', 'toServer'],
      [1, 'b', 'toClient'],
    ]);
    expect(q.ghostByName.get('player')?.id).toBe(0);
    expect(q.ghosts.player.modes).toEqual(['predicted', 'interpolated']);
  });

  it('hashes everything that affects the wire', () => {
    const h = defineProtocol(base).hash;
    expect(defineProtocol(base).hash).toBe(h); // stable
    const variants: ProtocolDefinition[] = [
      { ...base, tickRate: 30 },
      { ...base, snapshotRate: 30 },
      { ...base, ghosts: { player: ghost({ position: field.vec3({ quantize: 100 }), hp: field.u8() }) } },
      { ...base, ghosts: { player: ghost({ hp: field.u8(), position: field.vec3({ quantize: 1000 }) }) } }, // order
      { ...base, ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }), hp: field.u8() }, { modes: ['predicted'] }) } },
      { ...base, input: { move: field.vec2({ quantize: 100 }), jump: field.event() } },
      { ...base, rpcs: { say: rpc.toServer({ text: field.string(101) }) } },
      { ...base, rpcs: { say: rpc.toClient({ text: field.string(100) }) } },
      { ...base, rpcs: { say: rpc.toServer({ text: field.string(100) }, { maxBytes: 10 }) } },
      { ...base, join: { name: field.string(10) } },
    ];
    const hashes = variants.map((v) => defineProtocol(v).hash);
    expect(new Set([h, ...hashes]).size).toBe(variants.length + 1);
  });

  it('does not hash options that stay on one side (tolerance, smoothing)', () => {
    const a = defineProtocol({ ghosts: { g: ghost({ x: field.f32({ quantize: 100, tolerance: 0.1, smoothing: 'clamp' }) }) } });
    const b = defineProtocol({ ghosts: { g: ghost({ x: field.f32({ quantize: 100 }) }) } });
    expect(a.hash).toBe(b.hash);
  });

  it('rejects definitions that cannot work, saying what to do', () => {
    expect(() => defineProtocol({ tickRate: 0 })).toThrow(/react-netcode: tickRate must be an integer in 1\.\.240/);
    expect(() => defineProtocol({ tickRate: 60, snapshotRate: 61 })).toThrow(/snapshotRate must be in \(0, tickRate=60\]/);
    expect(() => defineProtocol({ rpcs: { 'bad name': rpc.toServer({}) } })).toThrow(/rpc name "bad name" must be an identifier/);
    expect(() => rpc.toServer({}, { maxBytes: 0 })).toThrow(/maxBytes must be an integer/);
    expect(() => ghost({}, { modes: [] })).toThrow(/at least one mode/);
    // A JavaScript caller (or a cast) with a misspelt mode: named, not accepted.
    expect(() => ghost({}, { modes: ['predicted', 'interpolate'] as never })).toThrow('react-netcode: ghost mode "interpolate" is not one: pass modes: ["predicted"], ["interpolated"] or both.');
  });
});

import { isSnapshotTick } from '../../src/index.ts';

describe('isSnapshotTick', () => {
  it('spreads snapshotRate snapshots evenly over tickRate ticks, as a pure function of the tick', () => {
    const p = { tickRate: 60, snapshotRate: 20 };
    const ticks = Array.from({ length: 60 }, (_, t) => t).filter((t) => isSnapshotTick(p, t));
    expect(ticks.length).toBe(20); // 20 per 60 ticks
    expect(ticks.slice(0, 4)).toEqual([2, 5, 8, 11]); // every third tick
    const odd = { tickRate: 60, snapshotRate: 25 };
    expect(Array.from({ length: 600 }, (_, t) => t).filter((t) => isSnapshotTick(odd, t)).length).toBe(250); // 25 × 10 s
    expect(Array.from({ length: 60 }, (_, t) => t).every((t) => isSnapshotTick({ tickRate: 60, snapshotRate: 60 }, t))).toBe(true);
  });
});
