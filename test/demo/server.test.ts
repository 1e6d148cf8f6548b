// The README's first command starts this server: run it as `npm start` would (tsx,
// a child process on an ephemeral port), check /healthz, join and chat through the
// real socket.io endpoint, then SIGTERM it and expect a clean exit.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, type Logger } from '../../src/index.ts';
import { createSocketIoClientTransport } from '../../src/socket-io/index.ts';
import { protocol } from '../../demo/shared/protocol.ts';
import { waitFor } from '../helpers/wait.ts';

const root = join(import.meta.dirname, '../..');
const quiet: Logger = () => {};
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});


describe('demo server (npm start)', () => {
  it('serves health and netcode, and shuts down cleanly on SIGTERM', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'demo/server/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => /listening on http:\/\/localhost:(\d+)/.test(out), 'the server to listen', 20_000);
    const port = Number(/localhost:(\d+)/.exec(out)![1]);

    const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { ok: boolean; connections: number };
    expect(health).toMatchObject({ ok: true, connections: 0 });

    const client = createClient({ protocol, transport: createSocketIoClientTransport(`http://127.0.0.1:${port}`), log: quiet });
    const pump = setInterval(() => client.update(performance.now()), 2);
    try {
      const heard: string[] = [];
      client.onRpc('said', (p) => heard.push(`${p.name}: ${p.text}`));
      client.connect();
      await waitFor(() => client.status === 'connected', 'handshake');
      client.join({ name: '' });
      await waitFor(() => client.state.joinError !== undefined, 'the empty name to be refused');
      expect(client.state.joinError).toBe('pick a name');
      client.join({ name: 'tester' });
      await waitFor(() => client.status === 'in-game', 'join');
      client.send('say', { text: 'hello' });
      await waitFor(() => heard.length === 1, 'the chat broadcast');
      expect(heard).toEqual(['tester: hello']);

      child.kill('SIGTERM');
      // Generous: under load (the e2e's Chromium on the same two cores) the pump runs late.
      await waitFor(() => client.status === 'closed', 'the server to tell the client', 15_000);
      expect(client.state.closeReason).toBe('server shutting down');
      await waitFor(() => child!.exitCode !== null, 'the server to exit');
      expect(child.exitCode).toBe(0);
    } finally {
      clearInterval(pump);
      client.leave();
    }
  }, 30_000);
});
