// Scenarios of the snapshot conformance suite: random protocols (every field kind with
// random options), random values from each field's full range, and a run that feeds the
// same ghosts, losses, reordering, churn, budgets, owners, inputs and acks to several
// encoders (one per kernel mode) and checks that every message is the same, byte for
// byte, and that the clients decode exactly the server's quantized state.

import { expect } from 'vitest';
import { field, type Field } from '../../../src/core/field.ts';
import { defineProtocol, ghost, type Protocol } from '../../../src/core/protocol.ts';
import { Rng } from '../../../src/core/rng.ts';
import type { KernelMode } from '../../../src/core/snapshot/kernels.ts';
import { SnapshotDecoder, SnapshotEncoder, type SnapshotGhost, type SnapshotInput } from '../../../src/core/snapshot/index.ts';
import { expected, protocol as fixedProtocol, randomQuat } from './harness.ts';

type Values = Record<string, unknown>;
type SendTo = 'all' | 'owner' | 'nonOwner';

/** A random field of any kind, with random options (quantization, bits, lengths, enum values, sendTo, replicated). */
function randomField(rng: Rng): Field<unknown> {
  const opts = { sendTo: (['all', 'all', 'all', 'owner', 'nonOwner'] as const)[rng.int(5)] as SendTo, replicated: !rng.chance(0.1) };
  const q = rng.chance(0.5) ? { quantize: [1, 10, 100, 1000, 4096][rng.int(5)]! } : {};
  const make = [
    () => field.bool(opts), () => field.u8(opts), () => field.u16(opts), () => field.u32(opts), () => field.i32(opts), () => field.event(opts),
    () => field.f32({ ...opts, ...q }), () => field.vec2({ ...opts, ...q }), () => field.vec3({ ...opts, ...q }),
    () => field.quat({ ...opts, bits: 4 + rng.int(13) }), () => field.string(1 + rng.int(20), opts),
    () => field.enum(Array.from({ length: 1 + rng.int(9) }, (_, i) => `v${i}`) as [string, ...string[]], opts),
  ];
  return make[rng.int(make.length)]!() as Field<unknown>;
}

/** A protocol of 1–3 ghost types with 1–12 random fields each. */
export function randomProtocol(rng: Rng): Protocol {
  const ghosts: Record<string, ReturnType<typeof ghost>> = {};
  for (let t = 0, n = 1 + rng.int(3); t < n; t++) {
    const fields: Record<string, Field<unknown>> = {};
    for (let f = 0, m = 1 + rng.int(12); f < m; f++) fields[`f${f}`] = randomField(rng);
    ghosts[`t${t}`] = ghost(fields as never);
  }
  return defineProtocol({ ghosts, input: { move: field.vec2({ quantize: 100 }), fire: field.event() } });
}

const STRINGS = ['', 'a', 'héllo', '日本語', '🙂 ok', 'xxxxxxxxxxxxxxxxxxxx'];

/** A valid value for `f`, from its whole range (edges, −0, big magnitudes) or near `prev` (small steps, as moving ghosts). */
export function randomValue(rng: Rng, f: Field<unknown>, prev: unknown): unknown {
  const near = prev !== undefined && rng.chance(0.6);
  const scalar = (p: unknown, lo: number, hi: number): number => (near && typeof p === 'number' ? p + rng.range(-0.05, 0.05) * (hi - lo) * 1e-3 : rng.range(lo, hi));
  const float = (p?: unknown): number => {
    const factor = f.quantizeFactor ?? 1;
    return rng.chance(0.1) ? [0, -0, 0.5 / factor, -0.5 / factor, 1e-30][rng.int(5)]! : scalar(p, -1e5, 1e5);
  };
  switch (f.kind) {
    case 'bool': return rng.chance(0.5);
    case 'u8': return rng.int(256);
    case 'u16': return rng.chance(0.1) ? 65535 : rng.int(65536);
    case 'u32': case 'event': return rng.chance(0.1) ? 0xffff_ffff : rng.nextUint32();
    case 'i32': return rng.chance(0.1) ? -0x8000_0000 : rng.nextUint32() | 0;
    case 'f32': return float(prev);
    case 'vec2': case 'vec3': {
      const p = (prev ?? {}) as Values;
      const v: Values = { x: float(p.x), y: float(p.y) };
      if (f.kind === 'vec3') v.z = float(p.z);
      return v;
    }
    case 'quat': return randomQuat(rng);
    case 'string': return STRINGS[rng.int(STRINGS.length)]!.slice(0, f.maxLength);
    case 'enum': return f.values![rng.int(f.values!.length)];
  }
}

export interface Scenario {
  seed: number;
  /** The fixed test protocol (harness.ts), or a random one drawn from the seed. */
  randomProtocol: boolean;
  ticks: number;
  clients: number;
  ghosts: number;
  budgetBytes: number;
  refreshTicks: number;
  /** Per tick: chance a ghost keeps its values; chance of a spawn and of a despawn. */
  still: number;
  churn: number;
  /** Chance a message (or its ack) is lost; most ticks a message or ack waits before delivery (reordering). */
  loss: number;
  maxDelay: number;
  /** Chance a client gets no snapshot at a tick. */
  skip: number;
  inputs: boolean;
  predicted: boolean;
}

export function randomScenario(rng: Rng, seed: number): Scenario {
  return {
    seed, randomProtocol: rng.chance(0.5), ticks: 10 + rng.int(30), clients: 1 + rng.int(5), ghosts: rng.int(60),
    budgetBytes: rng.chance(0.3) ? 64 + rng.int(800) : 60_000, refreshTicks: 1 + rng.int(20),
    still: rng.chance(0.5) ? 0 : rng.range(0, 1), churn: rng.chance(0.5) ? 0 : rng.range(0, 0.5),
    loss: rng.chance(0.4) ? 0 : rng.range(0, 0.4), maxDelay: rng.int(3), skip: rng.chance(0.7) ? 0 : rng.range(0, 0.3),
    inputs: rng.chance(0.3), predicted: rng.chance(0.3),
  };
}

