// The module of room types the worker tests give `workers.module` (test/rooms/workers.test.ts):
// each room worker imports it and builds its rooms from these. A player's hp counts the inputs
// its room's server saw (capped at 255), so a client sees in its snapshots that its inputs
// reached the worker; an input with move.y = -1 makes the worker crash (an uncaught throw).
import { defineSystems, system } from '../../src/index.ts';
import { defineRoom } from '../../src/rooms/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';

export const countingSystems = defineSystems(arena, [
  ...arenaSystems,
  system.server('count-inputs', (world, ctx) => {
    for (const p of world.query('player')) {
      const input = ctx.input(p);
      if (input.move.x === 0) continue;
      if (input.move.y === -1) setTimeout(() => { throw new Error('boom (the test crashes this worker)'); }, 0);
      p.components.hp = Math.min(255, p.components.hp + 1);
    }
  }),
]);

export const arenaRoom = defineRoom('arena', {
  protocol: arena,
  systems: countingSystems,
  maxClients: 2,
  onJoin: (room, c) => void room.server.spawn('player', { hp: 0 }, { owner: c.networkId }),
});

export const rooms = [arenaRoom];
