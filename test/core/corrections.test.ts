// CorrectionLog: a correction is named once the server's input reports cover its tick,
// which can be frames later. A stall seen before then must still explain it, even when
// later frames skipped other ticks meanwhile (slow pages skip on every frame).
import { describe, expect, it } from 'vitest';
import { CorrectionLog, type Correction, type CorrectionContext } from '../../src/core/corrections.ts';
import { InputReports } from '../../src/core/input/index.ts';
import type { Tick } from '../../src/core/clock/tick.ts';

function setup() {
  const context: { reports: InputReports; lastSkip: { from: Tick; to: Tick } | undefined; clockJumps: { from: Tick; to: Tick }[]; delayChanges: Tick[] } = {
    reports: new InputReports(),
    lastSkip: undefined,
    clockJumps: [],
    delayChanges: [],
  };
  const named: Correction[] = [];
  const log = new CorrectionLog(context as CorrectionContext, (c) => named.push(c));
  return { context, named, log };
}

const record = (fromTick: number, tick: number) => ({ ghostId: 7, type: 'player', local: true, fromTick: fromTick as Tick, tick: tick as Tick, distance: 0.5 });

describe('CorrectionLog', () => {
  it('names a stall that skipped ticks in the window, although a later frame skipped again before the name was due', () => {
    const { context, named, log } = setup();
    context.lastSkip = { from: 102 as Tick, to: 105 as Tick }; // a frame skipped 102..105
    log.resolve(0);
    log.add(record(100, 110), 0); // the misprediction arose in (100, 110]
    context.lastSkip = { from: 120 as Tick, to: 125 as Tick }; // the next slow frame skipped again
    log.resolve(16);
    expect(named).toEqual([]); // no input report covers tick 110 yet
    context.reports.onPong(0, 0, 130 as Tick);
    log.resolve(32);
    expect(named.map((c) => c.cause)).toEqual(['stall']);
    expect(named[0]!.detail).toContain('skipped ticks 102..105');
    expect(log.byCause.stall).toBe(1);
  });

  it('does not blame a stall outside the window', () => {
    const { context, named, log } = setup();
    context.lastSkip = { from: 90 as Tick, to: 99 as Tick }; // ends before fromTick: the state at 100 agreed with the server
    log.add(record(100, 110), 0);
    context.reports.onPong(0, 0, 130 as Tick);
    log.resolve(16);
    expect(named.map((c) => c.cause)).toEqual(['unexplained']);
  });

  it('keeps the newest 64 in recent, oldest first, reusing the oldest object for the next one', () => {
    const { context, named, log } = setup();
    context.reports.onPong(0, 0, 10_000 as Tick);
    for (let i = 0; i < 70; i++) {
      log.add({ ...record(100 + i, 110 + i), ghostId: i }, 0);
      log.resolve(0);
    }
    expect(log.total).toBe(70);
    expect(log.recent).toHaveLength(64);
    expect(log.recent.map((c) => c.ghostId)).toEqual([...Array(64).keys()].map((i) => i + 6));
    expect(new Set(log.recent).size).toBe(64);
    // The 65th correction was written into the first one's object: a listener copies what it keeps.
    expect(named[64]).toBe(named[0]);
    expect(named[0]!.ghostId).toBe(70 - 6);
  });

  it('keeps naming corrections when the app put objects of its own into recent (they are dropped, not reused)', () => {
    const { context, named, log } = setup();
    context.reports.onPong(0, 0, 10_000 as Tick);
    log.add(record(100, 110), 0);
    log.resolve(0);
    log.recent.push({ ...log.recent[0]! }); // an app keeping a copy in the public list
    for (let i = 0; i < 70; i++) {
      log.add({ ...record(100 + i, 110 + i), ghostId: i }, 0);
      log.resolve(0);
    }
    expect(log.total).toBe(71);
    expect(named).toHaveLength(71);
    expect(log.recent).toHaveLength(64);
    expect(log.recent.at(-1)!.ghostId).toBe(69);
  });

  it("builds each cause's detail when read, and a spread copy keeps it", () => {
    const { context, named, log } = setup();
    context.lastSkip = { from: 102 as Tick, to: 105 as Tick };
    log.add(record(100, 110), 0);
    context.lastSkip = undefined;
    log.add({ ...record(200, 210), local: false }, 0);
    log.add(record(300, 310), 0);
    context.reports.onPong(0, 0, 400 as Tick);
    log.resolve(0);
    expect(named.map((c) => c.cause)).toEqual(['stall', 'remote', 'unexplained']);
    const copy = { ...named[0]! };
    expect(copy.detail).toBe("prediction skipped ticks 102..105 after a stall (of this client, or of the server's snapshots): the server ran them without our input");
    expect(JSON.parse(JSON.stringify(named[1]))).toMatchObject({ ghostId: 7, cause: 'remote', detail: 'the ghost is not driven by our input: another player, or contact with one, moved it differently' });
    expect(Object.keys(copy).sort()).toEqual(['cause', 'detail', 'distance', 'fromTick', 'ghostId', 'local', 'tick', 'type']);
    context.delayChanges.push(405 as Tick);
    log.add(record(400, 410), 0);
    context.reports.onPong(0, 0, 500 as Tick);
    log.resolve(0);
    expect(named[3]!.detail).toBe('the input delay changed at tick 405');
  });
});
