// The server's silenceTimeoutMs over real socket.io on 127.0.0.1 (the timing group: it waits on the
// wall clock). A client in game whose frames stop — it sends nothing, while socket.io's own heartbeat
// keeps the socket open — is taken for a dropped link and suspended; when its frames come back it
// resumes with the same networkId. The contrast: a paused client (a hidden page, no frames either)
// Pings once a second (PAUSED_PING_MS) as the server's messages arrive and stays in game. A contrast,
// not tight timing: the timeout is 2 s, twice the paused Pings' period, and the paused client is
// watched for 5 s. Takes ≈ 6 s.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, createServer, realTimeScheduler, type NetClient } from '../../src/index.ts';
import { createSocketIoClientTransport, createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';
import { waitFor } from '../helpers/wait.ts';

const SILENCE_MS = 2000;
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function setup() {
  const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
  const server = createServer({ protocol: arena, systems: arenaSystems, transport, scheduler: realTimeScheduler, log: () => {}, silenceTimeoutMs: SILENCE_MS });
  const events: string[] = [];
  server.events.on('suspend', (c, reason) => events.push(`suspend ${c.networkId}: ${reason}`));
  server.events.on('resume', (c) => events.push(`resume ${c.networkId}`));
  server.start();
  cleanups.push(() => server.close());
  const { port } = await transport.ready();
  const join = async (): Promise<{ client: NetClient<typeof arena>; frames: { on: boolean } }> => {
    const client = createClient({
      protocol: arena, systems: arenaSystems, transport: createSocketIoClientTransport(`http://127.0.0.1:${port}`),
      log: () => {}, reconnectDelaysMs: [20], now: () => performance.now(),
    });
    const frames = { on: true };
    const pump = setInterval(() => frames.on && client.update(performance.now()), 4);
    cleanups.push(() => clearInterval(pump), () => client.leave());
    client.connect();
    await waitFor(() => client.status === 'connected', 'handshake');
    client.join({ name: 'p' });
    await waitFor(() => client.status === 'in-game', 'the join');
    return { client, frames };
  };
  return { server, events, join };
}

describe("the server's silenceTimeoutMs over socket.io", () => {
  it('suspends a client whose frames stopped, which resumes when they are back; a paused client stays in game', async () => {
    const { server, events, join } = await setup();
    const frozen = await join();
    const paused = await join();
    const frozenId = frozen.client.networkId!;
    const frozenReasons: string[] = [];
    frozen.client.events.on('status', (st) => st.status === 'reconnecting' && frozenReasons.push(st.closeReason ?? ''));
    const pausedId = paused.client.networkId!;
    paused.client.setPaused(true);
    paused.frames.on = false; // a hidden page: no frames, the socket open
    const stoppedAt = performance.now();
    frozen.frames.on = false; // a frozen page: no frames, the socket open, nothing sent
    await waitFor(() => server.connections.get(frozenId)?.state === 'suspended', 'the silent client to be suspended', 5000);
    const suspendedAfter = performance.now() - stoppedAt;
    expect(suspendedAfter).toBeGreaterThanOrEqual(SILENCE_MS - 50); // its last message left at most one frame before
    expect(events[0]).toMatch(new RegExp(`^suspend ${frozenId}: react-netcode: the client sent nothing for ${SILENCE_MS} ms in game`));
    frozen.frames.on = true;
    await waitFor(() => frozen.client.status === 'in-game' && server.connections.get(frozenId)?.state === 'in-game', 'the resume', 5000);
    expect(frozen.client.networkId).toBe(frozenId);
    // While it reconnected, the client showed why the server closed its link (the transport's bye event).
    expect(frozenReasons).toHaveLength(1);
    expect(frozenReasons[0]).toMatch(new RegExp(`^react-netcode: the connection to http://127\\.0\\.0\\.1:\\d+ .*closed \\(the server closed it: the client sent nothing for ${SILENCE_MS} ms in game`));
    await new Promise((r) => setTimeout(r, Math.max(0, 2.5 * SILENCE_MS - (performance.now() - stoppedAt))));
    expect(server.connections.get(pausedId)?.state).toBe('in-game'); // paused 5 s without a frame, never silent
    expect(events.filter((e) => e.includes(` ${pausedId}:`) || e === `resume ${pausedId}`)).toEqual([]);
    expect(events).toEqual([events[0], `resume ${frozenId}`]);
  });
});
