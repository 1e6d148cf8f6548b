// Limits on what one peer may cost (issue 16): messages and bytes per second, dropped
// on arrival and counted, the peer closed when it persists; pending handshakes and the
// handshake rate capped, extra peers refused at once. Defaults no real client reaches.

import { describe, expect, it } from 'vitest';
import { defineProtocol, defineSystems, field, ghost, rpc, system } from '../../src/index.ts';
import { MessageKind } from '../../src/core/wire.ts';
import { createStepper } from '../../src/testing/index.ts';
import { joinedRawPeer, rawMessage, rawPeer } from '../helpers/raw-peer.ts';

const protocol = defineProtocol({
  ghosts: { dot: ghost({ x: field.f32({ quantize: 100 }) }) },
  input: { move: field.f32({ quantize: 100, min: -1, max: 1 }), fire: field.event() },
  join: { name: field.string(16) },
  rpcs: { chat: rpc.toServer({ text: field.string(200) }), blob: rpc.toServer({ data: field.string(4000) }, { maxBytes: 4100 }) },
});
const systems = defineSystems(protocol, [system.shared('move', (w, ctx) => { for (const d of w.query('dot')) d.components.x += ctx.input(d).move * ctx.dt; })]);

function setup(server: object = {}) {
  const logs: string[] = [];
  const s = createStepper({ protocol, systems, clients: 1, log: (_l, m) => logs.push(m), server });
  s.server.events.on('join', (c) => s.server.spawn('dot', {}, { owner: c.networkId }));
  s.joinAll({ name: 'good' });
  return { s, logs };
}

function joined(s: ReturnType<typeof setup>['s']) {
  return joinedRawPeer(s, protocol, { name: 'flood' });
}

const ping = rawMessage((w) => {
  w.writeBits(MessageKind.Ping, 8);
  w.writeBits(0, 32);
});

