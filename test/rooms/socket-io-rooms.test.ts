// Rooms over the real path: serveRooms on 127.0.0.1 (one socket.io server, one port), HTTP
// matchmaking with createMatchmakerClient, headless clients in two rooms, /metrics. Real sockets
// need real time: every wait is a polled condition with a bound.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type Logger, type NetClient } from '../../src/index.ts';
import { createMatchmakerClient, defineRoom, MatchmakingError, seatedTransport, type Seat } from '../../src/rooms/index.ts';
import { createSocketIoClientTransport, serveRooms } from '../../src/socket-io/index.ts';
import { arena, arenaSystems, type Arena } from '../helpers/arena.ts';
import { waitFor } from '../helpers/wait.ts';

const quiet: Logger = () => {};
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

const arenaRoom = defineRoom('arena', {
  protocol: arena,
  systems: arenaSystems,
  maxClients: 3,
  onJoin: (room, c) => void room.server.spawn('player', { hp: 100 }, { owner: c.networkId }),
});

async function setup() {
  const served = serveRooms({ rooms: [arenaRoom], host: '127.0.0.1', port: 0, log: quiet });
  const { port } = await served.ready();
  cleanups.push(() => served.close());
  const clients: NetClient<Arena>[] = [];
  const pump = setInterval(() => clients.forEach((c) => c.update(performance.now())), 4);
  cleanups.push(() => clearInterval(pump));
  const connect = (seat: Seat): NetClient<Arena> => {
    const client = createClient({ protocol: arena, systems: arenaSystems, transport: seatedTransport(createSocketIoClientTransport(seat.url!), seat), log: quiet });
    clients.push(client);
    cleanups.push(() => client.leave());
    client.connect();
    return client;
  };
  return { served, port, base: `http://127.0.0.1:${port}`, mm: createMatchmakerClient(`http://127.0.0.1:${port}/matchmake`), connect };
}

describe('rooms over socket.io', () => {
  it('six headless clients matchmake over HTTP into two rooms on one port, each sees only its room', async () => {
    const { served, base, mm, connect } = await setup();
    const seats = await Promise.all(Array.from({ length: 6 }, () => mm.joinOrCreate('arena', { filter: { mode: 'ffa' } })));
    const rooms = [...new Set(seats.map((s) => s.roomId))];
    expect(rooms.length).toBe(2); // maxClients 3: two full rooms
    expect(seats.every((s) => s.url === base)).toBe(true);
    const clients = seats.map(connect);
    await waitFor(() => clients.every((c) => c.status === 'connected'), 'every client connected', 10_000);
    clients.forEach((c) => c.join({ name: 'p' }));
    await waitFor(() => clients.every((c) => c.status === 'in-game' && c.world.size === 3), 'three players per room replicated', 10_000);
    for (const roomId of rooms) expect(served.rooms.room(roomId)!.server.world.size).toBe(3);
    const lobby = await mm.rooms('arena');
    expect(lobby.rooms.map((r) => [r.clients, r.maxClients, r.metadata.mode])).toEqual([[3, 3, 'ffa'], [3, 3, 'ffa']]);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('netcode_rooms{process=');
    expect(metrics.match(/^netcode_room_in_game\{.*\} 3$/gm)?.length).toBe(2);
    const full = await mm.join(rooms[0]!).catch((e: unknown) => e);
    expect(full).toBeInstanceOf(MatchmakingError);
    expect((full as MatchmakingError).reason).toBe('full');
  });

  it('a private room is joined by code; a bad request is refused with a 400 that says why; a retried request gets its seat', async () => {
    const { base, mm, connect } = await setup();
    const host = await mm.create('arena', { private: true });
    const guest = await mm.joinByCode(host.code!);
    expect(guest.roomId).toBe(host.roomId);
    expect((await mm.rooms('arena')).rooms).toEqual([]);
    const again = await mm.joinByCode(host.code!, { requestId: 'retry-me-123' });
    expect(await mm.joinByCode(host.code!, { requestId: 'retry-me-123' })).toEqual(again);
    const res = await fetch(`${base}/matchmake/joinOrCreate`, { method: 'POST', body: '{"type": 7}' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ reason: 'bad-request', message: 'react-netcode: bad matchmaking request: type must be a string of 1 to 64 characters.' });
    const a = connect(host);
    await waitFor(() => a.status === 'connected', 'connected', 10_000);
  });

  it('the lobby long poll sees a room fill', async () => {
    const { mm } = await setup();
    const before = await mm.rooms('arena');
    const poll = mm.rooms('arena', { since: before.version, waitMs: 10_000 });
    await mm.joinOrCreate('arena');
    const after = await poll;
    expect(after.rooms.map((r) => r.clients)).toEqual([1]);
  });
});

describe('rooms over socket.io: a link the transport closes for what it sent', () => {
  it('is logged by the room server (rate-limited), before its seat names a room', async () => {
    const warnings: string[] = [];
    const served = serveRooms({ rooms: [arenaRoom], host: '127.0.0.1', port: 0, log: (level, m) => level === 'warn' && warnings.push(m) });
    const { port } = await served.ready();
    cleanups.push(() => served.close());
    const { io } = await import('socket.io-client');
    const socket = io(`http://127.0.0.1:${port}`, { path: '/netcode', transports: ['websocket'], reconnection: false, forceNew: true });
    cleanups.push(() => socket.close());
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.emit('r', 'a string, not bytes');
    await waitFor(() => warnings.some((w) => w.startsWith('react-netcode: protocol error from client: ')), 'the log line');
    expect(warnings.find((w) => w.startsWith('react-netcode: protocol error'))).toMatch(/non-binary payload on 'r'.*\(peer \d+\); the transport closed that connection only\.$/);
  });
});
