// A room server's rooms take a silent client for a dropped link as a plain server does (the
// server's silenceTimeoutMs, test/core/server-silence.test.ts): the room's NetServer closes the
// link through its RoomTransport, the mux forgets it, and the client resumes through a new link
// with the same seat. On the harness's virtual clock.
import { describe, expect, it } from 'vitest';
import { defineRoom } from '../../src/rooms/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';
import { RoomHarness } from './harness.ts';

const arenaRoom = defineRoom('arena', {
  protocol: arena,
  systems: arenaSystems,
  onJoin: (room, c) => void room.server.spawn('player', { hp: 100 }, { owner: c.networkId }),
});

describe('server silence under rooms', () => {
  it("a room's client that sends nothing for 8 s is suspended, then resumes with the same networkId and seat", async () => {
    const h = new RoomHarness({ rooms: [arenaRoom] });
    const seat = await h.server.matchmaker.joinOrCreate('arena');
    const c = h.addClient(arena, seat, arenaSystems);
    h.until(() => c.status === 'connected', 'connect');
    c.join({ name: 'p' });
    h.until(() => c.status === 'in-game', 'in game');
    const room = h.server.room(seat.roomId)!;
    const conn = [...room.server.connections.values()][0]!;
    const networkId = c.networkId;
    const suspends: { at: number; reason: string }[] = [];
    room.server.events.on('suspend', (_c, reason) => suspends.push({ at: h.now, reason }));
    const update = c.update.bind(c);
    c.update = () => {}; // a frozen page: nothing sent, the link open
    const frozenAt = h.now;
    h.advance(7900);
    expect(conn.state).toBe('in-game');
    h.until(() => conn.state === 'suspended', 'the room to take the silence for a drop', 1000);
    expect(suspends[0]!.at - frozenAt).toBeGreaterThanOrEqual(7980);
    expect(suspends[0]!.at - frozenAt).toBeLessThanOrEqual(8040);
    expect(suspends[0]!.reason).toMatch(/^react-netcode: the client sent nothing for 8000 ms in game/);
    expect(h.server.mux.routedPeers).toBe(0); // the mux forgot the closed link
    c.update = update;
    h.until(() => c.status === 'in-game' && conn.state === 'in-game', 'the resume');
    expect(c.networkId).toBe(networkId);
    expect(room.clients).toBe(1);
  });
});