describe('message and byte rates', () => {
  it('drops messages beyond maxMessagesPerSecond on arrival and counts them; the good player never notices', () => {
    const { s } = setup();
    const { peer, connection } = joined(s);
    for (let i = 0; i < 3000; i++) peer.send(ping, 'unreliable'); // all within one tick
    s.tick(2);
    // A full bucket holds one second: 1000 messages; 10 ms of refill at most adds ~10 (Stepper frames are 1 ms apart).
    const dropped = s.server.limitStats(connection)!.droppedMessages;
    expect(dropped).toBeGreaterThanOrEqual(3000 - 1000 - 20);
    expect(dropped).toBeLessThanOrEqual(2000);
    expect(connection.stats.droppedMessages).toBe(dropped); // one Ping per transport message
    expect(s.clients[0]!.client.status).toBe('in-game');
    expect(connection.state).toBe('in-game'); // one burst is not "persisting"
  });

  it('counts a Batch’s parts: a 64 KiB batch of tiny messages costs thousands, not one', () => {
    const { s } = setup();
    const { peer, connection } = joined(s);
    const parts = 2000; // entry = 1 length byte + 5-byte Ping: 12,001 bytes in all
    const batch = new Uint8Array(1 + parts * 6);
    batch[0] = MessageKind.Batch;
    for (let i = 0; i < parts; i++) batch.set([5, ...ping], 1 + i * 6);
    peer.send(batch, 'unreliable');
    peer.send(batch, 'unreliable');
    s.tick(2);
    // Each batch needs 2000 message tokens and the bucket holds 1000 at most: both are dropped whole.
    expect(s.server.limitStats(connection)!.droppedMessages).toBe(2 * parts);
  });

  it('drops bytes beyond maxBytesPerSecond (RPCs of 4 KB at 100 a second = 400 KB/s > 256 KiB/s)', () => {
    const { s } = setup();
    const { peer, connection } = joined(s);
    const got: number[] = [];
    s.server.onRpc('blob', (_c, p) => got.push(p.data.length));
    const blob = rawMessage((w) => {
      w.writeBits(MessageKind.Rpc, 8);
      w.writeVarUint(1);
      w.writeString('b'.repeat(4000), 4000);
    }); // 1 + 1 + 2 + 4000 = 4004 bytes
    for (let i = 0; i < 100; i++) peer.send(blob);
    s.tick(2);
    // 262,144 / 4004 = 65.5: 65 fit the full bucket, 35 are dropped.
    expect(got).toHaveLength(65);
    expect(s.server.limitStats(connection)!.droppedBytes).toBe(35 * 4004);
  });

  it('closes a peer still over its rate after rateLimitGraceMs (2 s), with the reason', () => {
    const { s, logs } = setup();
    const { peer, connection } = joined(s);
    const left: string[] = [];
    s.server.events.on('leave', (c, reason) => left.push(`${c.networkId}: ${reason}`));
    // 50 pings a frame at 60 frames a second = 3000 a second, three times the limit, for 3 s.
    for (let frame = 0; frame < 180 && peer.closed() === undefined; frame++) {
      for (let i = 0; i < 50; i++) peer.send(ping, 'unreliable');
      s.tick(1);
    }
    s.tick(60);
    const reason = 'react-netcode: closed for sending more than 1000 messages or 262144 bytes a second for 2000 ms (maxMessagesPerSecond / maxBytesPerSecond).';
    expect(peer.reasons).toEqual([reason]);
    expect(left).toEqual([`${connection.networkId}: ${reason}`]);
    expect(logs.filter((m) => m.startsWith(reason))).toHaveLength(1);
    expect(s.clients[0]!.client.status).toBe('in-game');
    expect(s.server.limitTotals.closedPeers).toBe(1);
  });

  it('a busy real client (240 fps, 20 chat RPCs a second, input every frame) never reaches a limit', () => {
    const s = createStepper({ protocol, systems, clients: [{ clock: { framePeriodMs: 1000 / 240 } }], log: () => {} });
    s.server.events.on('join', (c) => s.server.spawn('dot', {}, { owner: c.networkId }));
    s.joinAll({ name: 'fast' });
    const c = s.clients[0]!.client;
    for (let i = 0; i < 60; i++) {
      c.input.current.move = Math.sin(i);
      c.input.press('fire');
      c.send('chat', { text: 'x'.repeat(150) });
      s.advance(50);
    }
    const connection = s.server.connections.get(c.networkId!)!;
    expect(s.server.limitStats(connection)!.droppedMessages).toBe(0);
    expect(connection.stats.messagesIn).toBeGreaterThan(240); // ~ 3 s × (60 inputs (one per new tick) + 10 pings + 20 RPCs)
  });
});

describe('log lines that many connections can cause', () => {
  it('missing inputs: one line per connection per 5 s goes through the limiter (at most 5 per 10 s, then a count)', () => {
    const warnings: string[] = [];
    const s = createStepper({ protocol, systems, clients: 20, seed: 3, log: (level, m) => level === 'warn' && warnings.push(m) });
    s.server.events.on('join', (c) => s.server.spawn('dot', {}, { owner: c.networkId }));
    s.joinAll({ name: 'p' });
    for (const c of s.clients) c.client.input.current.move = 1;
    s.advance(1000);
    for (const c of s.clients) s.stall(c, 7000); // every client's frames stop: no inputs (under the 8 s silence timeout)
    s.advance(18_000); // the limiter's window (10 s) from the first line ends, and it counts what it left out
    const health = warnings.filter((w) => w.includes('ran without its input'));
    expect(health.length).toBe(5); // 20 connections were over the 2 % in the same window
    expect(warnings.some((w) => /^react-netcode: \d+ more "missing inputs" messages were not logged in the last \d+ s/.test(w))).toBe(true);
  });

  it("a logger that lists only warn and error gets no debug line for each closed connection", () => {
    const lines: string[] = [];
    const log = Object.assign((level: string, m: string) => void lines.push(`${level}: ${m}`), { levels: ['warn', 'error'] as const });
    const s = createStepper({ protocol, systems, clients: 3, log });
    s.joinAll({ name: 'p' });
    for (const c of s.clients) c.client.leave();
    s.advance(1000);
    expect(s.server.connections.size).toBe(0);
    expect(lines.filter((l) => l.startsWith('debug:'))).toEqual([]);
  });
});

