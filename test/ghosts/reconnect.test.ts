// Reconnection: a client that loses its link resumes within the grace period
// (same networkId, ghosts and handles kept, baselines reset, world resynced); after
// the grace the server destroys its ghosts and the client must join again.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { DROP_WATCH_RECHECK_MS } from '../../src/core/reconnect.ts';
import type { ClientTransport, ClientTransportHandler, Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { defineSystems } from '../../src/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';
import { runnerProtocol, runnerSystems } from '../helpers/runner.ts';

const quiet: Logger = () => {};

/** Simulates the network going away: while `down`, the link is cut and reconnects fail. */
function cut(s: ReturnType<typeof setup>['s'], index: number): { restore(): void } {
  const c = s.clients[index]!;
  const transport = c.transport as ClientTransport & { __down?: boolean };
  const inner = { connect: transport.connect.bind(transport) };
  let down = true;
  transport.connect = (h: ClientTransportHandler) => (down ? h.onClose('network unreachable') : inner.connect(h));
  const peer = [...s.server.connections.values()].find((conn) => conn.networkId === c.client.networkId)!.peer;
  s.network.server.disconnect(peer, 'network down'); // the server's side of the link dies
  return { restore: () => void (down = false) };
}

function setup(serverGrace: number, clientGrace: number) {
  const s = createStepper({
    protocol: arena,
    systems: arenaSystems,
    log: quiet,
    server: { resumeGraceMs: serverGrace },
    clients: [{ engine: { resumeGraceMs: clientGrace } }, { engine: { resumeGraceMs: clientGrace } }],
  });
  s.server.events.on('join', (c) => s.server.spawn('player', { hp: 100 }, { owner: c.networkId }));
  const ball = s.server.spawn('ball', { position: { x: 0, y: 0, z: 0 }, velocity: { x: 1, y: 0, z: 0 } });
  s.joinAll({ name: 'p' });
  s.advance(500);
  return { s, ball };
}

describe('reconnection over loopback', () => {
  it('resumes within the grace period: same networkId, ghosts kept, same local handles', () => {
    const { s, ball } = setup(10_000, 10_000);
    const c = s.clients[0]!.client;
    const id = c.networkId;
    const handle = c.world.get(ball.id)!.handle;
    const events: string[] = [];
    s.server.events.on('suspend', (conn) => events.push(`suspend ${conn.networkId}`));
    s.server.events.on('resume', (conn) => events.push(`resume ${conn.networkId}`));
    s.server.events.on('leave', (conn) => events.push(`leave ${conn.networkId}`));
    const statuses: string[] = [];
    c.events.on('status', (st) => statuses.push(st.status));
    const net = cut(s, 0);
    s.advance(3000);
    expect(c.status).toBe('reconnecting');
    expect(s.server.world.size).toBe(3); // its player is kept while suspended
    net.restore();
    s.until(() => c.status === 'in-game', 5000, 'resume');
    expect(c.networkId).toBe(id);
    expect(statuses).toEqual(['reconnecting', 'in-game']);
    expect(events).toEqual([`suspend ${id}`, `resume ${id}`]);
    s.advance(1000); // baselines were reset: the world resyncs from fresh snapshots
    expect(c.world.get(ball.id)!.handle).toBe(handle); // not re-created
    expect(c.world.size).toBe(3);
    const server = s.server.world.get(ball.id)!;
    expect(Math.abs(c.world.get(ball.id)!.components.position.x - server.components.position.x)).toBeLessThan(0.5); // interpolation delay behind
  });

  it('while suspended, the ticks its player runs without input are not missing inputs, and nobody is warned', () => {
    const warnings: string[] = [];
    // The runner's move system reads its owner's input every tick (the arena's players read none).
    const s = createStepper({
      protocol: runnerProtocol,
      systems: defineSystems(runnerProtocol, runnerSystems),
      log: (level, m) => level === 'warn' && warnings.push(m),
      server: { resumeGraceMs: 20_000 },
      clients: [{ engine: { resumeGraceMs: 20_000 } }],
    });
    s.server.events.on('join', (c) => s.server.spawn('runner', {}, { owner: c.networkId }));
    s.joinAll({ name: 'p' });
    s.advance(2000);
    const conn = [...s.server.connections.values()][0]!;
    const before = s.server.inputStats(conn)!.missing;
    cut(s as never, 0);
    s.advance(12_000); // two health windows (5 s) and more of a suspended connection whose player still ticks
    expect(conn.state).toBe('suspended');
    expect(s.server.inputStats(conn)!.missing - before).toBeLessThanOrEqual(1); // at most the tick the link died in
    expect(warnings.filter((w) => w.includes('ran without its input'))).toEqual([]);
  });

  it('after the grace period the server destroys its ghosts; the client joins again with a clean world', () => {
    const { s } = setup(2000, 20_000);
    const c = s.clients[0]!.client;
    const other = s.clients[1]!.client;
    const oldId = c.networkId!;
    const despawned: number[] = [];
    c.ghosts.events.on('despawn', (g) => despawned.push(g.id));
    const left: string[] = [];
    s.server.events.on('leave', (conn, reason) => left.push(`${conn.networkId}: ${reason}`));
    const net = cut(s, 0);
    s.advance(2500);
    expect(left).toEqual([`${oldId}: connection lost (not resumed in time)`]);
    expect([...s.server.world.query('player')].map((p) => p.owner)).toEqual([other.networkId]);
    s.advance(500);
    expect([...other.world.query('player')].map((p) => p.owner)).toEqual([other.networkId]); // gone for the others too
    net.restore();
    s.until(() => c.status === 'connected', 5000, 'reconnect');
    expect(c.state.resumeFailed).toBe(true);
    expect(c.networkId).not.toBe(oldId);
    expect(c.world.size).toBe(0); // clean world
    expect(despawned.length).toBe(3);
    c.join({ name: 'again' });
    s.until(() => c.status === 'in-game', 5000, 'join again');
    s.advance(500);
    expect(c.world.size).toBe(3);
  });

  it('gives up when the client’s own grace runs out', () => {
    const { s } = setup(10_000, 3000);
    const c = s.clients[0]!.client;
    cut(s, 0);
    s.advance(3500);
    expect(c.status).toBe('closed');
    expect(c.state.closeReason).toMatch(/could not resume within 3000 ms/);
  });
});

describe('the attempts of a resume', () => {
  it('are opened with intent { resume: true } (the transport tries each once: the schedule is the engine\'s); a connect() is not', () => {
    const { s } = setup(10_000, 10_000);
    const peer = s.clients[0]!;
    const transport = peer.transport as ClientTransport;
    const net = cut(s, 0);
    const intents: (boolean | undefined)[] = [];
    const connect = transport.connect.bind(transport); // cut's: refuses while the network is down
    transport.connect = (h, intent) => {
      intents.push(intent?.resume);
      connect(h, intent);
    };
    s.advance(2000);
    net.restore();
    s.until(() => peer.client.status === 'in-game', 5000, 'resume');
    expect(intents.length).toBeGreaterThanOrEqual(3);
    expect(intents.every((r) => r === true)).toBe(true);
    peer.client.leave();
    s.advance(100);
    intents.length = 0;
    peer.client.connect();
    expect(intents).toEqual([false]);
  });
});

describe('a dropped client whose frames stop (a hidden page, a stopped loop)', () => {
  afterEach(() => void vi.useRealTimers());

  /** No frames for `client` (as in a hidden page: the transport's callbacks still run); returns the function that shows it again. */
  function hide(c: { update(now: number): void }): () => void {
    const update = c.update.bind(c);
    c.update = () => {};
    return () => void (c.update = update);
  }

  it('closes when the grace is over on the real clock, although no frame saw the drop', () => {
    vi.useFakeTimers();
    const { s } = setup(10_000, 2000);
    const c = s.clients[0]!.client;
    const statuses: string[] = [];
    c.events.on('status', (st) => statuses.push(st.status));
    const show = hide(c);
    cut(s, 0);
    s.advance(100); // the drop reaches the transport's callback; no frame runs
    vi.advanceTimersByTime(1999);
    expect(c.status).toBe('in-game');
    vi.advanceTimersByTime(1);
    expect(c.status).toBe('closed');
    expect(c.state.closeReason).toMatch(/^react-netcode: connection lost: could not resume within 2000 ms \(network down\): client\.update\(now\) did not run for 2000 ms.*call connect\(\) to start a new session\.$/);
    expect(statuses).toEqual(['closed']);
    show();
    s.advance(100);
    expect(c.status).toBe('closed');
  });

  it('closes when frames stop after the drop was seen (reconnecting), within the grace and one recheck', () => {
    vi.useFakeTimers();
    const { s } = setup(10_000, 2000);
    const c = s.clients[0]!.client;
    cut(s, 0);
    s.advance(100);
    expect(c.status).toBe('reconnecting');
    hide(c);
    vi.advanceTimersByTime(2000); // frames ran since the drop: the watch looks again later
    expect(c.status).toBe('reconnecting');
    // 6 frames ran in the 2000 ms (100 ms at 60 fps): a mean gap of 333 ms, three of them 1000 ms (> 500 ms).
    vi.advanceTimersByTime(999);
    expect(c.status).toBe('reconnecting');
    vi.advanceTimersByTime(1);
    expect(c.status).toBe('closed');
    expect(c.state.closeReason).toMatch(/could not resume within 2000 ms .*: client\.update\(now\) did not run for 1000 ms/);
  });

  it('a slow loop (a frame every 1.5 s) is not taken for a stopped one: its own frame closes it after the grace', () => {
    vi.useFakeTimers();
    const s = createStepper({
      protocol: arena, systems: arenaSystems, log: quiet, server: { resumeGraceMs: 10_000 },
      clients: [{ engine: { resumeGraceMs: 2000 }, clock: { framePeriodMs: 1500 } }],
    });
    s.joinAll({ name: 'p' });
    s.advance(3000);
    const c = s.clients[0]!.client;
    cut(s, 0);
    // The client's clock and the real one move together. Frames at about 1.5, 3 s after the drop: the one past the grace
    // (2 s) closes it. The watch, at 2 s, saw one frame in 2 s, so it looks again 6 s later; with a fixed 500 ms
    // recheck it closed the session at 2.5 s, saying update(now) had stopped.
    for (let t = 0; t < 4000 && c.status !== 'closed'; t += 100) {
      s.advance(100);
      vi.advanceTimersByTime(100);
    }
    expect(c.status).toBe('closed');
    expect(c.state.closeCode).toBe('lost');
    expect(c.state.closeReason).toMatch(/^react-netcode: connection lost: could not resume within 2000 ms/);
    expect(c.state.closeReason).not.toMatch(/did not run/);
  });

  it('while frames run, the grace is on the client\'s clock: real time alone never closes it while frames run, and a resume ends the watch', () => {
    vi.useFakeTimers();
    const { s } = setup(10_000, 2000);
    const c = s.clients[0]!.client;
    const net = cut(s, 0);
    for (let i = 0; i < 80; i++) {
      s.advance(12); // under 1 s of the client's clock, in frames …
      vi.advanceTimersByTime(DROP_WATCH_RECHECK_MS / 2); // … spread over 20 s of real time
    }
    expect(c.status).toBe('reconnecting');
    net.restore();
    s.until(() => c.status === 'in-game', 2000, 'resume');
    vi.advanceTimersByTime(60_000);
    s.advance(100);
    expect(c.status).toBe('in-game');
  });

  it('a paused client (a hidden page) is not closed at the grace: back, it tries once more and gets a fresh session (resumeFailed)', () => {
    vi.useFakeTimers();
    const { s } = setup(2000, 2000); // the server's grace is as short: it has ended the old session meanwhile
    const c = s.clients[0]!.client;
    c.setPaused(true);
    const show = hide(c);
    const net = cut(s, 0);
    s.advance(100);
    vi.advanceTimersByTime(10_000); // hidden for 10 s, far past the grace: the watch leaves a paused client alone
    s.advance(4000);
    expect(c.status).toBe('in-game'); // no frame has seen the drop yet
    net.restore();
    show();
    c.setPaused(false);
    s.until(() => c.status === 'connected', 3000, 'a fresh session');
    expect(c.state.resumeFailed).toBe(true); // the world was cleared: join again (the React provider does with its join prop)
    c.join({ name: 'back' });
    s.until(() => c.status === 'in-game', 3000, 'the join');
  });

  it('a paused client whose last attempt fails too is closed', () => {
    const { s } = setup(2000, 2000);
    const c = s.clients[0]!.client;
    c.setPaused(true);
    const show = hide(c);
    cut(s, 0); // never restored
    s.advance(3000);
    show();
    c.setPaused(false);
    s.until(() => c.status === 'closed', 8000, 'closed');
    expect(c.state.closeReason).toMatch(/could not resume within 2000 ms .*call connect/);
  });

  it('the grace counts from the drop, not from the first frame that sees it', () => {
    const { s } = setup(10_000, 2000);
    const c = s.clients[0]!.client;
    const show = hide(c);
    const droppedAt = s.now;
    cut(s, 0);
    s.advance(1500); // hidden for 1.5 s: the drop waits for a frame
    show();
    s.advance(20);
    expect(c.status).toBe('reconnecting');
    s.until(() => c.status === 'closed', 5000, 'closed');
    expect(s.now - droppedAt).toBeLessThanOrEqual(2000 + 20);
    expect(c.state.closeReason).toMatch(/could not resume within 2000 ms \(network down\); call connect/);
  });
});
