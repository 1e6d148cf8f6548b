// A room-server process killed (SIGKILL) under its players, on the real path: serveRooms in a child
// process on 127.0.0.1 (test/rooms/room-node.ts), HTTP matchmaking, headless clients over socket.io
// with resumeGraceMs 2000. Then a socket.io server that never answers the Hello takes the port, so
// resume attempts open and wait. One player keeps its frame loop (30 fps, real time); the other's
// frames stop before the kill (a hidden page). Both must be closed within about the grace, with
// a reason that says what to do. Real processes and sockets need real time: it runs in the timing
// suite; every wait is a polled condition with a bound. Prints the status timelines.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server as HttpServer } from 'node:http';
import { createInterface } from 'node:readline';
import { Server } from 'socket.io';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, type NetClient } from '../../src/index.ts';
import { createMatchmakerClient, seatedTransport, type Seat } from '../../src/rooms/index.ts';
import { createSocketIoClientTransport } from '../../src/socket-io/index.ts';
import { arena, type Arena } from '../helpers/arena.ts';
import { waitFor } from '../helpers/wait.ts';

const GRACE_MS = 2000;
/** The latest a player may close after the kill: the grace, one reconnect attempt, frames and timers on a slow machine. */
const BOUND_MS = GRACE_MS + 2500;

const cleanups: (() => void)[] = [];
afterAll(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function startRoomProcess(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/rooms/room-node.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l));
  await waitFor(() => lines.some((l) => l.startsWith('ready ')), 'the room process ready', 30_000);
  return { child, port: Number(lines.find((l) => l.startsWith('ready '))!.slice(6)) };
}

/** A socket.io server on `port` that takes every link and never answers (no Welcome ever comes). */
function silentServer(port: number): { opened: () => number } {
  const http: HttpServer = createServer();
  const io = new Server(http, { path: '/netcode', serveClient: false });
  let opened = 0;
  io.on('connection', () => void opened++);
  http.listen(port, '127.0.0.1');
  cleanups.push(() => void io.close());
  return { opened: () => opened };
}

describe('players of a room process that is killed', () => {
  it('are closed within the grace, frames running (resume attempts open and get no Welcome) or not (a hidden page)', { timeout: 60_000 }, async () => {
    const { child, port } = await startRoomProcess();
    const mm = createMatchmakerClient(`http://127.0.0.1:${port}/matchmake`);
    const timelines = new Map<NetClient<Arena>, string[]>();
    let killedAt = Number.NaN;
    const connect = (seat: Seat): NetClient<Arena> => {
      const transport = seatedTransport(createSocketIoClientTransport(seat.url!), seat);
      const client = createClient({ protocol: arena, prediction: false, resumeGraceMs: GRACE_MS, transport, now: () => performance.now(), log: () => {} });
      const timeline: string[] = [];
      timelines.set(client, timeline);
      client.events.on('status', (s) => void (Number.isFinite(killedAt) && timeline.push(`${Math.round(performance.now() - killedAt)} ms ${s.status}`)));
      cleanups.push(() => client.leave());
      client.connect();
      return client;
    };
    const running = connect(await mm.joinOrCreate('arena'));
    const hidden = connect(await mm.joinOrCreate('arena'));
    const framed = new Set([running, hidden]);
    const pump = setInterval(() => framed.forEach((c) => c.update(performance.now())), 1000 / 30);
    cleanups.push(() => clearInterval(pump));
    await waitFor(() => running.status === 'connected' && hidden.status === 'connected', 'both players connected', 20_000);
    running.join({ name: 'a' });
    hidden.join({ name: 'b' });
    await waitFor(() => running.status === 'in-game' && hidden.status === 'in-game', 'both players in game', 20_000);

    framed.delete(hidden); // its page is hidden: no frame from now on
    killedAt = performance.now();
    child.kill('SIGKILL');
    await waitFor(() => child.signalCode !== null, 'the room process gone', 10_000);
    const silent = silentServer(port);
    const closedAt = new Map<NetClient<Arena>, number>();
    await waitFor(() => {
      for (const c of [running, hidden]) if (c.status === 'closed' && !closedAt.has(c)) closedAt.set(c, performance.now() - killedAt);
      return closedAt.size === 2;
    }, 'both players closed', BOUND_MS + 10_000).catch((e: unknown) => {
      throw new Error(`${String(e)}: the running player ${running.status} ${JSON.stringify(timelines.get(running))}, the hidden one ${hidden.status} ${JSON.stringify(timelines.get(hidden))}`);
    });
    console.log(`react-netcode killed room process: the running player ${JSON.stringify(timelines.get(running))}, the hidden one ${JSON.stringify(timelines.get(hidden))}; ${silent.opened()} resume link(s) opened to the silent server`);

    for (const c of [running, hidden]) {
      expect(closedAt.get(c)).toBeGreaterThanOrEqual(GRACE_MS - 20);
      expect(closedAt.get(c)).toBeLessThanOrEqual(BOUND_MS);
    }
    expect(timelines.get(running)![0]).toMatch(/ ms reconnecting$/);
    expect(running.state.closeReason).toMatch(/^react-netcode: connection lost: could not resume within 2000 ms \(.*\); matchmake again for a new seat and connect with it\.$/);
    expect(silent.opened()).toBeGreaterThanOrEqual(1); // its resume opened a link, said Hello, and waited
    expect(timelines.get(hidden)).toEqual([expect.stringMatching(/ ms closed$/)]); // no frame saw the drop: never 'reconnecting'
    expect(hidden.state.closeReason).toMatch(/^react-netcode: connection lost: could not resume within 2000 ms \(.*\): client\.update\(now\) did not run for \d+ ms.*matchmake again for a new seat and connect with it\.$/);
    hidden.update(performance.now()); // the page shows again: it stays closed
    expect(hidden.status).toBe('closed');
  });
});
