// The Redis directory with a real redis-server on 127.0.0.1 (started and stopped here): two room
// servers (two "processes" in this test process, each on its own port) share it — concurrent
// joinOrCreate on both never seats one more than maxClients, a seat claimed on one process is
// used on the other, a process that stops heart-beating has its rooms reaped within the TTL, and
// a Redis restart crashes nothing: the processes re-register and matchmaking resumes. Real time
// and a real server: it runs in the timing suite (vitest.timing.config.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Logger, type NetClient } from '../../src/index.ts';
import { createMatchmakerClient, defineRoom, seatedTransport, type Seat } from '../../src/rooms/index.ts';
import { RedisDirectory } from '../../src/rooms/redis/index.ts';
import { createSocketIoClientTransport, serveRooms, type ServedRooms } from '../../src/socket-io/index.ts';
import { arena, arenaSystems, type Arena } from '../helpers/arena.ts';
import { waitFor } from '../helpers/wait.ts';
import { freePort, redisMissing, TestRedis } from './redis-server.ts';

const quiet: Logger = () => {};
const arenaRoom = defineRoom('arena', { protocol: arena, systems: arenaSystems, maxClients: 4 });
let redis: TestRedis;
const cleanups: (() => void | Promise<void>)[] = [];

beforeAll(async () => {
  if (redisMissing === undefined) redis = await TestRedis.start();
});
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
  await redis?.stop();
});

/** One room-server "process": its own port and url, the shared Redis directory under `prefix`. */
async function node(prefix: string, heartbeatTtlMs = 2000, onError: (m: string) => void = () => {}, log: Logger = quiet): Promise<ServedRooms & { directory: RedisDirectory; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const directory = new RedisDirectory({ url: redis.url, prefix, heartbeatTtlMs, onError });
  const served = serveRooms({ rooms: [arenaRoom], host: '127.0.0.1', port, url, directory, log });
  await served.ready();
  cleanups.push(() => {
    served.close();
    directory.close();
  });
  return Object.assign(served, { directory, url });
}

function connect(seat: Seat, clients: NetClient<Arena>[]): NetClient<Arena> {
  const transport = seatedTransport(createSocketIoClientTransport(seat.url!, { retry: false }), seat);
  // A short resume window (3 s): a player of a killed process is told within it.
  const client = createClient({ protocol: arena, systems: arenaSystems, transport, resumeGraceMs: 3000, log: quiet });
  clients.push(client);
  cleanups.push(() => client.leave());
  client.connect();
  return client;
}