describe('handshakes', () => {
  it('refuses peers beyond maxPendingPeers at once, with the reason; they never reach the server', () => {
    const { s } = setup({ maxPendingPeers: 8 });
    const silent = Array.from({ length: 12 }, () => rawPeer(s.network));
    s.tick(2);
    expect(s.server.pendingPeers).toBe(8);
    const refused = silent.filter((p) => p.closed() !== undefined);
    expect(refused).toHaveLength(4);
    expect(refused[0]!.reasons).toEqual([expect.stringMatching(/^react-netcode: the server is busy \(more than 8 handshakes pending or 100 new connections a second\); try again shortly \(the server options maxPendingPeers and maxHandshakesPerSecond set these limits\)\.$/)]);
    expect(s.server.limitTotals.refusedPeers).toBe(4);
    // A pending peer that says Hello frees its slot; a new one then gets in.
    silent[0]!.hello(protocol);
    s.tick(2);
    const next = rawPeer(s.network);
    s.tick(2);
    expect(next.closed()).toBeUndefined();
    expect(s.server.pendingPeers).toBe(8);
  });

  it('Hello, then drop, at the handshake rate: no place is kept for those that never joined, an honest client gets in', () => {
    const { s } = setup({ maxConnections: 8, maxHandshakesPerSecond: 100 });
    const good = s.clients[0]!.client;
    for (let round = 0; round < 40; round++) { // 200 handshakes in 4 s, 5 at a time (the server has places for 8)
      const peers = Array.from({ length: 5 }, () => rawPeer(s.network));
      s.tick(1);
      for (const p of peers) p.hello(protocol, s.server.identity);
      s.tick(3);
      expect(peers.every((p) => p.welcomes.length === 1)).toBe(true); // each had its session
      for (const p of peers) p.transport.close('gone');
      s.advance(100);
      expect(s.server.connections.size).toBe(1); // the good player's only, never suspended strangers
    }
    const late = s.addClient();
    s.until(() => late.client.status === 'connected', 2000, 'the late client');
    expect(good.status).toBe('in-game');
  });

  it('a connection that has not joined is closed when its link drops (no resume kept); one in game is suspended', () => {
    const { s } = setup();
    const lobby = s.addClient();
    s.until(() => lobby.client.status === 'connected', 2000, 'the lobby client');
    const id = lobby.client.networkId!;
    const inGame = [...s.server.connectionsInGame][0]!;
    const left: string[] = [];
    s.server.events.on('leave', (c, reason) => left.push(`${c.networkId}: ${reason}`));
    s.network.server.disconnect(s.server.connections.get(id)!.peer, 'test: dropped');
    s.network.server.disconnect(inGame.peer, 'test: dropped');
    s.tick(2);
    expect(left).toEqual([`${id}: test: dropped`]);
    expect(inGame.state).toBe('suspended');
    s.until(() => lobby.client.status === 'connected' && lobby.client.state.resumeFailed, 3000, "the lobby client's fresh session");
    expect(lobby.client.networkId).not.toBe(id);
  });

  it('caps new peers per second (maxHandshakesPerSecond, a bucket of one second)', () => {
    const { s } = setup({ maxPendingPeers: 1000, maxHandshakesPerSecond: 20 });
    s.advance(2000); // refill after the good client's handshake
    const first = Array.from({ length: 30 }, () => rawPeer(s.network));
    s.tick(1);
    expect(first.filter((p) => p.closed() === undefined)).toHaveLength(20);
    s.advance(500); // +10 tokens
    const second = Array.from({ length: 30 }, () => rawPeer(s.network));
    s.tick(1);
    expect(second.filter((p) => p.closed() === undefined).length).toBeGreaterThanOrEqual(10);
    expect(second.filter((p) => p.closed() === undefined).length).toBeLessThanOrEqual(11); // 500 + 17 ms of refill = 10.3 tokens
  });
});
