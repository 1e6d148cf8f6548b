// A client that stops calling update(now) for seconds — a hidden page without animation frames, a
// debugger pause, an app that forgot its frame loop — over real socket.io on 127.0.0.1, with the
// server running on. While nothing reads them, at most MAX_QUEUED_UNRELIABLE unreliable messages
// wait (the oldest are dropped unread, counted); the first frame after the stall reads only those,
// and the client plays again: its clock resyncs, it predicts ahead of the server, the server runs
// its inputs and its snapshots arrive. Unpaused, the drop is reported once; paused, never.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, createServer, defineProtocol, defineSystems, field, ghost, realTimeScheduler, system, tickDiff } from '../../src/index.ts';
import { MAX_QUEUED_UNRELIABLE } from '../../src/core/client-inbox.ts';
import { createSocketIoClientTransport, createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { waitFor } from '../helpers/wait.ts';

// Snapshots at 60 Hz: 256 unreliable messages wait after about 4 s.
const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 60,
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }) }),
    ball: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['interpolated'] }),
  },
  input: { move: field.vec2({ quantize: 100, maxLength: 1 }) },
  join: { name: field.string(8) },
});
const systems = defineSystems(protocol, [
  system.shared('walk', (world, ctx) => {
    for (const p of world.query('player')) p.components.position.x += ctx.input(p).move.x * 4 * ctx.dt;
  }),
  system.server('roll', (world, ctx) => {
    for (const b of world.query('ball')) b.components.position.z += ctx.dt;
  }),
]);

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function play() {
  const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
  const serverLog: string[] = [];
  const server = createServer({ protocol, systems, transport, scheduler: realTimeScheduler, log: (_l, m) => void serverLog.push(m) });
  server.events.on('join', (c) => server.spawn('player', { position: { x: 0, y: 0, z: 0 } }, { owner: c.networkId }));
  for (let i = 0; i < 20; i++) server.spawn('ball', { position: { x: i, y: 0, z: 0 } });
  server.start();
  cleanups.push(() => server.close());
  const { port } = await transport.ready();
  const log: string[] = [];
  const client = createClient({ protocol, systems, transport: createSocketIoClientTransport(`http://127.0.0.1:${port}`), log: (level, m) => void log.push(`${level} ${m}`) });
  let pumping = true;
  const pump = setInterval(() => pumping && client.update(performance.now()), 16);
  cleanups.push(() => clearInterval(pump), () => client.leave());
  client.connect();
  await waitFor(() => client.status === 'connected', 'handshake', 20_000);
  client.join({ name: 'p' });
  const player = () => [...client.world.query('player')][0];
  await waitFor(() => client.status === 'in-game' && player() !== undefined && client.clock.synced, 'join, the player ghost and a synced clock', 20_000);
  const serverPlayer = () => [...server.world.query('player')][0]!;
  return { server, serverLog, client, log, player, serverPlayer, setPumping: (on: boolean) => void (pumping = on) };
}

/** Stop the client's frames until unreliable messages were dropped unread, then run one frame by hand. */
async function stall(game: Awaited<ReturnType<typeof play>>) {
  const { client } = game;
  game.setPumping(false);
  const dropped = client.traffic.droppedUnread;
  await waitFor(() => client.traffic.droppedUnread > dropped, 'messages dropped unread during the stall', 40_000);
  const before = client.traffic.messagesIn;
  client.update(performance.now());
  const readInFirstFrame = client.traffic.messagesIn - before;
  game.setPumping(true);
  return readInFirstFrame;
}

/** After the stall: walking for a while moves the player on the server and in the prediction; snapshots keep coming. */
async function playsAgain(game: Awaited<ReturnType<typeof play>>) {
  const { client, server, player, serverPlayer } = game;
  const ahead = () => {
    const predicted = client.prediction!.lastTick;
    const confirmed = client.ghosts.timeline.newestSnapshotTick;
    return predicted !== undefined && confirmed !== undefined && tickDiff(predicted, confirmed) > 0;
  };
  await waitFor(() => client.clock.synced && ahead(), 'the clock resyncs: the prediction runs ahead of the newest snapshot', 20_000);
  const snapshots = client.traffic.snapshotsIn;
  const x0 = serverPlayer().components.position.x;
  client.input.current.move.x = 1;
  await waitFor(() => serverPlayer().components.position.x > x0 + 1, 'the server runs our inputs (1 m walked)', 20_000);
  client.input.current.move.x = 0;
  await waitFor(() => Math.abs(player()!.components.position.x - serverPlayer().components.position.x) < 0.01, 'the prediction rests where the server has the player', 20_000);
  expect(client.traffic.snapshotsIn - snapshots).toBeGreaterThan(10);
  expect(client.status).toBe('in-game');
  expect([...server.connections.values()].map((c) => c.state)).toEqual(['in-game']);
}

describe('a client that stops calling update(now), over socket.io', () => {
  it('keeps at most MAX_QUEUED_UNRELIABLE unreliable messages, reads only those in the next frame, plays again and says so once', { timeout: 120_000 }, async () => {
    const game = await play();
    const read = await stall(game);
    expect(read).toBeLessThanOrEqual(MAX_QUEUED_UNRELIABLE + 16); // the unreliable ones kept, and the few reliable ones
    expect(read).toBeGreaterThanOrEqual(MAX_QUEUED_UNRELIABLE / 2);
    await playsAgain(game);
    const warnings = game.log.filter((m) => m.includes('dropped unread'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warn react-netcode: more than 256 unreliable messages waited for the next client\.update\(now\)/);
    expect(game.serverLog.filter((m) => !m.startsWith('react-netcode:'))).toEqual([]);
  });

  it('paused (a hidden page) drops the same way without a warning, and plays again once unpaused', { timeout: 120_000 }, async () => {
    const game = await play();
    game.client.setPaused(true);
    const read = await stall(game);
    expect(read).toBeLessThanOrEqual(MAX_QUEUED_UNRELIABLE + 16);
    game.client.setPaused(false);
    await playsAgain(game);
    expect(game.log.filter((m) => m.includes('dropped unread'))).toEqual([]);
  });
});
