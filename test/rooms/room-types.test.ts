// roomsOf(type) and room(id, type): a room server's rooms of one type, typed by its protocol
// (test/rooms/room-types.test-d.ts pins the types), at run time: the right rooms, in creation
// order, undefined for a room of another type, and a usage error for a type the server was not given.
import { describe, expect, it } from 'vitest';
import { defineProtocol, field, ghost } from '../../src/index.ts';
import { defineRoom, type Room } from '../../src/rooms/index.ts';
import { arena } from '../helpers/arena.ts';
import { RoomHarness } from './harness.ts';

const race = defineProtocol({ ghosts: { car: ghost({ lap: field.u8() }) }, input: { steer: field.f32() } });
const arenaRoom = defineRoom('arena', {
  protocol: arena,
  onCreate: (room) => void room.server.spawn('player', { position: { x: 1, y: 2, z: 3 }, hp: 100 }),
});
const raceRoom = defineRoom('race', { protocol: race, onCreate: (room) => void room.server.spawn('car', { lap: 1 }) });

describe('a room server typed by room type', () => {
  it('roomsOf(type) lists the running rooms of that type in creation order; room(id, type) finds one of that type', async () => {
    const h = new RoomHarness({ rooms: [arenaRoom, raceRoom] });
    const created: Room[] = [];
    h.server.events.on('create', (room) => created.push(room));
    const a1 = await h.server.matchmaker.create('arena');
    const r1 = await h.server.matchmaker.create('race');
    const a2 = await h.server.matchmaker.create('arena');
    expect(h.server.roomsOf(arenaRoom).map((r) => r.id)).toEqual([a1.roomId, a2.roomId]);
    expect(h.server.roomsOf(raceRoom).map((r) => r.id)).toEqual([r1.roomId]);
    expect(h.server.roomsOf(arenaRoom)[0]).toBe(created[0]); // the same room objects as `rooms` and the events
    const positions = h.server.roomsOf(arenaRoom).flatMap((room) => [...room.server.world.query('player')].map((p) => ({ ...p.components.position })));
    expect(positions).toEqual([{ x: 1, y: 2, z: 3 }, { x: 1, y: 2, z: 3 }]);
    expect([...h.server.room(r1.roomId, raceRoom)!.server.world.query('car')].map((car) => car.components.lap)).toEqual([1]);
    expect(h.server.room(r1.roomId, arenaRoom)).toBeUndefined(); // a race room is not an arena room
    expect(h.server.room('no-such-room', raceRoom)).toBeUndefined();
    expect(h.server.room(a1.roomId, arenaRoom)).toBe(h.server.room(a1.roomId));
    h.server.dispose(h.server.room(a1.roomId)!, 'test');
    expect(h.server.roomsOf(arenaRoom).map((r) => r.id)).toEqual([a2.roomId]);
  });

  it('a room type the server was not given (even one of the same name) is a usage error', () => {
    const h = new RoomHarness({ rooms: [arenaRoom] });
    const other = defineRoom('arena', { protocol: race });
    expect(() => h.server.roomsOf(other)).toThrow(/^react-netcode: room type "arena" is not one this room server was given; pass the defineRoom/);
    expect(() => h.server.room('r1', raceRoom)).toThrow(/^react-netcode: room type "race" is not one/);
  });
});
