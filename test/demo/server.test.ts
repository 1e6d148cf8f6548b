// The README's first command starts this server: run it as `npm start` would (tsx,
// a child process on an ephemeral port), check /healthz, quick-play through its HTTP
// matchmaker, join and chat through the real socket.io endpoint, then SIGTERM it: it
// drains (no new seats), closes the room (here after DEMO_DRAIN_MS = 1 s) and exits cleanly.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MatchmakingError } from '../../src/rooms/index.ts';
import { demoMatchmaker, seatedClient } from '../helpers/demo-seat.ts';
import { waitFor } from '../helpers/wait.ts';

const root = join(import.meta.dirname, '../..');
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});


describe('demo server (npm start)', () => {
  it('serves health, matchmaking and netcode, and drains and shuts down cleanly on SIGTERM', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'demo/server/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DEMO_DRAIN_MS: '1000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => /listening on http:\/\/localhost:(\d+)/.test(out), 'the server to listen', 20_000);
    const port = Number(/localhost:(\d+)/.exec(out)![1]);

    const url = `http://127.0.0.1:${port}`;
    const health = (await (await fetch(`${url}/healthz`)).json()) as { ok: boolean; connections: number; rooms: number };
    expect(health).toMatchObject({ ok: true, connections: 0, rooms: 0 });

    const mm = demoMatchmaker(url);
    const player = seatedClient(url, await mm.joinOrCreate('arena'));
    const client = player.client;
    try {
      const heard: string[] = [];
      client.onRpc('said', (p) => heard.push(`${p.name}: ${p.text}`));
      await waitFor(() => client.status === 'connected', 'handshake');
      client.join({ name: '' });
      await waitFor(() => client.state.joinError !== undefined, 'the empty name to be refused');
      expect(client.state.joinError).toBe('pick a name');
      client.join({ name: 'tester' });
      await waitFor(() => client.status === 'in-game', 'join');
      client.send('say', { text: 'hello' });
      await waitFor(() => heard.length === 1, 'the chat broadcast');
      expect(heard).toEqual(['tester: hello']);
      expect(out).toContain(`room ${player.seat.roomId} created (public)`);
      expect((await (await fetch(`${url}/metrics`)).text())).toMatch(/\d/);

      child.kill('SIGTERM');
      await waitFor(() => out.includes('SIGTERM: draining'), 'the drain to start');
      const refused = await mm.joinOrCreate('arena').then(() => undefined, (e: unknown) => e);
      expect(refused).toBeInstanceOf(MatchmakingError);
      expect((refused as MatchmakingError).reason).toMatch(/draining|locked|unavailable/);
      // Generous: under load (the e2e's Chromium on the same two cores) the pump runs late.
      await waitFor(() => client.status === 'closed', 'the server to tell the client', 15_000);
      expect(client.state.closeReason).toBe('server shutting down');
      await waitFor(() => child!.exitCode !== null, 'the server to exit');
      expect(child.exitCode).toBe(0);
    } finally {
      player.close();
    }
  }, 30_000);
});
