// What waits for the next client frame: a hidden page (no animation frames) or an app that calls
// update(now) rarely must not keep minutes of snapshots and decode them all in one frame. Past
// MAX_QUEUED_UNRELIABLE unreliable messages the oldest are dropped unread (as if lost); every
// reliable message still arrives, in order; the client stays in game and catches up.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, defineProtocol, defineSystems, field, ghost, rpc, system, type ClientTransport, type ClientTransportHandler, type Logger } from '../../src/index.ts';
import { MAX_QUEUED_UNRELIABLE } from '../../src/core/client-inbox.ts';
import { FRAME_WATCH_MS } from '../../src/core/client-session.ts';
import { createStepper } from '../../src/testing/index.ts';

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: { ball: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['interpolated'] }) },
  input: {},
  join: {},
  rpcs: { news: rpc.toClient({ n: field.u32() }) },
});
const systems = defineSystems(protocol, [
  system.shared('move', (world, ctx) => {
    for (const b of world.query('ball')) b.components.position.x += ctx.dt;
  }),
]);

function run(paused: boolean) {
  const logs: string[] = [];
  const log: Logger = (level, message) => void (level === 'warn' && logs.push(message));
  // A main thread blocked for a minute sends nothing, not even a paused client's Pings: the server's own
  // silenceTimeoutMs would take it for a dropped link (test/core/server-silence.test.ts). Off here: this is the inbox's test.
  const s = createStepper({ protocol, systems, seed: 5, log, server: { silenceTimeoutMs: 0 }, clients: [{}] });
  const balls = Array.from({ length: 50 }, (_, i) => s.server.spawn('ball', { position: { x: 0, y: 0, z: i } }));
  s.joinAll({});
  s.advance(2000);
  const c = s.clients[0]!;
  const news: number[] = [];
  c.client.onRpc('news', ({ n }) => news.push(n));
  if (paused) c.client.setPaused(true);
  const before = c.client.traffic.snapshotsIn;
  s.stall(c, 60_000); // a minute without a frame: 1,200 snapshots and 60 RPCs arrive
  for (let n = 0; n < 60; n++) {
    s.server.broadcast('news', { n });
    s.advance(1000);
  }
  s.advance(20); // the first frame after the stall
  const handled = c.client.traffic.snapshotsIn - before;
  if (paused) c.client.setPaused(false);
  s.advance(1000);
  const lag = Math.max(...balls.map((b) => Math.abs(b.components.position.x - c.client.world.get(b.id)!.components.position.x)));
  return { handled, dropped: c.client.traffic.droppedUnread, news, logs, status: c.client.status, lag };
}

describe('client inbox', () => {
  it('keeps at most the newest unreliable messages across a minute without frames, and every RPC', () => {
    const r = run(false);
    expect(r.handled).toBeGreaterThan(0);
    expect(r.handled).toBeLessThanOrEqual(MAX_QUEUED_UNRELIABLE);
    expect(r.dropped).toBeGreaterThan(1000); // ≈ 1,200 snapshots + Pongs, less the newest
    expect(r.news).toEqual(Array.from({ length: 60 }, (_, n) => n)); // reliable: all of them, in order
    expect(r.status).toBe('in-game');
    // Interpolated 1 s later: on the timeline again (its delay is ≈ 100 ms, the balls move 1 m/s).
    expect(r.lag).toBeLessThan(0.5);
    expect(r.logs.filter((m) => m.includes('dropped unread'))).toHaveLength(1); // said once
    expect(r.logs.find((m) => m.includes('dropped unread'))).toMatch(/^react-netcode: .*update\(now\) every frame/);
  });

  it('says nothing when the client is paused (a hidden page drops by design)', () => {
    const r = run(true);
    expect(r.handled).toBeLessThanOrEqual(MAX_QUEUED_UNRELIABLE);
    expect(r.dropped).toBeGreaterThan(1000);
    expect(r.news).toHaveLength(60);
    expect(r.logs.filter((m) => m.includes('dropped unread'))).toHaveLength(0);
    expect(r.lag).toBeLessThan(0.5);
  });
});

