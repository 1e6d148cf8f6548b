// The demo's matches are rooms (demo/server/rooms.ts), on the real path: the demo server as
// `npm start` runs it (its client built with vite), headless clients through its HTTP
// matchmaker and socket.io on 127.0.0.1, and pages in headless system Chromium. Quick play
// seats players together; a private match is joined by its code; two rooms are isolated (a
// player of one is never in the other's snapshots); the lobby lists the open match with its
// player count, its Quick play button lands in that match, and `?room=CODE` joins the private one.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoomList } from '../../src/rooms/index.ts';
import { openDemo, ROOT, startDemoServer, until, type Browser, type DemoServer } from '../helpers/demo-browser.ts';
import { demoMatchmaker, seatedClient, type SeatedPlayer } from '../helpers/demo-seat.ts';
import { waitFor } from '../helpers/wait.ts';

const names = (p: SeatedPlayer): string[] => [...p.client.world.query('player')].map((g) => g.components.name).sort();

describe('demo matches are rooms (lobby, matchmaking, isolation)', { timeout: 180_000 }, () => {
  let server: DemoServer | undefined;
  const players: SeatedPlayer[] = [];
  const browsers: Browser[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'demo/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'pipe', env: { ...process.env, NODE_ENV: 'production' } });
    server = await startDemoServer();
  }, 120_000);

  afterAll(async () => {
    for (const p of players) p.close();
    await Promise.all(browsers.map((b) => b.close()));
    server?.stop();
  });

  const play = async (seat: Parameters<typeof seatedClient>[1], name: string): Promise<SeatedPlayer> => {
    const p = seatedClient(server!.url, seat);
    players.push(p);
    await waitFor(() => p.client.status === 'connected', `${name}'s handshake`, 15_000);
    p.client.join({ name });
    await waitFor(() => p.client.status === 'in-game', `${name} to join`, 15_000);
    return p;
  };

  it('quick play seats two players in one room; a private match is joined by code; the rooms are isolated', async () => {
    const mm = demoMatchmaker(server!.url);
    const ann = await play(await mm.joinOrCreate('arena'), 'ann');
    const bob = await play(await mm.joinOrCreate('arena'), 'bob');
    expect(bob.seat.roomId).toBe(ann.seat.roomId);

    const host = await play(await mm.create('arena', { private: true }), 'pat');
    expect(host.seat.code).toMatch(/^[A-Z0-9]{6}$/);
    expect(host.seat.roomId).not.toBe(ann.seat.roomId);
    const guest = await play(await mm.joinByCode(host.seat.code!), 'quin');
    expect(guest.seat.roomId).toBe(host.seat.roomId);

    // Each room's snapshots carry its own players only (and its own match and balls).
    await waitFor(() => names(ann).length === 2 && names(host).length === 2, 'both rooms to show their two players', 15_000);
    await new Promise((r) => setTimeout(r, 1000)); // a second more of snapshots: nobody crosses over
    expect(names(ann)).toEqual(['ann', 'bob']);
    expect(names(bob)).toEqual(['ann', 'bob']);
    expect(names(host)).toEqual(['pat', 'quin']);
    expect(names(guest)).toEqual(['pat', 'quin']);
    expect([...ann.client.world.query('match')]).toHaveLength(1);

    // The lobby's list: the public room with its two players; the private one is not listed.
    const list = (await (await fetch(`${server!.url}/matchmake/rooms?type=arena&waitMs=0`)).json()) as RoomList;
    expect(list.rooms.map((r) => [r.roomId, r.clients, r.maxClients])).toEqual([[ann.seat.roomId, 2, 8]]);
    const health = await server!.health();
    expect(health).toMatchObject({ connections: 4 });
  });

  it('in Chromium: the lobby lists the open match, its Quick play lands there, and ?room=CODE joins the private match', async () => {
    const [ann, host] = [players[0]!, players[2]!];
    const lobby = await openDemo(server!.url, 'cat', errors, { lobby: true });
    browsers.push(lobby);
    await lobby.page.getByTestId('room-players').filter({ hasText: '2/8' }).waitFor({ timeout: 30_000 });
    await lobby.page.getByPlaceholder('your name').fill('cat');
    await lobby.page.getByRole('button', { name: 'Quick play' }).click();
    await until(lobby.page, 'cat to see the three players of the public match', (d) => d.ghosts('player').length, (n) => n === 3, 60_000, server!.output);
    await waitFor(() => names(ann).includes('cat'), 'ann to see cat', 15_000);
    expect(names(host)).toEqual(['pat', 'quin']);

    const linked = await openDemo(server!.url, 'dot', errors, { query: `&room=${host.seat.code!}` });
    browsers.push(linked);
    await until(linked.page, 'dot to see the three players of the private match', (d) => d.ghosts('player').length, (n) => n === 3, 60_000, server!.output);
    await linked.page.getByTestId('match-code').filter({ hasText: host.seat.code! }).waitFor({ timeout: 10_000 });
    expect(new URL(linked.page.url()).searchParams.get('room')).toBe(host.seat.code);
    expect(names(host)).toEqual(['dot', 'pat', 'quin']);
    expect(names(ann)).toEqual(['ann', 'bob', 'cat']);
    expect(errors).toEqual([]);
  });
});
