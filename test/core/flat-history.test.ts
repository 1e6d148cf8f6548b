// A ghost's history in flat storage (FlatHistory, predicted and confirmed histories): the ring's window, eviction and wrap,
// values of every field kind stored and read back exactly, the restore of a snapshot's tick (confirmed
// fields in, predicted-only fields kept) and the generated kernels against the reference ones.
import { describe, expect, it } from 'vitest';
import { field } from '../../src/core/field.ts';
import { FlatHistory } from '../../src/core/flat-history.ts';
import { tickAfter, tickAtOrBefore } from '../../src/core/history.ts';
import { compileKernels, historyLayout, referenceKernels } from '../../src/core/history-layout.ts';
import { Rng } from '../../src/core/rng.ts';
import { compileSchema, type Schema, type Values } from '../../src/core/schema.ts';

const schema = {
  alive: field.bool(),
  hp: field.u8(),
  ammo: field.u16({ replicated: false }),
  speed: field.f32(),
  aim: field.vec2(),
  position: field.vec3({ quantize: 1000 }),
  rotation: field.quat(),
  velocity: field.vec3({ replicated: false }),
  heading: field.f32({ sendTo: 'nonOwner' }),
  state: field.enum(['idle', 'run', 'jump']),
  name: field.string(16, { replicated: false }),
  'odd key-1': field.i32(),
};
const codec = compileSchema(schema as Schema);
type Loose = Record<string, unknown>;

function sample(rng: Rng): Values<Schema> {
  return {
    alive: rng.next() < 0.5, hp: rng.int(256), ammo: rng.int(65536), speed: rng.range(-10, 10), aim: { x: rng.range(-1, 1), y: -0 },
    position: { x: rng.range(-100, 100), y: rng.range(-100, 100), z: rng.range(-100, 100) },
    rotation: { x: 0, y: Math.sin(rng.next()), z: 0, w: Math.cos(rng.next()) }, velocity: { x: rng.next(), y: Number.NaN, z: 3 },
    heading: rng.range(0, 6), state: rng.next() < 0.5 ? 'run' : 'jump', name: `n${rng.int(100)}`, 'odd key-1': -rng.int(1e9),
  } as Values<Schema>;
}

/** A 1-field history of numbers: `value` at tick t is t. */
function numbers(capacity: number): FlatHistory {
  return new FlatHistory(compileSchema({ n: field.u32() } as Schema), capacity);
}
const n = (h: FlatHistory, tick: number): unknown => (h.get(tick) as Loose | undefined)?.['n'];
const record = (h: FlatHistory, tick: number): boolean => h.record({ n: tick } as Values<Schema>, tick);