describe('a client whose update(now) never runs', () => {
  afterEach(() => void vi.useRealTimers());

  function connected(frames: number, paused = false) {
    vi.useFakeTimers();
    const logs: string[] = [];
    const log: Logger = (level, message) => void (level === 'warn' && logs.push(message));
    // A link that opens at once and answers nothing: the open waits for the first frame.
    const client = createClient({ protocol, log, transport: { connect: (h) => h.onOpen(), send: () => {}, close: () => {} } });
    if (paused) client.setPaused(true);
    client.connect();
    for (let f = 0; f < frames; f++) client.update(f * 16);
    if (frames > 0) expect(vi.getTimerCount()).toBe(0); // the first frame clears the watch
    vi.advanceTimersByTime(FRAME_WATCH_MS - 1);
    const early = logs.length;
    vi.advanceTimersByTime(1);
    vi.advanceTimersByTime(60_000);
    return { early, logs, client };
  }

  it('says once, after FRAME_WATCH_MS, that the handshake waits for update(now)', () => {
    const r = connected(0);
    expect(r.early).toBe(0);
    expect(r.logs).toHaveLength(1);
    expect(r.logs[0]).toMatch(/^react-netcode: client\.update\(now\) has not run in the 5 s since connect\(\) \(1 event\(s\) of the link wait for it\), so the client stays 'connecting'.*Call it every frame/);
    expect(r.client.status).toBe('connecting');
  });

  it('says nothing once a frame ran, or while paused, or after leave()', () => {
    expect(connected(1).logs).toEqual([]);
    expect(connected(0, true).logs).toEqual([]);
    vi.useFakeTimers();
    const logs: string[] = [];
    const client = createClient({ protocol, log: (_l, m) => void logs.push(m), transport: { connect: (h) => h.onOpen(), send: () => {}, close: () => {} } });
    client.connect();
    expect(vi.getTimerCount()).toBe(1);
    client.leave();
    expect(vi.getTimerCount()).toBe(0); // the watch is cleared: nothing keeps the client reachable
    vi.advanceTimersByTime(60_000);
    expect(logs.filter((m) => m.includes('has not run'))).toEqual([]);
  });
});

describe('the frame watch across connections', () => {
  afterEach(() => void vi.useRealTimers());

  function client() {
    vi.useFakeTimers();
    const logs: string[] = [];
    const c = createClient({
      protocol, log: (level, m) => void (level === 'warn' && m.includes('has not run') && logs.push(m)),
      transport: { connect: (h) => h.onOpen(), send: () => {}, close: () => {} },
    });
    return { c, logs };
  }

  it('leave() then connect(): only the new connect() is watched, from its own start', () => {
    const { c, logs } = client();
    c.connect();
    vi.advanceTimersByTime(3000);
    c.leave();
    c.connect();
    vi.advanceTimersByTime(FRAME_WATCH_MS - 1); // the first watch (due at 5 s) is past: it says nothing
    expect(logs).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(logs).toHaveLength(1);
    vi.advanceTimersByTime(60_000);
    expect(logs).toHaveLength(1);
  });

  it('a frame after the second connect() silences it; one before it does not count', () => {
    const { c, logs } = client();
    c.connect();
    c.update(0);
    c.leave();
    c.connect();
    vi.advanceTimersByTime(60_000);
    expect(logs).toHaveLength(1);
    const second = client();
    second.c.connect();
    second.c.leave();
    second.c.connect();
    vi.advanceTimersByTime(100);
    second.c.update(100);
    vi.advanceTimersByTime(60_000);
    expect(second.logs).toEqual([]);
  });
});

describe('the warning when unreliable messages were dropped unread', () => {
  /** A client on a transport that delivers what the test says, at the client clock's time `t.now`. */
  function client() {
    const logs: string[] = [];
    const t = { now: 0 };
    let handler: ClientTransportHandler | undefined;
    const transport: ClientTransport = { connect: (h) => void (handler = h), send: () => {}, close: () => {} };
    const c = createClient({ protocol, transport, now: () => t.now, log: (level, m) => void (level === 'warn' && logs.push(m)) });
    c.connect();
    handler!.onOpen();
    const frames = (from: number, count: number) => {
      for (let i = 0; i < count; i++) c.update((t.now = from + i * 16));
    };
    /** `n` unreliable messages at once, at `at` (never read: the test ends before the next frame). */
    const burst = (n: number, at: number) => {
      t.now = at;
      for (let i = 0; i < n; i++) handler!.onMessage(new Uint8Array([0xff]), 'unreliable');
    };
    return { c, logs, frames, burst };
  }

  it('frames on time and a burst between two of them (a stalled link recovering): says a burst came, not to call update every frame', () => {
    const { logs, frames, burst } = client();
    frames(0, 10); // the last at 144 ms, every 16 ms
    burst(MAX_QUEUED_UNRELIABLE + 1, 150);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^react-netcode: more than 256 unreliable messages waited for the next client\.update\(now\); the oldest 129 were dropped unread \(as if lost\): they arrived at once, 6 ms after a frame on time \(frames every 16 ms\), a burst such as a stalled link delivers when it recovers\. Nothing to do after a network outage/);
    expect(logs[0]).not.toMatch(/every frame/);
  });

  it('frames that stopped: says when update(now) last ran and to call it every frame, once', () => {
    const { logs, frames, burst } = client();
    frames(0, 10);
    burst(MAX_QUEUED_UNRELIABLE + 1, 2144);
    burst(MAX_QUEUED_UNRELIABLE, 3000); // the same cause again: not said twice
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^react-netcode: more than 256 unreliable messages .*: update\(now\) last ran 2000 ms before, its frames came every 16 ms until then\. Call update\(now\) every frame \(the React provider does\), or setPaused\(true\)/);
  });
});
