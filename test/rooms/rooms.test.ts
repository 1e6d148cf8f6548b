// Rooms on a virtual clock: two rooms in one server on one transport, players isolated, each
// room's snapshots carrying only its own world; a one-room server behaving like a plain one.
import { describe, expect, it } from 'vitest';
import { defineRoom } from '../../src/rooms/index.ts';
import { conditionClient, type ClientTransport, type ClientTransportHandler } from '../../src/index.ts';
import { VirtualScheduler } from '../../src/transport/scheduler.ts';
import { decodeSeat, encodeSeat, seatedTransport } from '../../src/rooms/seat.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';
import { halfOpenable } from '../helpers/half-open.ts';
import { RoomHarness } from './harness.ts';

const arenaRoom = defineRoom('arena', {
  protocol: arena,
  systems: arenaSystems,
  maxClients: 4,
  onCreate: (room) => {
    room.server.spawn('ball', { position: { x: 0, y: 0, z: 0 }, velocity: { x: 1, y: 0, z: 0 } });
  },
  onJoin: (room, c) => {
    room.server.spawn('player', { hp: 100 }, { owner: c.networkId });
  },
});

describe('rooms in one process', () => {
  it('two rooms on one transport: players isolated, snapshots per room', async () => {
    const h = new RoomHarness({ rooms: [arenaRoom] });
    const a = await h.server.matchmaker.create('arena');
    const b = await h.server.matchmaker.create('arena');
    expect(a.roomId).not.toBe(b.roomId);
    const a2 = await h.server.matchmaker.join(a.roomId);
    const ca1 = h.addClient(arena, a, arenaSystems);
    const ca2 = h.addClient(arena, a2, arenaSystems);
    const cb1 = h.addClient(arena, b, arenaSystems);
    for (const c of [ca1, ca2, cb1]) h.until(() => c.status === 'connected', 'connect');
    for (const c of [ca1, ca2, cb1]) c.join({ name: 'p' });
    h.until(() => [ca1, ca2, cb1].every((c) => c.status === 'in-game'), 'in game');
    h.advance(500);
    const roomA = h.server.room(a.roomId)!;
    const roomB = h.server.room(b.roomId)!;
    // Room A: 1 ball + 2 players; room B: 1 ball + 1 player. Each client sees exactly its own room's world.
    expect(roomA.server.world.size).toBe(3);
    expect(roomB.server.world.size).toBe(2);
    expect(ca1.world.size).toBe(3);
    expect(ca2.world.size).toBe(3);
    expect(cb1.world.size).toBe(2);
    expect([...roomA.server.connections.values()].map((c) => c.inGame)).toEqual([true, true]);
    expect(roomB.server.connections.size).toBe(1);
    // networkIds are per room: both rooms start at 1.
    expect(cb1.networkId).toBe(ca1.networkId);
    // Both rooms ticked on the one clock: same tick count (±1 for the turn order), 500 ms ≈ 30 ticks at 60 Hz.
    expect(Math.abs(roomA.server.currentTick - roomB.server.currentTick)).toBeLessThanOrEqual(1);
    expect(h.server.stats().rooms.map((r) => r.clients)).toEqual([2, 1]);
  });

  it('a one-room server behaves like a plain server: connect, join, snapshots, leave, resume', async () => {
    const h = new RoomHarness({ rooms: [arenaRoom], emptyGraceMs: 1000 });
    const seat = await h.server.matchmaker.joinOrCreate('arena');
    const c = h.addClient(arena, seat, arenaSystems);
    h.until(() => c.status === 'connected', 'connect');
    c.join({ name: 'solo' });
    h.until(() => c.status === 'in-game', 'in game');
    h.until(() => c.world.size === 2, 'ball and player replicated');
    // The link drops; the client resumes through a new link with the same seat (seatedTransport says it again).
    const room = h.server.room(seat.roomId)!;
    const networkId = c.networkId;
    const conn = [...room.server.connections.values()][0]!;
    h.network.server.disconnect(conn.peer, 'test: link lost');
    h.until(() => c.status === 'reconnecting', 'the client sees the drop');
    h.until(() => c.status === 'in-game' && c.state.resumeFailed === false && room.server.connections.get(networkId!)?.state === 'in-game', 'resume');
    expect(c.networkId).toBe(networkId);
    expect(room.clients).toBe(1);
    c.leave('done');
    h.until(() => room.clients === 0, 'seat released on leave');
    h.until(() => h.server.room(seat.roomId) === undefined, 'room disposed after its grace', 3000);
  });

  it('a private room is disposed after its last player leaves, as a public one', async () => {
    const h = new RoomHarness({ rooms: [arenaRoom], emptyGraceMs: 1000 });
    const seat = await h.server.matchmaker.create('arena', { private: true });
    const c = h.inGame(seat, 'solo');
    const room = h.server.room(seat.roomId)!;
    expect(room.private).toBe(true);
    c.leave('done');
    h.until(() => room.clients === 0, 'seat released on leave');
    h.until(() => h.server.room(seat.roomId) === undefined, 'room disposed after its grace', 3000);
  });

  it('a link that drops before the join: the session is kept for a resume in rooms (it holds the seat), and joins after', async () => {
    const h = new RoomHarness({ rooms: [arenaRoom] });
    const seat = await h.server.matchmaker.joinOrCreate('arena');
    const c = h.addClient(arena, seat, arenaSystems);
    h.until(() => c.status === 'connected', 'connect');
    const id = c.networkId;
    const room = h.server.room(seat.roomId)!;
    h.network.server.disconnect([...room.server.connections.values()][0]!.peer, 'test: the link dropped');
    h.until(() => c.status === 'reconnecting', 'the drop');
    h.until(() => c.status === 'connected', 'the resume');
    expect([c.networkId, c.state.resumeFailed]).toEqual([id, false]);
    c.join({ name: 'p' });
    h.until(() => c.status === 'in-game', 'in game', 3000);
    expect(room.clients).toBe(1);
  });

  it('maxRooms holds for creates that run at once (here: true skips the queue; each awaits the directory)', async () => {
    const h = new RoomHarness({ rooms: [arenaRoom], maxRooms: 2 });
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => h.server.matchmaker.create('arena', { here: true })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    expect(h.server.stats().rooms).toHaveLength(2);
  });

  it('maxRooms: a create beyond it is refused (unavailable), the rooms that run still take players', async () => {
    const h = new RoomHarness({ rooms: [arenaRoom], maxRooms: 2 });
    const a = await h.server.matchmaker.create('arena');
    await h.server.matchmaker.create('arena');
    await expect(h.server.matchmaker.create('arena')).rejects.toMatchObject({
      reason: 'unavailable',
      message: expect.stringMatching(/^react-netcode: process \S+ runs 2 rooms, its maxRooms, and takes no new one; join a room that runs, or add a process \(or raise maxRooms\)\.$/),
    });
    expect((await h.server.matchmaker.joinOrCreate('arena')).roomId).toBe(a.roomId); // a place in a running room
    expect(h.server.stats().rooms).toHaveLength(2);
    expect(() => new RoomHarness({ rooms: [arenaRoom], maxRooms: 0 })).toThrow('react-netcode: maxRooms must be an integer > 0, got 0.');
  });

  it("what rooms log goes through the process's limiter by shape: 20 rooms that fall behind at once say so 5 times, then a count", async () => {
    const h = new RoomHarness({ rooms: [arenaRoom] });
    for (let i = 0; i < 20; i++) await h.server.matchmaker.create('arena');
    h.advance(100);
    h.jump(3000); // the process stalled 3 s: every room's loop falls behind at once
    const behind = () => h.logs.filter((l) => l.includes('server tick loop fell behind'));
    expect(behind()).toHaveLength(5);
    h.advance(11_000);
    expect(h.logs.some((l) => /^warn: react-netcode: 15 more "room: react-netcode: server tick loop fell behind; dropped # ticks so far/.test(l))).toBe(true);
  });

  it('a link without a seat, or with an unknown one, is refused with a reason that says what to do', async () => {
    const h = new RoomHarness({ rooms: [arenaRoom] });
    const c = h.addClient(arena, 'no-such-seat', arenaSystems);
    h.until(() => c.status === 'closed', 'refused');
    expect(c.state.closeReason).toMatch(/^react-netcode: this seat is unknown or lapsed unused.*call joinOrCreate/);
  });
});

const REPLACED = 'react-netcode: another client connected with this seat (a seat is for one client); matchmake again for a seat of your own.';

describe('one seat, one client', () => {
  it('a client whose link went half-open resumes over a new link with the same seat: same networkId, no fresh session', async () => {
    const h = new RoomHarness({ rooms: [arenaRoom] });
    const seat = await h.server.matchmaker.joinOrCreate('arena');
    const link = halfOpenable(h.network);
    const c = h.inGame(seat, 'p', link.transport);
    const id = c.networkId;
    const statuses: string[] = [];
    c.events.on('status', (s) => statuses.push(`${s.status}${s.resumeFailed ? ' resumeFailed' : ''}`));
    link.halfOpen();
    h.advance(3000);
    const room = h.server.room(seat.roomId)!;
    expect(c.status).toBe('in-game');
    expect(c.networkId).toBe(id);
    expect(statuses).toEqual(['reconnecting', 'in-game']);
    expect([...room.server.connections.values()].map((x) => `${x.networkId}:${x.state}`)).toEqual([`${id}:in-game`]);
    expect(link.serverClosed).toEqual(['react-netcode: the session resumed over a newer link.']);
    expect(room.clients).toBe(1);
  });

  it('two live clients given one seat: the newer keeps it, the older is closed with a reason and stays closed (no taking turns)', async () => {
    const h = new RoomHarness({ rooms: [arenaRoom] });
    const seat = await h.server.matchmaker.joinOrCreate('arena');
    const a = h.inGame(seat, 'a');
    const room = h.server.room(seat.roomId)!;
    let sessions = 0;
    room.server.events.on('connect', () => sessions++);
    const b = h.inGame(seat, 'b');
    h.advance(5000);
    expect(a.status).toBe('closed');
    expect(a.state.closeCode).toBe('server-closed');
    expect(a.state.closeReason).toBe(REPLACED);
    expect(b.status).toBe('in-game');
    expect(sessions).toBe(1); // b's only: nobody took the seat back
    expect([...room.server.connections.values()].map((x) => [x.networkId, x.state, x.joinPayload?.name])).toEqual([[b.networkId, 'in-game', 'b']]);
    expect(room.clients).toBe(1);
  });

  it("the older client did not hear its Close (half-open): its resume later is refused with the reason, the newer keeps the seat", async () => {
    const h = new RoomHarness({ rooms: [arenaRoom] });
    const seat = await h.server.matchmaker.joinOrCreate('arena');
    const link = halfOpenable(h.network);
    const a = h.inGame(seat, 'a', link.transport);
    const room = h.server.room(seat.roomId)!;
    // a's link dies on its side only as b takes the seat: the Close goes down the dead link.
    link.halfOpen();
    const b = h.inGame(seat, 'b');
    h.until(() => a.status === 'closed', "a's resume answered", 5000);
    h.advance(2000);
    expect(a.state.closeCode).toBe('refused');
    expect(a.state.closeReason).toBe(`react-netcode: this session cannot resume: the server ended it while its link was down: ${REPLACED.replace('react-netcode: ', '')}`);
    expect(b.status).toBe('in-game');
    expect([...room.server.connections.values()].map((x) => x.joinPayload?.name)).toEqual(['b']);
  });
});

describe('seatedTransport', () => {
  it("a first link that never opened: the close reason adds that the seat's server may be gone; a link that opened keeps its reason", () => {
    const handlers: ClientTransportHandler[] = [];
    const inner: ClientTransport = { connect: (h) => void handlers.push(h), send: () => {}, close: () => {} };
    const seated = seatedTransport(inner, 'token');
    const reasons: string[] = [];
    const handler: ClientTransportHandler = { onOpen: () => {}, onMessage: () => {}, onClose: (r) => void reasons.push(r) };
    seated.connect(handler);
    handlers[0]!.onClose('react-netcode: could not connect to http://127.0.0.1:3102 in 10 attempts over 34.5 s: websocket error; check the URL.');
    seated.connect(handler);
    handlers[1]!.onOpen();
    handlers[1]!.onClose('react-netcode: the connection closed (socket.io: transport close)');
    seated.connect(handler, { resume: true });
    handlers[2]!.onClose('react-netcode: could not connect (a resume attempt)');
    expect(reasons).toEqual([
      "react-netcode: could not connect to http://127.0.0.1:3102 in 10 attempts over 34.5 s: websocket error; check the URL; if the seat's room server is gone (a process stopped since matchmaking), matchmake again for a new seat.",
      'react-netcode: the connection closed (socket.io: transport close)',
      'react-netcode: could not connect (a resume attempt)',
    ]);
    expect(seated.newSessionAdvice).toBe('matchmake again for a new seat and connect with it');
  });

  it("passes on the inner transport's maxDatagramBytes, server errors and retry notices; the conditioner passes on its advice", () => {
    const handlers: ClientTransportHandler[] = [];
    const inner: ClientTransport = { connect: (h) => void handlers.push(h), send: () => {}, close: () => {}, maxDatagramBytes: 1100 };
    const seated = seatedTransport(inner, 'token');
    expect(seated.maxDatagramBytes).toBe(1100);
    const conditioned = conditionClient(seated, { seed: 1 }, new VirtualScheduler());
    expect(conditioned.newSessionAdvice).toBe(seated.newSessionAdvice);
    const told: string[] = [];
    conditioned.connect({ onOpen: () => {}, onMessage: () => {}, onClose: () => {}, onServerError: (r) => void told.push(r), onRetry: (r) => void told.push(`retry: ${r}`) });
    handlers[0]!.onRetry!('react-netcode: could not connect (attempt 1 of 10)');
    handlers[0]!.onServerError!('react-netcode: the server sent a non-binary payload');
    expect(told).toEqual(['retry: react-netcode: could not connect (attempt 1 of 10)', 'react-netcode: the server sent a non-binary payload']);
  });
});

describe('the Seat message', () => {
  it('has pinned bytes: kind 15, then the token as a string; anything else is not a seat', () => {
    // 0x0f = MessageKind.Seat, 0x03 = length, then "abc" in UTF-8.
    expect(Buffer.from(encodeSeat('abc')).toString('hex')).toBe('0f03616263');
    expect(decodeSeat(encodeSeat('abc'))).toBe('abc');
    expect(decodeSeat(Uint8Array.from([0x01, 0x03, 0x61, 0x62, 0x63]))).toBeUndefined(); // a Hello's kind byte
    expect(decodeSeat(Uint8Array.from([0x0f, 0x05, 0x61]))).toBeUndefined(); // truncated
    expect(() => encodeSeat('x'.repeat(129))).toThrow('react-netcode: a seat token is a non-empty string of at most 128 characters');
  });
});