describe('FlatHistory', () => {
  it('stores every field kind and reads it back exactly (NaN, −0, strings and enums included)', () => {
    const rng = new Rng(0x4157);
    const h = new FlatHistory(codec, 16);
    const stored = [sample(rng), sample(rng), sample(rng)];
    stored.forEach((v, i) => h.record(v, 100 + i));
    stored.forEach((v, i) => expect(h.get(100 + i)).toEqual(v));
    expect(Object.is((h.get(100) as Loose)['aim'] && ((h.get(100) as Loose)['aim'] as { y: number }).y, -0)).toBe(true);
    // read() writes into an existing object, vectors into its own vector objects.
    const out = codec.defaults() as Loose;
    const position = out['position'];
    expect(h.read(101, out as Values<Schema>)).toBe(true);
    expect(out['position']).toBe(position);
    expect(out).toEqual(stored[1]);
    expect(h.read(99, out as Values<Schema>)).toBe(false);
    // Re-recording a tick overwrites its slot.
    h.record(stored[0]!, 102);
    expect(h.get(102)).toEqual(stored[0]);
    expect(h.size).toBe(3);
  });

  it('keeps the window (newest − capacity, newest], the capacity rounded up to a power of two', () => {
    const h = numbers(5);
    expect(h.capacity).toBe(8);
    for (let t = 10; t < 18; t++) record(h, t);
    expect([h.size, h.oldestTick, h.newestTick]).toEqual([8, 10, 17]);
    expect(record(h, 9)).toBe(false); // older than the window: refused
    expect(record(h, 19)).toBe(true); // 18 skipped: 10 and 11 leave the window
    expect([h.size, h.oldestTick, h.has(10), h.has(11), h.has(12), h.has(18)]).toEqual([7, 12, false, false, true, false]);
    expect(n(h, 12)).toBe(12);
    expect(n(h, 19)).toBe(19);
    record(h, 40); // a gap longer than the window: everything else is evicted
    expect([h.size, h.oldestTick, n(h, 40), h.get(19)]).toEqual([1, 40, 40, undefined]);
    h.clear();
    expect([h.size, h.newestTick, h.oldestTick, h.get(40)]).toEqual([0, undefined, undefined, undefined]);
    expect(record(h, 3)).toBe(true); // after a clear any tick is accepted
    expect(n(h, 3)).toBe(3);
  });

  it('is wrap-safe across 2^32', () => {
    const h = numbers(4);
    for (const t of [0xffff_fffd, 0xffff_fffe, 0xffff_ffff, 0, 1]) record(h, t);
    expect([h.size, h.oldestTick, h.newestTick]).toEqual([4, 0xffff_fffe, 1]);
    expect([n(h, 0xffff_fffe), n(h, 0xffff_ffff), n(h, 0), n(h, 1), h.has(0xffff_fffd)]).toEqual([0xffff_fffe, 0xffff_ffff, 0, 1, false]);
    expect(record(h, 0xffff_fffd)).toBe(false); // 4 behind the newest, across the wrap
    const ticks: number[] = [];
    h.forEach((_v, t) => ticks.push(t));
    expect(ticks).toEqual([0xffff_fffe, 0xffff_ffff, 0, 1]); // oldest to newest
    // The tick before the newest, across the wrap and over a gap.
    const before = numbers(8);
    record(before, 0xffff_ffff);
    record(before, 0);
    expect(before.beforeNewestSlot()).toBe(before.slot(0xffff_ffff));
    record(before, 3);
    expect(before.beforeNewestSlot()).toBe(before.slot(0));
    expect(numbers(8).beforeNewestSlot()).toBe(-1);
  });

  it('forEach passes one object reused between calls; get builds a new one', () => {
    const h = numbers(8);
    for (let t = 1; t <= 3; t++) record(h, t);
    const seen: unknown[] = [];
    const values: number[] = [];
    h.forEach((v) => {
      seen.push(v);
      values.push((v as Loose)['n'] as number);
    });
    expect(values).toEqual([1, 2, 3]);
    expect(new Set(seen).size).toBe(1);
    expect(h.get(2)).not.toBe(h.get(2));
  });

  it('restore: confirmed fields into the slot and the values, predicted-only fields from the slot', () => {
    const rng = new Rng(0x7e57);
    for (const kernels of [compileKernels(historyLayout(codec)), referenceKernels(historyLayout(codec))]) {
      const h = new FlatHistory(codec, 8);
      const predicted = sample(rng) as Loose;
      const confirmed = sample(rng) as Loose;
      h.record(predicted as Values<Schema>, 50);
      const shown = sample(rng) as Loose;
      const shownPosition = shown['position'];
      kernels.restore(confirmed as Values<Schema>, h.data, h.other, h.slot(50), shown as Values<Schema>);
      const want: Loose = { ...confirmed, ammo: predicted['ammo'], velocity: predicted['velocity'], name: predicted['name'] };
      expect(shown).toEqual(want);
      expect(shown['position']).toBe(shownPosition); // written into its own objects
      expect(h.get(50)).toEqual(want); // the slot now holds the state of that tick
      // settle: the same restore when nothing is beyond tolerance; nothing written when something is.
      const again = sample(rng) as Loose;
      h.record(again as Values<Schema>, 51);
      const far = { ...again, hp: ((again['hp'] as number) + 1) % 256 } as Loose;
      const untouched = structuredClone(shown);
      expect(kernels.settle(far as Values<Schema>, h.data, h.other, h.slot(51), shown as Values<Schema>, false)).toBe(true);
      expect(shown).toEqual(untouched);
      expect(h.get(51)).toEqual(again);
      const close = { ...structuredClone(again), ammo: 1, velocity: { x: 9, y: 9, z: 9 }, name: 'other' } as Loose;
      expect(kernels.settle(close as Values<Schema>, h.data, h.other, h.slot(51), shown as Values<Schema>, false)).toBe(false);
      expect(shown).toEqual(again); // predicted-only fields from the slot, the rest from `close` (equal to `again`)
    }
  });

  it('the generated kernels store and load what the reference kernels do', () => {
    const layout = historyLayout(codec);
    const rng = new Rng(0x10ad);
    const generated = compileKernels(layout);
    const reference = referenceKernels(layout);
    for (let i = 0; i < 50; i++) {
      const v = sample(rng);
      const a = [new Float64Array(layout.width * 3), new Float64Array(layout.width * 3)];
      const x = [new Array<unknown>(layout.others * 3), new Array<unknown>(layout.others * 3)];
      generated.store(v, a[0]!, x[0]!, 2);
      reference.store(v, a[1]!, x[1]!, 2);
      expect(a[0]).toEqual(a[1]);
      expect(x[0]).toEqual(x[1]);
      const out = [codec.defaults(), codec.defaults()];
      generated.load(a[0]!, x[0]!, 2, out[0]!);
      reference.load(a[1]!, x[1]!, 2, out[1]!);
      expect(out[0]).toEqual(v);
      expect(out[1]).toEqual(v);
    }
  });

  it('tickAtOrBefore and tickAfter answer what history.ts answers for any ring (sparse ticks, evictions, the uint32 wrap)', () => {
    const rng = new Rng(0x7a11);
    for (let round = 0; round < 300; round++) {
      const h = numbers(8);
      let tick = rng.next() < 0.3 ? 0xffff_fff0 : Math.floor(rng.next() * 1000);
      for (let n = Math.floor(rng.next() * 20); n > 0; n--) record(h, (tick = (tick + 1 + Math.floor(rng.next() * 3)) >>> 0));
      for (let k = 0; k < 20; k++) {
        const at = (tick - 15 + Math.floor(rng.next() * 20)) >>> 0;
        expect(h.tickAtOrBefore(at)).toBe(tickAtOrBefore(h, at));
        expect(h.tickAfter(at)).toBe(tickAfter(h, at));
      }
    }
  });

  it('refuses a capacity that is not a positive integer', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN, 2 ** 31]) expect(() => numbers(capacity)).toThrow(/react-netcode: a ghost's history must hold an integer number of ticks/);
  });
});
