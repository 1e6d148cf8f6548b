// World: per-type spawn-order queries with typed mutable components, id lookup,
// engine-facing add/remove, stable handles, ownership helpers.
import { describe, expect, it } from 'vitest';
import { NetcodeError } from '../../src/core/errors.ts';
import { field } from '../../src/core/field.ts';
import { defineProtocol, ghost } from '../../src/core/protocol.ts';
import { EngineWorld } from '../../src/core/world.ts';

const protocol = defineProtocol({
  ghosts: {
    player: ghost({ position: field.vec3(), hp: field.u8(), state: field.enum(['idle', 'run']) }),
    bullet: ghost({ speed: field.f32() }, { modes: ['predicted'] }),
    crate: ghost({ hp: field.u8() }, { modes: ['interpolated'] }),
  },
});

const server = () => new EngineWorld(protocol, { isServer: true });
const ids = (it: Iterable<{ id: number }>) => [...it].map((g) => g.id);

describe('World', () => {
  it('queries one type in spawn order and mutations stick', () => {
    const w = server();
    w.add('player', 30, 0, 5);
    w.add('bullet', 10, 0, 5);
    w.add('player', 20, 0, 6);
    w.add('player', 40, 0, 6);
    expect(ids(w.query('player'))).toEqual([30, 20, 40]); // insertion order, not id order
    expect(ids(w.query('bullet'))).toEqual([10]);
    expect(ids(w.all())).toEqual([30, 10, 20, 40]);
    for (const p of w.query('player')) {
      p.components.hp += 7;
      p.components.position.x = p.id / 10;
    }
    expect(w.get(20)!.components).toEqual({ position: { x: 2, y: 0, z: 0 }, hp: 7, state: 'idle' }); // 0 + 7; 20 / 10
    expect(w.size).toBe(4);
  });

  it('fills missing fields with defaults and copies given objects', () => {
    const w = server();
    const pos = { x: 1, y: 2, z: 3 };
    const g = w.add('player', 1, 0, 0, { position: pos, state: 'run' });
    expect(g.components).toEqual({ position: { x: 1, y: 2, z: 3 }, hp: 0, state: 'run' });
    pos.x = 99;
    expect(g.components.position.x).toBe(1); // not aliased to the caller's object
    expect(g.spawnTick).toBe(0);
    expect(g.type).toBe('player');
    expect(g.typeId).toBe(0);
  });

  it('rejects duplicate ids, unknown types, unknown fields and bad values', () => {
    const w = server();
    w.add('player', 1, 0, 0);
    expect(() => w.add('player', 1, 0, 0)).toThrow(/ghost id 1 is already in the world/);
    expect(() => w.query('nope' as 'player')).toThrow(/unknown ghost type "nope"/);
    expect(() => w.add('player', 2, 0, 0, { mana: 3 } as object)).toThrow(/has no field "mana"/);
    expect(() => w.add('player', 3, 0, 0, { hp: 300 })).toThrow(/field "hp" must be an integer in 0..255, got 300/);
    let caught: unknown;
    try {
      w.add('player', 1, 0, 0);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(NetcodeError);
    expect((caught as NetcodeError).code).toBe('usage');
    expect(w.size).toBe(1); // the failed adds left nothing behind
  });

  it('counts mode changes in modeVersion (an unchanged mode does not count), apart from version', () => {
    const w = new EngineWorld(protocol, { isServer: false });
    const a = w.add('crate', 1, 0, 0);
    const [v0, m0] = [w.version, w.modeVersion];
    const other = a.mode === 'predicted' ? 'interpolated' : 'predicted';
    a.mode = other;
    expect([a.mode, w.modeVersion, w.version]).toEqual([other, m0 + 1, v0]);
    a.mode = other;
    expect(w.modeVersion).toBe(m0 + 1);
  });

  it('removes ghosts: get/query forget them, alive turns false, version bumps', () => {
    const w = server();
    const a = w.add('crate', 1, 0, 0);
    w.add('crate', 2, 0, 0);
    const v0 = w.version;
    expect(w.remove(1)).toBe(a);
    expect(a.alive).toBe(false);
    expect(w.get(1)).toBeUndefined();
    expect(ids(w.query('crate'))).toEqual([2]);
    expect(w.version).toBe(v0 + 1);
    expect(w.remove(1)).toBeUndefined();
    expect(w.version).toBe(v0 + 1); // nothing removed, no bump
    const again = w.add('crate', 1, 0, 3); // an id may come back as a new ghost
    expect(again).not.toBe(a);
    expect(ids(w.query('crate'))).toEqual([2, 1]);
    w.clear();
    expect([w.size, ids(w.all()), again.alive]).toEqual([0, [], false]);
  });

  it('skips despawned ghosts and does not visit ones added during iteration', () => {
    const w = server();
    for (let id = 1; id <= 4; id++) w.add('bullet', id, 0, 0);
    const seen: number[] = [];
    for (const b of w.query('bullet')) {
      seen.push(b.id);
      if (b.id === 1) w.remove(3);
      w.add('bullet', b.id + 100, 0, 0);
    }
    expect(seen).toEqual([1, 2, 4]); // 3 removed before it was reached; 101, 102, 104 added during the loop
    expect(ids(w.query('bullet'))).toEqual([1, 2, 4, 101, 102, 104]);
  });

  it('keeps iterating correctly across compaction of removed slots', () => {
    const w = server();
    for (let id = 0; id < 40; id++) w.add('bullet', id, 0, 0);
    const seen: number[] = [];
    for (const b of w.query('bullet')) {
      seen.push(b.id);
      // At id 0, remove 1..30: the 16th removal with 16 dead of 40 slots does not compact
      // (16*2 < 40); the 20th does (20*2 >= 40), and later ones pile up in the new array.
      if (b.id === 0) for (let id = 1; id <= 30; id++) w.remove(id);
    }
    expect(seen).toEqual([0, 31, 32, 33, 34, 35, 36, 37, 38, 39]);
    expect(ids(w.query('bullet'))).toEqual(seen);
    expect(w.size).toBe(10); // 40 - 30
  });

  it('reuses a finished query cursor for the next iteration, and nested or abandoned iterations stay correct', () => {
    const w = server();
    for (const id of [1, 2, 3]) w.add('player', id, 0, 0);
    const first = w.query('player')[Symbol.iterator]();
    while (!first.next().done);
    const second = w.query('player')[Symbol.iterator]();
    expect(second).toBe(first); // the finished cursor came back: no allocation per iteration
    expect(ids({ [Symbol.iterator]: () => second })).toEqual([1, 2, 3]);
    // Nested loops over the same type each get their own cursor.
    const pairs: string[] = [];
    for (const a of w.query('player')) for (const b of w.query('player')) if (a.id < b.id) pairs.push(`${a.id}${b.id}`);
    expect(pairs).toEqual(['12', '13', '23']);
    // break hands the cursor back (for…of calls return()); the next loop starts from the first ghost.
    for (const p of w.query('player')) if (p.id === 2) break;
    expect(ids(w.query('player'))).toEqual([1, 2, 3]);
    const [head] = w.query('player'); // destructuring also calls return()
    expect(head?.id).toBe(1);
    expect(ids(w.query('player'))).toEqual([1, 2, 3]);
    // A finished iterator keeps answering done.
    const done = w.query('player')[Symbol.iterator]();
    while (!done.next().done);
    expect(done.next().done).toBe(true);
    expect(ids(w.all())).toEqual([1, 2, 3]);
  });

  it('gives every ghost a handle unique in the world and never reused', () => {
    const w = server();
    const handles = new Set<number>();
    for (let round = 0; round < 3; round++) {
      for (let id = 0; id < 5; id++) handles.add(w.add('crate', id, 0, 0).handle);
      w.clear();
    }
    expect(handles.size).toBe(15); // 3 rounds * 5 ghosts, same ids each round
  });

  it('answers ownership: isOwnedBy everywhere, isLocal only on the owning client', () => {
    const s = server();
    const owned = s.add('player', 1, 7, 0);
    const unowned = s.add('player', 2, 0, 0);
    expect([owned.owner, owned.isOwnedBy(7), owned.isOwnedBy(8), owned.isLocal]).toEqual([7, true, false, false]);
    expect(unowned.isOwnedBy(0)).toBe(false); // 0 means "no owner", never an owner
    expect(() => (s.localNetworkId = 7)).toThrow(/0 on the server/);

    const c = new EngineWorld(protocol, { isServer: false });
    const mine = c.add('player', 1, 7, 0);
    expect(mine.isLocal).toBe(false); // not joined yet: localNetworkId 0
    c.localNetworkId = 7;
    expect([mine.isLocal, c.add('player', 2, 8, 0).isLocal]).toEqual([true, false]);
  });

  it('picks a default mode per peer and type', () => {
    expect(server().add('player', 1, 7, 0).mode).toBe('server');
    const c = new EngineWorld(protocol, { isServer: false, localNetworkId: 7 });
    expect(c.add('player', 1, 7, 0).mode).toBe('predicted'); // owned locally
    expect(c.add('player', 2, 8, 0).mode).toBe('interpolated'); // someone else's
    expect(c.add('bullet', 3, 8, 0).mode).toBe('predicted'); // predicted-only type
    expect(c.add('crate', 4, 7, 0).mode).toBe('interpolated'); // interpolated-only type
  });
});
