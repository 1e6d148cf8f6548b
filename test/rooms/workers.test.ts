// Rooms in worker threads over the real path: serveRooms on 127.0.0.1 with `workers: { count: 2 }`
// (real worker threads, test/rooms/worker-rooms.ts as their module), HTTP matchmaking and
// headless clients over socket.io. Rooms land on both workers; players play in their own room
// (inputs reach the worker, snapshots come back); a crashed worker's players are told and
// matchmake again while the other worker's play on; a missing module or room type is a clear
// error. Real threads and sockets need real time: every wait is a polled condition with a bound.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type Logger, type NetClient } from '../../src/index.ts';
import type { PeerId, ServerTransport, ServerTransportHandler } from '../../src/core/transport.ts';
import { createMatchmakerClient, defineRoom, MatchmakingError, seatedTransport, type Seat } from '../../src/rooms/index.ts';
import { createSocketIoClientTransport, serveRooms } from '../../src/socket-io/index.ts';
import { arena, type Arena } from '../helpers/arena.ts';
import { waitFor } from '../helpers/wait.ts';
import { arenaRoom, countingSystems } from './worker-rooms.ts';

const MODULE = new URL('./worker-rooms.ts', import.meta.url);
/** Sized for a slowed, shared 2-core machine: two threads start tsx, sockets open, rooms tick. */
const WAIT_MS = 30_000;

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function setup(logs: string[] = [], wrapTransport?: (t: ServerTransport) => ServerTransport) {
  const log: Logger = (level, m) => logs.push(`${level}: ${m}`);
  const served = serveRooms({ rooms: [arenaRoom], host: '127.0.0.1', port: 0, log, workers: { count: 2, module: MODULE }, ...(wrapTransport ? { wrapTransport } : {}) });
  cleanups.push(() => served.close());
  const { port } = await served.ready();
  const clients: NetClient<Arena>[] = [];
  /** Each client's stick, written into its input every frame (a player holding it). */
  const moves = new Map<NetClient<Arena>, { x: number; y: number }>();
  const pump = setInterval(() => clients.forEach((c) => {
    const m = moves.get(c)!;
    c.input.current.move.x = m.x;
    c.input.current.move.y = m.y;
    c.update(performance.now());
  }), 4);
  cleanups.push(() => clearInterval(pump));
  const connect = (seat: Seat): NetClient<Arena> => {
    const client = createClient({ protocol: arena, systems: countingSystems, transport: seatedTransport(createSocketIoClientTransport(seat.url!), seat), log: () => {} });
    clients.push(client);
    moves.set(client, { x: 1, y: 0 });
    cleanups.push(() => client.leave());
    client.connect();
    return client;
  };
  const base = `http://127.0.0.1:${port}`;
  return { served, base, mm: createMatchmakerClient(`${base}/matchmake`), connect, moves };
}

/** The hp of the client's own player: how many of its inputs its room's server counted. */
function counted(client: NetClient<Arena>): number {
  for (const g of client.world.query('player')) if (g.owner === client.networkId) return g.components.hp;
  return -1;
}

