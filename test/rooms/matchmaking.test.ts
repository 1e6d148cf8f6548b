// Matchmaking on the in-process directory, on a virtual clock: concurrent joinOrCreate fills
// rooms exactly to maxClients, seats are idempotent by requestId and lapse only unused, filters,
// private rooms by code, locked rooms, the lobby's long poll, disposal after the empty grace, drain.
import { describe, expect, it } from 'vitest';
import { defineRoom, MatchmakingError } from '../../src/rooms/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';
import { RoomHarness } from './harness.ts';

const duel = defineRoom('duel', { protocol: arena, systems: arenaSystems, maxClients: 4 });

async function refusal(p: Promise<unknown>): Promise<MatchmakingError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof MatchmakingError) return error;
    throw error;
  }
  throw new Error('expected a MatchmakingError');
}

describe('matchmaking', () => {
  it('50 concurrent joinOrCreate fill rooms exactly to maxClients, never one more, and all connect', async () => {
    const h = new RoomHarness({ rooms: [duel] });
    const seats = await Promise.all(Array.from({ length: 50 }, () => h.server.matchmaker.joinOrCreate('duel')));
    // 50 players, 4 per room: 12 full rooms and one with 2 (no extra room was created by the race).
    const counts = h.server.rooms.map((r) => r.clients);
    expect(counts).toEqual([...Array(12).fill(4), 2]);
    expect(new Set(seats.map((s) => s.token)).size).toBe(50);
    const clients = seats.map((s) => h.addClient(arena, s, arenaSystems));
    h.until(() => clients.every((c) => c.status === 'connected'), 'every client connected');
    for (const room of h.server.rooms) expect(room.server.connections.size).toBe(room.clients);
    // One more request for a full room by id is refused with a reason that says what to do.
    const e = await refusal(h.server.matchmaker.join(h.server.rooms[0]!.id));
    expect(e.reason).toBe('full');
    expect(e.message).toMatch(/^react-netcode: room .* is full; join another room or call joinOrCreate\.$/);
  });

  it('a retried request (same requestId) gets the same seat, also when the retries race', async () => {
    const h = new RoomHarness({ rooms: [duel] });
    const [a, b] = await Promise.all([
      h.server.matchmaker.joinOrCreate('duel', { requestId: 'req-1' }),
      h.server.matchmaker.joinOrCreate('duel', { requestId: 'req-1' }),
    ]);
    const c = await h.server.matchmaker.joinOrCreate('duel', { requestId: 'req-1' });
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(h.server.rooms.map((r) => r.clients)).toEqual([1]);
    const created = await h.server.matchmaker.create('duel', { requestId: 'req-2' });
    expect(await h.server.matchmaker.create('duel', { requestId: 'req-2' })).toEqual(created);
    expect(h.server.rooms.length).toBe(2);
  });

  it('an unused seat lapses after seatLapseMs with an error that says what to do; a used one never does', async () => {
    const h = new RoomHarness({ rooms: [duel], seatLapseMs: 1000, emptyGraceMs: 60_000 });
    const used = await h.server.matchmaker.joinOrCreate('duel');
    const unused = await h.server.matchmaker.joinOrCreate('duel');
    expect(h.server.rooms[0]!.clients).toBe(2);
    const c = h.addClient(arena, used, arenaSystems);
    h.until(() => c.status === 'connected', 'connect');
    h.advance(1500); // past the lapse (1000 ms) and one sweep (250 ms)
    expect(h.server.rooms[0]!.clients).toBe(1); // the used seat is kept, the unused one is gone
    const late = h.addClient(arena, unused, arenaSystems);
    h.until(() => late.status === 'closed', 'the late client is refused');
    expect(late.state.closeReason).toBe('react-netcode: this seat is unknown or lapsed unused (an unused seat is kept 1000 ms); call joinOrCreate or join again for a new seat.');
    h.advance(5000);
    expect(c.status).toBe('connected');
    expect(h.server.rooms[0]!.clients).toBe(1);
  });

  it('a seat is used from the moment its link presents it, however long the handshake then takes', async () => {
    const h = new RoomHarness({ rooms: [defineRoom('slow', { protocol: arena, server: { onJoin: () => new Promise(() => {}) } })], seatLapseMs: 500 });
    const seat = await h.server.matchmaker.joinOrCreate('slow');
    const c = h.addClient(arena, seat);
    h.until(() => c.status === 'connected', 'connect');
    c.join({ name: 'x' }); // onJoin never answers: the join waits
    h.advance(3000);
    expect(h.server.rooms[0]!.clients).toBe(1);
    expect(c.status).toBe('joining');
  });

  it('filters pick rooms by metadata; locked and private rooms are not matched; private rooms join by code', async () => {
    const h = new RoomHarness({ rooms: [duel] });
    const mm = h.server.matchmaker;
    const eu = await mm.joinOrCreate('duel', { filter: { mode: 'ranked', region: 'eu' } });
    expect((await mm.joinOrCreate('duel', { filter: { mode: 'ranked' } })).roomId).toBe(eu.roomId);
    const us = await mm.joinOrCreate('duel', { filter: { mode: 'ranked', region: 'us' } });
    expect(us.roomId).not.toBe(eu.roomId);
    const priv = await mm.create('duel', { private: true });
    expect(priv.code).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);
    expect((await mm.rooms('duel')).rooms.map((r) => r.roomId)).toEqual([eu.roomId, us.roomId]);
    expect((await mm.joinByCode(priv.code!.toLowerCase())).roomId).toBe(priv.roomId);
    expect((await refusal(mm.joinByCode('ZZZZZZ'))).reason).toBe('not-found');
    expect((await refusal(mm.joinByCode(' zzzzzz'))).message).toContain('no room with code ZZZZZZ '); // as looked up, not as typed
    h.server.room(eu.roomId)!.lock();
    const after = await mm.joinOrCreate('duel', { filter: { region: 'eu' } });
    expect([eu.roomId, priv.roomId]).not.toContain(after.roomId);
    expect((await refusal(mm.join(eu.roomId))).reason).toBe('locked');
    expect((await refusal(mm.joinOrCreate('nope'))).message).toBe('react-netcode: no room type "nope"; pass it to the room server\'s rooms (defineRoom).');
  });

  it('the lobby long poll answers at the next change of a listed room, with the counts', async () => {
    const h = new RoomHarness({ rooms: [duel] });
    const mm = h.server.matchmaker;
    const first = await mm.rooms('duel');
    expect(first.rooms).toEqual([]);
    let seen: Awaited<ReturnType<typeof mm.rooms>> | undefined;
    const poll = mm.rooms('duel', { since: first.version }).then((r) => (seen = r));
    await Promise.resolve();
    expect(seen).toBeUndefined(); // nothing changed yet: the poll waits
    const seat = await mm.joinOrCreate('duel');
    await poll;
    expect(seen!.version).toBeGreaterThan(first.version);
    expect(seen!.rooms.map((r) => [r.roomId, r.clients, r.maxClients])).toEqual([[seat.roomId, 1, 4]]);
    // Without a change the poll answers after waitMs with the same version.
    const idle = mm.rooms('duel', { since: seen!.version, waitMs: 1000 });
    h.advance(1000);
    expect((await idle).version).toBe(seen!.version);
  });

  it('an empty room is disposed after its grace, and the directory forgets it', async () => {
    const disposed: string[] = [];
    const h = new RoomHarness({ rooms: [defineRoom('duel', { protocol: arena, maxClients: 2, emptyGraceMs: 2000, onDispose: (r) => disposed.push(r.id) })], seatLapseMs: 1000 });
    const seat = await h.server.matchmaker.joinOrCreate('duel');
    h.advance(1000 + 250); // the unused seat lapses: the room is empty from then on
    expect(h.server.rooms.length).toBe(1);
    h.advance(2000 + 250);
    expect(disposed).toEqual([seat.roomId]);
    expect(h.server.rooms.length).toBe(0);
    expect(h.server.directory.rooms()).toEqual([]);
  });

  it('drain: no new rooms, running ones locked and let end, the rest closed after maxWaitMs with a reason', async () => {
    const h = new RoomHarness({ rooms: [duel] });
    const a = await h.server.matchmaker.joinOrCreate('duel');
    const b = await h.server.matchmaker.create('duel');
    const ca = h.addClient(arena, a, arenaSystems);
    const cb = h.addClient(arena, b, arenaSystems);
    h.until(() => ca.status === 'connected' && cb.status === 'connected', 'connect');
    let drained = false;
    const drain = h.server.drain({ maxWaitMs: 5000 }).then(() => (drained = true));
    expect((await refusal(h.server.matchmaker.create('duel'))).reason).toBe('draining');
    expect((await refusal(h.server.matchmaker.join(a.roomId))).reason).toBe('locked');
    ca.leave('match over');
    h.advance(1000);
    expect(h.server.rooms.map((r) => r.id)).toEqual([b.roomId]); // room a ended and was disposed at once
    h.advance(4000);
    await drain;
    expect(drained).toBe(true);
    h.until(() => cb.status === 'closed', 'the last player is told');
    expect(cb.state.closeReason).toBe('react-netcode: the server is restarting; matchmake again to play on.');
  });
});
