// A press the server runs late, over real socket.io on 127.0.0.1: a headless client at 30 fps
// throws a grenade during a 700 ms spike of its uplink (conditionClient around the socket.io
// transport), so the server runs the press with the first input that reaches it in time, tens
// of ticks after the tick the client predicted it at. The predicted grenade waits for the
// server's input reports instead of the plain deadline, and its twin adopts it.
import { afterEach, describe, expect, it } from 'vitest';
import { conditionClient, createClient, createServer, realTimeScheduler, tickDiff } from '../../src/index.ts';
import { createSocketIoClientTransport, createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { effects, grenadeSystems, withSpawnId } from '../helpers/grenades.ts';
import { waitFor } from '../helpers/wait.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

describe('a press the server runs late, over socket.io', () => {
  it('a 700 ms uplink spike at the press: the twin spawns well past the plain deadline and adopts the predicted grenade', async () => {
    const protocol = withSpawnId();
    const systems = grenadeSystems(protocol);
    const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
    const server = createServer({ protocol, systems, transport, scheduler: realTimeScheduler, log: () => {} });
    server.events.on('join', (c) => server.spawn('player', {}, { owner: c.networkId }));
    server.start();
    cleanups.push(() => server.close());
    const { port } = await transport.ready();
    const link = conditionClient(createSocketIoClientTransport(`http://127.0.0.1:${port}`), { seed: 7 }, realTimeScheduler);
    const client = createClient({ protocol, systems, transport: link, log: () => {} });
    const pump = setInterval(() => client.update(performance.now()), 33); // 30 fps
    cleanups.push(() => clearInterval(pump), () => client.leave());
    client.connect();
    await waitFor(() => client.status === 'connected', 'handshake', 20_000);
    client.join({ name: 'p' });
    await waitFor(() => client.status === 'in-game' && client.clock.synced && client.prediction.lastTick !== undefined, 'join and a synced clock', 20_000);
    await new Promise((r) => setTimeout(r, 1000)); // input delay and interpolation settle
    effects.reverted = 0;

    link.setOptions({ up: { latencyMs: 700 } }); // what the client sends now arrives 700 ms later
    client.input.press('fire');
    await waitFor(() => [...client.world.query('grenade')].length > 0, 'the predicted grenade', 5000);
    const grenade = [...client.world.query('grenade')][0]!;
    expect(grenade.origin).toBe('predicted');
    await new Promise((r) => setTimeout(r, 600));
    link.setOptions({ up: {} }); // later inputs overtake the spike's: the press runs with the first of them
    await waitFor(() => grenade.origin !== 'predicted' || !grenade.alive, 'the predicted grenade to be matched or destroyed', 15_000);

    const twin = [...server.world.query('grenade')][0];
    expect(twin, 'the server spawned the twin').toBeDefined();
    const late = tickDiff(twin!.spawnTick, grenade.spawnTick);
    const grace = 12; // 4 snapshot intervals at 60 / 20 Hz
    expect(late, 'the server ran the press past the plain deadline').toBeGreaterThan(grace);
    expect(grenade.origin).toBe('matched');
    expect(grenade.alive).toBe(true);
    expect(client.spawns.stats).toMatchObject({ predicted: 1, matched: 1, rejected: 0 });
    expect(effects.reverted).toBe(0);
    expect([...client.world.query('grenade')]).toEqual([grenade]);
    // The server's reports say what happened: its ticks ran without our input (they may come after the twin).
    await waitFor(() => client.inputReports.missing > grace, 'the reports of the missing inputs', 5000);
  }, 60_000);
});