describe('rooms in worker threads', () => {
  it('rooms land on both workers; players play in their own room; stats and /metrics show rooms and workers; drain closes them', { timeout: 90_000 }, async () => {
    const { served, base, mm, connect } = await setup();
    const seats = [];
    for (const mode of ['a', 'a', 'b', 'b']) seats.push(await mm.joinOrCreate('arena', { filter: { mode } }));
    const roomIds = [...new Set(seats.map((s) => s.roomId))];
    expect(roomIds.length).toBe(2);
    const clients = seats.map(connect);
    await waitFor(() => clients.every((c) => c.status === 'connected'), 'every client connected', WAIT_MS);
    clients.forEach((c) => c.join({ name: 'p' }));
    await waitFor(() => clients.every((c) => c.status === 'in-game' && c.world.size === 2), 'two players per room replicated', WAIT_MS);
    await waitFor(() => clients.every((c) => counted(c) >= 30), '30 inputs of every player counted in its worker', WAIT_MS);
    // Isolated: each client sees its room's two players, never the other room's.
    const idsSeen = clients.map((c) => [...c.world.query('player')].length);
    expect(idsSeen).toEqual([2, 2, 2, 2]);
    await waitFor(() => served.rooms.stats().rooms.every((r) => r.inGame === 2 && r.ticks > 0), 'worker stats of both rooms', WAIT_MS);
    const stats = served.rooms.stats();
    expect(stats.workers.map((w) => w.rooms)).toEqual([1, 1]); // the least loaded worker took the second room
    expect(stats.workers.every((w) => w.messagesIn > 0 && w.messagesOut > 0 && w.batchesIn <= w.messagesIn)).toBe(true);
    expect(stats.rooms.map((r) => [r.clients, r.connections, r.ghosts])).toEqual([[2, 2, 2], [2, 2, 2]]);
    expect(() => served.rooms.room(roomIds[0]!)!.server).toThrow(/runs in a worker thread/);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics.match(/^netcode_room_in_game\{.*\} 2$/gm)?.length).toBe(2);
    expect(metrics.match(/^netcode_worker_rooms\{.*worker="[01]"\} 1$/gm)?.length).toBe(2);
    // Drain (SIGTERM): the rooms are locked, and closed after maxWaitMs; their players are told why.
    await served.rooms.drain({ maxWaitMs: 300 });
    await waitFor(() => clients.every((c) => c.status === 'closed'), 'every player closed by the drain', WAIT_MS);
    expect(new Set(clients.map((c) => c.state.closeReason))).toEqual(new Set(['react-netcode: the server is restarting; matchmake again to play on.']));
    expect(served.rooms.stats().rooms).toEqual([]);
  });

  it("a crashed worker's rooms leave the directory, their players are told and matchmake again; the other worker plays on", { timeout: 90_000 }, async () => {
    const logs: string[] = [];
    const { served, mm, connect, moves } = await setup(logs);
    const seats = [];
    for (const mode of ['a', 'a', 'b', 'b']) seats.push(await mm.joinOrCreate('arena', { filter: { mode } }));
    const clients = seats.map(connect);
    await waitFor(() => clients.every((c) => c.status === 'connected'), 'every client connected', WAIT_MS);
    clients.forEach((c) => c.join({ name: 'p' }));
    await waitFor(() => clients.every((c) => counted(c) >= 5), 'every player playing', WAIT_MS);
    const [a1, a2, b1, b2] = clients as [NetClient<Arena>, NetClient<Arena>, NetClient<Arena>, NetClient<Arena>];
    moves.set(b1, { x: 1, y: -1 }); // the worker of room b throws
    await waitFor(() => b1.status === 'closed' && b2.status === 'closed', "room b's players closed", WAIT_MS);
    expect(b1.state.closeReason).toMatch(/^react-netcode: the worker thread running room r[0-9a-f]+ stopped \(.*boom.*\); matchmake again to play on\.$/);
    expect(b2.state.closeReason).toBe(b1.state.closeReason);
    expect(logs.some((l) => l.startsWith('error: react-netcode: room worker 1 stopped'))).toBe(true);
    const lobby = await mm.rooms('arena');
    expect(lobby.rooms.map((r) => r.metadata.mode)).toEqual(['a']);
    expect(served.rooms.rooms.length).toBe(1);
    // Room a plays on: its players' inputs are still counted.
    const before = Math.min(counted(a1), counted(a2));
    await waitFor(() => Math.min(counted(a1), counted(a2)) >= Math.min(255, before + 20), 'room a still counting inputs', WAIT_MS);
    expect([a1.status, a2.status]).toEqual(['in-game', 'in-game']);
    // The players of room b matchmake again and play (on worker 0, or on worker 1's replacement).
    const again = connect(await mm.joinOrCreate('arena', { filter: { mode: 'b' } }));
    await waitFor(() => again.status === 'connected', 'matchmade again', WAIT_MS);
    again.join({ name: 'p' });
    await waitFor(() => counted(again) >= 5, 'playing again', WAIT_MS);
    expect(served.rooms.stats().workers.map((w) => w.crashes)).toEqual([0, 1]);
  });

  it("a worker room's client whose link the transport closes for what it sent: the worker's server ends its session (no resume)", { timeout: 90_000 }, async () => {
    const logs: string[] = [];
    // The transport's side, reached through wrapTransport: the handler the mux gave it and the peers it opened.
    let handler: ServerTransportHandler | undefined;
    const peers: PeerId[] = [];
    const wrap = (t: ServerTransport): ServerTransport => ({
      ...t,
      listen: (h) => {
        handler = h;
        t.listen({ ...h, onConnect: (peer) => (peers.push(peer), h.onConnect(peer)) });
      },
    });
    const { served, mm, connect } = await setup(logs, wrap);
    const client = connect(await mm.joinOrCreate('arena', { filter: { mode: 'a' } }));
    await waitFor(() => client.status === 'connected', 'connected', WAIT_MS);
    client.join({ name: 'p' });
    await waitFor(() => client.status === 'in-game', 'in game', WAIT_MS);
    const peer = peers.at(-1)!;
    const reason = "react-netcode: non-binary payload on 'r' (send a Uint8Array)";
    handler!.onPeerError!(peer, reason); // what the socket.io transport does: report it, then drop the link
    served.transport.disconnect(peer, reason);
    // The worker's server logs it with the networkId; the seat went with the session, so the resume is refused.
    await waitFor(() => logs.some((m) => m.startsWith("warn: react-netcode: protocol error from client: non-binary payload on 'r'") && m.includes('networkId')), 'the worker log line', WAIT_MS);
    await waitFor(() => client.status === 'closed', 'the client closed', WAIT_MS);
    expect(client.state.closeReason).toMatch(/^react-netcode: this seat is unknown or lapsed unused/);
  });

  it('a missing module, or a room type the module does not export, is a clear error; matchmaking answers unavailable', { timeout: 60_000 }, async () => {
    const missing = serveRooms({
      rooms: [arenaRoom], host: '127.0.0.1', port: 0, log: () => {},
      workers: { count: 1, module: new URL('./no-such-rooms.ts', import.meta.url) },
    });
    cleanups.push(() => missing.close());
    await expect(missing.ready()).rejects.toThrow(/^react-netcode: a room worker could not import the module of room types file:.*no-such-rooms\.ts \(.*\); set workers\.module/);
    const duel = defineRoom('duel', { protocol: arena, maxClients: 2 });
    const partial = serveRooms({ rooms: [arenaRoom, duel], host: '127.0.0.1', port: 0, log: () => {}, workers: { count: 1, module: MODULE } });
    cleanups.push(() => partial.close());
    await expect(partial.ready()).rejects.toThrow('react-netcode: room type "duel" is not exported by the workers\' module');
    const { port } = await partial.transport.ready();
    const refused = await createMatchmakerClient(`http://127.0.0.1:${port}/matchmake`, { attempts: 1 }).joinOrCreate('arena').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MatchmakingError);
    expect((refused as MatchmakingError).reason).toBe('unavailable');
    const raw = await fetch(`http://127.0.0.1:${port}/matchmake/joinOrCreate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"arena"}' });
    expect(raw.status).toBe(503); // unavailable, as the reason says (it was 500)
    expect(await raw.json()).toMatchObject({ reason: 'unavailable' });
    expect(() => serveRooms({ rooms: [arenaRoom], port: 0, workers: 2 as never })).toThrow(/workers takes the count and the module/);
  });
});
