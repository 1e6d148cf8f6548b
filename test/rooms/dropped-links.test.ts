// Links of a room's clients that go silent or break the protocol, under a room server as on a plain
// one: a silent client (the server's silenceTimeoutMs, test/core/server-silence.test.ts) is taken for
// a dropped link — the room's NetServer closes it through its RoomTransport, the mux forgets it, and
// the client resumes through a new link with the same seat; a link the transport closes for what it
// sent (test/core/peer-violation.test.ts) ends the session, which the mux passes on to the room.
// On the harness's virtual clock.
import { describe, expect, it } from 'vitest';
import type { ServerTransportHandler } from '../../src/core/transport.ts';
import { defineRoom } from '../../src/rooms/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';
import { RoomHarness } from './harness.ts';

const arenaRoom = defineRoom('arena', {
  protocol: arena,
  systems: arenaSystems,
  onJoin: (room, c) => void room.server.spawn('player', { hp: 100 }, { owner: c.networkId }),
});

/** A room server with one arena room, and one client in game in it: the harness, the client, the room, its connection. */
async function inGame() {
  const h = new RoomHarness({ rooms: [arenaRoom] });
  const seat = await h.server.matchmaker.joinOrCreate('arena');
  const c = h.inGame(seat);
  const room = h.server.room(seat.roomId)!;
  return { h, c, room, conn: [...room.server.connections.values()][0]! };
}

describe('dropped links under rooms', () => {
  it("a room's client that sends nothing for 8 s is suspended, then resumes with the same networkId and seat", async () => {
    const { h, c, room, conn } = await inGame();
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

  it("a room's client whose link the transport closes for what it sent: its session ends in the room (leave, no resume)", async () => {
    const { h, c, room, conn } = await inGame();
    const events: string[] = [];
    room.server.events.on('suspend', () => events.push('suspend'));
    room.server.events.on('leave', (_c, reason) => events.push(`leave: ${reason}`));
    const handler = (h.network as unknown as { serverHandler: ServerTransportHandler }).serverHandler; // the mux's
    const reason = "react-netcode: unknown event 'chat' (only 'r' and 'u' are accepted)";
    handler.onPeerError!(conn.peer, reason); // what the socket.io transport does: report, then drop the link
    h.network.server.disconnect(conn.peer, reason);
    h.until(() => conn.state === 'closed' && events.length > 0, 'the session to end');
    expect(events).toEqual(["leave: react-netcode: protocol error from client: unknown event 'chat' (only 'r' and 'u' are accepted)"]);
    expect(h.logs.some((m) => /^warn: react-netcode: protocol error from client: unknown event 'chat' .*\(peer \d+, networkId \d+\)/.test(m))).toBe(true);
    // Its seat went with the session: the resume attempt presents a used seat and is refused — matchmake again.
    h.until(() => c.status === 'closed', 'the client to close');
    expect(c.state.closeReason).toMatch(/^react-netcode: this seat is unknown or lapsed unused/);
    expect(room.clients).toBe(0);
  });
});