describe.skipIf(redisMissing !== undefined)(`rooms on Redis${redisMissing ? ` (${redisMissing})` : ''}`, () => {
  it('concurrent joinOrCreate on two processes never seats one more than maxClients', async () => {
    const [a, b] = await Promise.all([node('race:'), node('race:')]);
    const mm = [createMatchmakerClient(`${a.url}/matchmake`), createMatchmakerClient(`${b.url}/matchmake`)];
    const seats = await Promise.all(Array.from({ length: 40 }, (_, i) => mm[i % 2]!.joinOrCreate('arena')));
    const rooms = await a.directory.rooms({ type: 'arena' });
    const perRoom = new Map<string, number>();
    for (const s of seats) perRoom.set(s.roomId, (perRoom.get(s.roomId) ?? 0) + 1);
    expect(Math.max(...perRoom.values())).toBeLessThanOrEqual(4);
    expect(rooms.reduce((n, r) => n + r.clients, 0)).toBe(40);
    for (const r of rooms) expect(r.clients).toBe(perRoom.get(r.roomId));
    expect(new Set(rooms.map((r) => r.processId))).toEqual(new Set([a.rooms.processId, b.rooms.processId]));
  });

  it('a new room is created on the least loaded process, whichever process is asked', async () => {
    const [a, b] = await Promise.all([node('place:'), node('place:')]);
    await Promise.all([1, 2, 3].map(() => a.rooms.matchmaker.create('arena', { here: true })));
    await new Promise((r) => setTimeout(r, 600)); // two heartbeats (every 250 ms) carry A's load
    const seat = await createMatchmakerClient(`${a.url}/matchmake`).joinOrCreate('arena', { filter: { mode: 'new' } });
    expect(seat.processId).toBe(b.rooms.processId);
    expect(seat.url).toBe(b.url);
    expect(b.rooms.room(seat.roomId)).toBeDefined();
  });

  it('a seat claimed on one process is used on the process that owns the room; a killed process leaves the directory within the TTL', async () => {
    const [a, b] = await Promise.all([node('fault:'), node('fault:')]);
    const onB = await b.rooms.matchmaker.create('arena');
    const viaA = await createMatchmakerClient(`${a.url}/matchmake`).joinOrCreate('arena');
    expect(viaA.roomId).toBe(onB.roomId); // A found B's room in the shared directory
    expect(viaA.url).toBe(b.url); // and tells the client where it runs
    const clients: NetClient<Arena>[] = [];
    const c = connect(viaA, clients);
    const pump = setInterval(() => clients.forEach((x) => x.update(performance.now())), 4);
    cleanups.push(() => clearInterval(pump));
    await waitFor(() => c.status === 'connected', 'connected to B', 10_000);
    c.join({ name: 'x' });
    await waitFor(() => c.status === 'in-game', 'in game on B', 10_000);
    // "Kill" B: its loop (heartbeats) stops and its port closes, nothing is cleaned up in Redis.
    b.rooms.stop();
    b.transport.close();
    const killedAt = performance.now();
    const reaped = (async () => {
      while ((await a.directory.rooms()).some((r) => r.processId === b.rooms.processId)) {
        if (performance.now() - killedAt > 10_000) throw new Error('B\'s rooms were not reaped within 10 s');
        await new Promise((r) => setTimeout(r, 20));
      }
      return performance.now() - killedAt;
    })();
    await waitFor(() => c.status === 'reconnecting', 'the player sees the drop', 10_000);
    await waitFor(() => c.status === 'closed', 'the player is told', 3000 * 3);
    expect(c.state.closeReason).toMatch(/^react-netcode: connection lost: could not resume within 3000 ms.*; matchmake again for a new seat and connect with it\.$/);
    const reapedMs = await reaped;
    // Bound: heartbeat TTL (2000 ms) + reap interval (1000 ms) + one sweep (250 ms), with slack for a loaded machine.
    expect(reapedMs).toBeLessThan(3250 * 3);
    console.log(`react-netcode test figure: killed process's rooms left the directory after ${Math.round(reapedMs)} ms (TTL 2000 ms)`);
    // The player matchmakes again and lands on A.
    const again = await createMatchmakerClient(`${a.url}/matchmake`).joinOrCreate('arena');
    expect(again.url).toBe(a.url);
  });

  it('a process that stopped heart-beating gets no new players or rooms before it is reaped (its heartbeat 1.5 s late)', async () => {
    const [a, b] = await Promise.all([node('late:', 6000), node('late:', 6000)]);
    const onB = await b.rooms.matchmaker.create('arena', { here: true });
    await Promise.all([1, 2].map(() => a.rooms.matchmaker.create('arena', { here: true, private: true }))); // A is the more loaded
    await new Promise((r) => setTimeout(r, 600)); // two heartbeats carry the loads
    const mm = createMatchmakerClient(`${a.url}/matchmake`);
    const before = await mm.joinOrCreate('arena');
    expect(before.roomId).toBe(onB.roomId); // contrast: B's room, while B beats
    // "Kill" B: its loop (heartbeats) stops and its port closes; its key lives on for the TTL (6 s).
    b.rooms.stop();
    b.transport.close();
    await new Promise((r) => setTimeout(r, 2000));
    expect((await a.directory.rooms()).map((r) => r.roomId)).toContain(onB.roomId); // not reaped yet
    const after = await mm.joinOrCreate('arena');
    expect(after.roomId).not.toBe(onB.roomId);
    // By its id, the room is not redirected: refused (HTTP 503, which the client retries), saying why — a seat would
    // lead to a dead process.
    await expect(mm.join(onB.roomId)).rejects.toMatchObject({
      reason: 'unavailable',
      message: expect.stringContaining(`HTTP 503: room ${onB.roomId} is on a process that has not answered lately (its heartbeat is late: stopped, or overloaded)`),
    });
    expect(after.url).toBe(a.url);
    const created = await mm.joinOrCreate('arena', { filter: { mode: 'new' } }); // a new room: placed on A, not on B, less loaded but late
    expect(created.url).toBe(a.url);
    expect(a.rooms.room(created.roomId)).toBeDefined();
  });

  it("a seat taken to another process is refused saying where its room runs; a seat of a room whose process is gone, at that address, says to matchmake again", async () => {
    const [a, b] = await Promise.all([node('where:'), node('where:')]);
    const onB = await b.rooms.matchmaker.create('arena');
    const clients: NetClient<Arena>[] = [];
    const pump = setInterval(() => clients.forEach((x) => x.update(performance.now())), 4);
    cleanups.push(() => clearInterval(pump));
    const misrouted = connect({ ...onB, url: a.url }, clients);
    await waitFor(() => misrouted.status === 'closed', 'refused by A', 10_000);
    expect(misrouted.state.closeReason).toBe(
      `react-netcode: room ${onB.roomId} runs on process ${b.rooms.processId} at ${b.url}, not on this one (${a.rooms.processId}); connect to the url of the seat, or matchmake again for a new seat.`,
    );
    // B's process dies and another starts at its address before its rooms are reaped: B's seat is refused there.
    b.rooms.stop();
    b.transport.close();
    const port = Number(new URL(b.url).port);
    const directory = new RedisDirectory({ url: redis.url, prefix: 'where:', heartbeatTtlMs: 2000, onError: () => {} });
    const reborn = serveRooms({ rooms: [arenaRoom], host: '127.0.0.1', port, url: b.url, directory, log: quiet });
    await reborn.ready();
    cleanups.push(() => {
      reborn.close();
      directory.close();
    });
    const stale = connect(await b.rooms.matchmaker.join(onB.roomId), clients); // B's room is still listed (not reaped yet)
    await waitFor(() => stale.status === 'closed', 'refused by the new process', 10_000);
    expect(stale.state.closeReason).toBe(
      `react-netcode: room ${onB.roomId} ran at this address in process ${b.rooms.processId}, which is gone (this is process ${reborn.rooms.processId}, started since); matchmake again for a new seat.`,
    );
  });

  it('closing a room server and then its directory at once: the rooms leave Redis, and nothing is logged', async () => {
    const said: string[] = [];
    const port = await freePort();
    const directory = new RedisDirectory({ url: redis.url, prefix: 'close:', onError: (m) => said.push(m) });
    const served = serveRooms({ rooms: [arenaRoom], host: '127.0.0.1', port, url: `http://127.0.0.1:${port}`, directory, log: (level, m) => void said.push(`${level}: ${m}`) });
    await served.ready();
    await served.rooms.matchmaker.create('arena');
    await served.rooms.matchmaker.create('arena', { private: true });
    expect(await directory.rooms({ includePrivate: true })).toHaveLength(2);
    served.close();
    directory.close(); // at once, as a process's shutdown does: the removals already sent still finish
    const check = new RedisDirectory({ url: redis.url, prefix: 'close:', onError: () => {} });
    cleanups.push(() => check.close());
    let left = -1;
    await waitFor(() => {
      void check.rooms({ includePrivate: true }).then((r) => (left = r.length), () => {});
      return left === 0;
    }, 'the rooms removed from Redis', 5000);
    await new Promise((r) => setTimeout(r, 200));
    expect(said).toEqual([]);
  });

  it('Redis restarting crashes nothing: the processes re-register their rooms and matchmaking resumes', async () => {
    const said: string[] = [];
    const warned: string[] = [];
    const a = await node('restart:', 2000, (m) => said.push(m), (level, m) => void (level === 'warn' && warned.push(m)));
    const seat = await a.rooms.matchmaker.joinOrCreate('arena');
    const clients: NetClient<Arena>[] = [];
    const c = connect(seat, clients);
    const pump = setInterval(() => clients.forEach((x) => x.update(performance.now())), 4);
    cleanups.push(() => clearInterval(pump));
    await waitFor(() => c.status === 'connected', 'connected', 10_000);
    await redis.stop();
    await expect(a.rooms.matchmaker.joinOrCreate('arena')).rejects.toThrow(/^react-netcode: .*Redis/);
    await new Promise((r) => setTimeout(r, 500));
    await redis.restart();
    await waitFor(() => a.directory.connected, 'reconnected to Redis', 10_000);
    let listed: readonly { roomId: string; clients: number }[] = [];
    await waitFor(() => {
      void a.directory.rooms().then((r) => (listed = r), () => {});
      return listed.length === 1;
    }, 'the room re-registered', 10_000);
    expect(listed).toMatchObject([{ roomId: seat.roomId, clients: 1 }]);
    const next = await a.rooms.matchmaker.joinOrCreate('arena');
    expect(next.roomId).toBe(seat.roomId);
    expect(c.status).toBe('connected'); // the player never noticed
    // The directory's two connections (commands, pub/sub) each said the outage once and its end once, however
    // many reconnection attempts they made in between.
    expect(said.filter((m) => m.startsWith('react-netcode: Redis connection error'))).toHaveLength(2);
    await waitFor(() => said.filter((m) => m.endsWith('is reachable again.')).length === 2, 'both connections back', 10_000);
    expect(said).toHaveLength(4);
    // The room server's own warnings during the outage read as one sentence each.
    expect(warned.filter((m) => m.startsWith('react-netcode: the room directory failed')).length).toBeGreaterThan(0);
    for (const m of warned) expect(m).not.toMatch(/\.;/);
  });
});
