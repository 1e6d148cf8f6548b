// Type tests for a room server's typed view of its rooms: roomsOf(type) and room(id, type) give
// rooms whose `server` is the NetServer of that room type's protocol, so ghosts read through them
// have typed components. `rooms`, `room(id)` and the events keep the untyped Room they always had.
import { describe, expectTypeOf, it } from 'vitest';
import { defineProtocol, field, ghost } from '../../src/index.ts';
import type { Vec3 } from '../../src/core/field.ts';
import type { NetServer } from '../../src/core/server.ts';
import { defineRoom, type Room, RoomServer } from '../../src/rooms/index.ts';
import { serveRooms } from '../../src/socket-io/index.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';
import { arena, type Arena } from '../helpers/arena.ts';

const race = defineProtocol({
  ghosts: { car: ghost({ lap: field.u8(), position: field.vec3() }) },
  input: { steer: field.f32() },
});
const arenaRoom = defineRoom('arena', { protocol: arena });
const raceRoom = defineRoom('race', { protocol: race });
const roomServer = new RoomServer({ rooms: [arenaRoom, raceRoom], transport: new LoopbackNetwork().server });

describe('a room server types the rooms of one type by its protocol', () => {
  it('roomsOf(type): each room server is a NetServer of that protocol', () => {
    expectTypeOf(roomServer.roomsOf(arenaRoom)).toEqualTypeOf<readonly Room<Arena>[]>();
    expectTypeOf(roomServer.roomsOf(raceRoom)).toEqualTypeOf<readonly Room<typeof race>[]>();
    for (const room of roomServer.roomsOf(arenaRoom)) {
      expectTypeOf(room.server).toEqualTypeOf<NetServer<Arena>>();
      for (const player of room.server.world.query('player')) {
        const position = { ...player.components.position }; // "Spread types may only be created from object types" on an untyped room
        expectTypeOf(position).toEqualTypeOf<Vec3>();
        expectTypeOf(player.components.hp).toEqualTypeOf<number>();
      }
      // @ts-expect-error -- 'car' is a ghost type of the race protocol, not of the arena's
      room.server.world.query('car');
    }
  });

  it('room(id, type): typed, or undefined', () => {
    const room = roomServer.room('r1', raceRoom);
    expectTypeOf(room).toEqualTypeOf<Room<typeof race> | undefined>();
    if (room) for (const car of room.server.world.query('car')) expectTypeOf(car.components.lap).toEqualTypeOf<number>();
  });

  it('through serveRooms too', () => {
    const served = serveRooms({ rooms: [arenaRoom], start: false });
    expectTypeOf(served.rooms.roomsOf(arenaRoom)[0]!.server).toEqualTypeOf<NetServer<Arena>>();
  });

  it('keeps the untyped members as they were, so code written against them compiles unchanged', () => {
    expectTypeOf(roomServer.rooms).toEqualTypeOf<readonly Room[]>();
    expectTypeOf(roomServer.room('r1')).toEqualTypeOf<Room | undefined>();
    roomServer.events.on('create', (room) => expectTypeOf(room).toEqualTypeOf<Room>());
    const helper = (room: Room): string => room.id;
    roomServer.rooms.forEach(helper);
  });
});