interface Flight {
  at: number;
  c: number;
  data: Uint8Array | { tick: number; mask: number };
}

/**
 * Run `s` on one encoder per mode; every message must be equal to the first mode's (the
 * reference), and every decoded ghost equal to the server's quantized values. Returns the messages compared.
 */
export function runScenario(s: Scenario, modes: readonly KernelMode[]): number {
  const rng = new Rng(s.seed);
  const p = s.randomProtocol ? randomProtocol(rng) : fixedProtocol;
  const encoders = modes.map((kernels) => new SnapshotEncoder(p, { budgetBytes: s.budgetBytes, refreshTicks: s.refreshTicks, kernels }));
  const states = encoders.map((e) => Array.from({ length: s.clients }, (_, c) => e.createConnectionState(c + 1)));
  const decoders = Array.from({ length: s.clients }, (_, c) => new SnapshotDecoder(p, c + 1));
  const codecs = p.ghostList.map((g) => g.codec);
  let nextId = 1;
  const spawn = (): SnapshotGhost & { values: Values } => {
    const typeId = rng.int(codecs.length);
    const codec = codecs[typeId]!;
    const values: Values = {};
    for (const key of codec.keys) values[key] = randomValue(rng, codec.schema[key]!, undefined);
    const g = { id: nextId, typeId, owner: rng.chance(0.4) ? 1 + rng.int(s.clients + 1) : 0, values };
    nextId += 1 + (rng.chance(0.1) ? rng.int(5000) : 0);
    return g;
  };
  let ghosts = Array.from({ length: s.ghosts }, spawn);
  let flights: Flight[] = [];
  let compared = 0;
  /** The ghosts as each tick's messages were made from them. */
  const frozen = new Map<number, Map<number, SnapshotGhost & { values: Values }>>();
  for (let n = 0; n < s.ticks; n++) {
    const tick = 100 + n * 3;
    for (const g of ghosts) {
      if (rng.chance(s.still)) continue;
      const codec = codecs[g.typeId]!;
      for (const key of codec.keys) if (rng.chance(0.5)) g.values[key] = randomValue(rng, codec.schema[key]!, g.values[key]);
    }
    if (rng.chance(s.churn)) ghosts.push(spawn());
    if (rng.chance(s.churn) && ghosts.length > 0) {
      const [gone] = ghosts.splice(rng.int(ghosts.length), 1);
      for (const e of encoders) e.forget(gone!.id);
    }
    ghosts = [...ghosts].sort((a, b) => a.id - b.id);
    frozen.set(tick, new Map(ghosts.map((g) => [g.id, { ...g, values: structuredClone(g.values) }])));
    // What arrives by now, in a shuffled order: snapshots are decoded (and acked, on the way back), acks applied.
    const due = flights.filter((f) => f.at <= n);
    flights = flights.filter((f) => f.at > n);
    for (let i = due.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [due[i], due[j]] = [due[j]!, due[i]!];
    }
    for (const f of due) deliver(f, n);
    const inputs: SnapshotInput[] | undefined = s.inputs ? [{ networkId: 1, values: { ...p.input.defaults(), move: { x: rng.range(-1, 1), y: 0 }, fire: n } }] : undefined;
    const predicted = s.predicted ? (g: SnapshotGhost): boolean => g.owner === 1 : undefined;
    const opts = { ...(inputs ? { inputs } : {}), ...(predicted ? { predicted } : {}) };
    for (let c = 0; c < s.clients; c++) {
      if (rng.chance(s.skip)) continue;
      const first = encoders[0]!.encode(states[0]![c]!, tick, ghosts, opts).slice();
      for (let m = 1; m < encoders.length; m++) {
        const other = encoders[m]!.encode(states[m]![c]!, tick, ghosts, opts);
        if (!same(other, first)) expect(other, `seed ${s.seed} tick ${tick} client ${c} ${modes[m]}`).toEqual(first);
      }
      compared++;
      if (!rng.chance(s.loss)) flights.push({ at: n + rng.int(s.maxDelay + 1), c, data: first });
    }
  }
  return compared;

  function deliver(f: Flight, n: number): void {
    if (!(f.data instanceof Uint8Array)) {
      for (let m = 0; m < encoders.length; m++) encoders[m]!.ack(states[m]![f.c]!, f.data.tick, f.data.mask);
      return;
    }
    const d = decoders[f.c]!;
    const out = d.decode(f.data);
    if (out === null) return; // older than what the client has
    const then = frozen.get(out.tick)!;
    for (const g of [...out.spawns, ...out.updates]) {
      const truth = then.get(g.id)!;
      const want = expected(p, truth.typeId, truth.owner, f.c + 1, truth.values);
      if (!same(g.values, want)) expect(g.values, `seed ${s.seed} tick ${out.tick} ghost ${g.id}`).toEqual(want);
    }
    if (!rng.chance(s.loss)) flights.push({ at: n + rng.int(s.maxDelay + 1), c: f.c, data: { tick: d.ackTick, mask: d.ackMask } });
  }
}

/** Deep equality as `toEqual` sees it (Object.is on numbers, so 0 and −0 differ), without its cost; `expect` runs on a mismatch. */
export function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
    const [x, y] = [a as unknown as ArrayLike<number>, b as unknown as ArrayLike<number>];
    if (x.length !== y.length || a.constructor !== b.constructor) return false;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
    return true;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
