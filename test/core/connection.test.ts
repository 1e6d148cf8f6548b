import { describe, expect, it } from 'vitest';
import { createClient, defineProtocol, field, rpc, type Logger } from '../../src/index.ts';
import { MessageKind } from '../../src/internals.ts';
import { BitWriter } from '../../src/core/bits.ts';
import { createStepper } from '../../src/testing/index.ts';
import { chatProtocol } from '../helpers/protocols.ts';

const quiet: Logger = () => {};

function rawMessage(build: (w: BitWriter) => void): Uint8Array {
  const w = new BitWriter();
  build(w);
  return w.toBytes();
}

describe('handshake and join', () => {
  it('goes connecting → connected → joining → in game, with networkIds from 1', () => {
    const s = createStepper({ protocol: chatProtocol, clients: 2, log: quiet });
    const seen: string[] = [];
    s.clients[0]!.client.events.on('status', (st) => seen.push(st.status));
    expect(s.clients[0]!.client.status).toBe('connecting');
    s.until(() => s.clients.every((c) => c.client.status === 'connected'), 1000, 'handshake');
    expect(s.clients.map((c) => c.client.networkId)).toEqual([1, 2]);
    s.joinAll({ name: 'ann', token: 't' });
    expect(seen).toEqual(['connected', 'joining', 'in-game']);
    expect([...s.server.connections.values()].map((c) => [c.networkId, c.state, c.joinPayload?.name])).toEqual([
      [1, 'in-game', 'ann'],
      [2, 'in-game', 'ann'],
    ]);
  });

  it('lets onJoin refuse with a reason; the client may try again', () => {
    const s = createStepper({
      protocol: chatProtocol,
      clients: 1,
      log: quiet,
      server: { onJoin: (_c, p) => (p.token === 'secret' ? true : { reject: 'bad token' }) },
    });
    const c = s.clients[0]!.client;
    s.until(() => c.status === 'connected');
    c.join({ name: 'eve', token: 'guess' });
    s.until(() => c.status !== 'joining');
    expect(c.status).toBe('connected');
    expect(c.state.joinError).toBe('bad token');
    c.join({ name: 'eve', token: 'secret' });
    s.until(() => c.status === 'in-game');
    expect(c.state.joinError).toBeUndefined();
  });

  it('supports an async onJoin', async () => {
    let release: (ok: boolean) => void = () => {};
    const s = createStepper({ protocol: chatProtocol, clients: 1, log: quiet, server: { onJoin: () => new Promise<boolean>((r) => (release = r)) } });
    const c = s.clients[0]!.client;
    s.until(() => c.status === 'connected');
    c.join({ name: 'a', token: '' });
    s.tick(10);
    expect(c.status).toBe('joining');
    release(true);
    await Promise.resolve();
    s.until(() => c.status === 'in-game');
  });

  it('refuses a client whose protocol differs, with a clear reason', () => {
    const other = defineProtocol({ tickRate: 60, snapshotRate: 20, join: { name: field.string(16), token: field.string(64) }, rpcs: { say: rpc.toServer({ text: field.string(99) }) } });
    expect(other.hash).not.toBe(chatProtocol.hash);
    const s = createStepper({ protocol: chatProtocol, log: quiet });
    const a = s.addClient();
    // Swap in a client built from the other protocol on a fresh loopback link.
    const bad = createClient({ protocol: other, transport: s.network.createClient(), log: quiet });
    bad.connect();
    for (let i = 0; i < 30 && bad.status !== 'closed'; i++) {
      s.tick(1);
      bad.update(s.now); // this client is outside the Stepper: drive it by hand
    }
    expect(bad.status).toBe('closed');
    expect(bad.state.closeReason).toMatch(
      /^react-netcode: protocol mismatch \(client protocol [0-9a-f]{8}, server [0-9a-f]{8}; both wire format v\d+\): build client and server from the same defineProtocol, deploy them together and reload the page for the current client\.$/,
    );
    expect(a.client.status).toBe('connected');
    expect(s.server.connections.size).toBe(1);
  });

  it('refuses clients beyond maxConnections', () => {
    const s = createStepper({ protocol: chatProtocol, clients: 3, log: quiet, server: { maxConnections: 2 } });
    s.until(() => s.clients.filter((c) => c.client.status === 'closed').length === 1 && s.clients.filter((c) => c.client.status === 'connected').length === 2);
    expect(s.clients[2]!.client.state.closeReason).toBe('react-netcode: server full (2 connections, maxConnections 2); try again later.');
  });

  it('logs each refused handshake on the server, rate-limited, with the reason', () => {
    const other = defineProtocol({ tickRate: 60, snapshotRate: 20, join: { name: field.string(16), token: field.string(64) } });
    const lines: string[] = [];
    const s = createStepper({ protocol: chatProtocol, log: (level, m) => level === 'warn' && lines.push(m) });
    const refusedLines = () => lines.filter((l) => l.includes('refused the handshake'));
    const bad = Array.from({ length: 8 }, () => createClient({ protocol: other, transport: s.network.createClient(), log: quiet }));
    for (const c of bad) c.connect();
    for (let i = 0; i < 30 && bad.some((c) => c.status !== 'closed'); i++) {
      s.tick(1);
      for (const c of bad) c.update(s.now);
    }
    expect(bad.every((c) => c.status === 'closed')).toBe(true);
    // Eight refusals within 10 s: five lines, each naming the peer and the reason with what to do …
    expect(refusedLines()).toHaveLength(5);
    expect(refusedLines()[0]).toMatch(/^react-netcode: refused the handshake of peer \d+: protocol mismatch .*same defineProtocol, deploy them together and reload the page for the current client\.$/);
    // … and, once the window is over, one line saying how many were left out.
    s.tick(11 * 60);
    expect(lines.some((l) => /^react-netcode: 3 more "refused handshake" messages were not logged/.test(l))).toBe(true);
  });

  it('logs a client refused because the server is full', () => {
    const lines: string[] = [];
    const s = createStepper({ protocol: chatProtocol, clients: 2, log: (level, m) => level === 'warn' && lines.push(m), server: { maxConnections: 1 } });
    s.until(() => s.clients.some((c) => c.client.status === 'closed'));
    expect(lines.filter((l) => l.startsWith('react-netcode: refused the handshake of peer'))).toEqual([
      expect.stringMatching(/: server full \(1 connections, maxConnections 1\); try again later\.$/),
    ]);
  });

  it('drops a peer that never says Hello, after the handshake timeout', () => {
    const s = createStepper({ protocol: chatProtocol, log: quiet, server: { handshakeTimeoutMs: 1000 } });
    const silent = s.network.createClient();
    let closed = '';
    silent.connect({ onOpen: () => {}, onMessage: () => {}, onClose: (r) => (closed = r) });
    s.advance(500);
    expect(s.server.pendingPeers).toBe(1);
    s.advance(600);
    expect(s.server.pendingPeers).toBe(0);
    expect(closed).toBe('handshake timed out');
  });
});

describe('networkId reuse policy', () => {
  it('never reissues an id during its quarantine, then reuses the lowest free one', () => {
    const s = createStepper({ protocol: chatProtocol, clients: 2, log: quiet, server: { resumeGraceMs: 1000, idQuarantineMs: 500 } });
    s.until(() => s.clients.every((c) => c.client.status === 'connected'));
    s.clients[0]!.client.leave('bye');
    s.until(() => s.server.connections.size === 1);
    const third = s.addClient();
    s.until(() => third.client.status === 'connected');
    expect(third.client.networkId).toBe(3); // id 1 is quarantined for 1000 + 500 ms
    s.advance(1600);
    const fourth = s.addClient();
    s.until(() => fourth.client.status === 'connected');
    expect(fourth.client.networkId).toBe(1); // quarantine over: lowest free id
  });
});

describe('typed RPCs', () => {
  function inGame() {
    const s = createStepper({ protocol: chatProtocol, clients: 3, log: quiet });
    s.joinAll({ name: 'p', token: '' });
    return s;
  }

  it('client → server, server → one, server → all', () => {
    const s = inGame();
    const got: string[] = [];
    s.server.onRpc('say', (conn, { text }) => {
      got.push(`${conn.networkId}:${text}`);
      s.server.broadcast('said', { from: conn.networkId, text });
      s.server.send(conn, 'said', { from: 0, text: 'only you' });
    });
    const heard = s.clients.map(() => [] as string[]);
    s.clients.forEach((c, i) => c.client.onRpc('said', (p) => heard[i]!.push(`${p.from}:${p.text}`)));
    s.clients[1]!.client.send('say', { text: 'hello' });
    s.tick(5);
    expect(got).toEqual(['2:hello']);
    expect(heard).toEqual([['2:hello'], ['2:hello', '0:only you'], ['2:hello']]);
  });

  it('quantizes payloads with the field codecs', () => {
    const s = inGame();
    const moves: unknown[] = [];
    s.server.onRpc('move', (_c, p) => moves.push(p));
    s.clients[0]!.client.send('move', { dir: { x: 0.123456, y: -1 }, run: true });
    s.tick(3);
    expect(moves).toEqual([{ dir: { x: 0.12, y: -1 }, run: true }]); // quantize 100 → 0.01 steps
  });

  it('rejects bad payloads and oversized ones at the sender', () => {
    const s = inGame();
    const c = s.clients[0]!.client;
    expect(() => c.send('say', { text: 5 } as never)).toThrow(/react-netcode: RPC "say" payload is invalid/);
    expect(() => c.send('blob', { text: 'x'.repeat(500) })).toThrow(/over its maxBytes of 200/);
    expect(() => c.send('said' as never, { from: 1, text: '' } as never)).toThrow(/declared toClient/);
    expect(() => c.send('nope' as never, {} as never)).toThrow(/unknown RPC "nope"/);
  });

  function attackAndCheck(payload: Uint8Array, reason: RegExp) {
    const s = inGame();
    const [victim, other1, other2] = s.clients;
    const said: string[] = [];
    s.server.onRpc('say', (_c, p) => said.push(p.text));
    victim!.transport.send(payload, 'reliable');
    s.tick(60);
    expect(victim!.client.status).toBe('closed');
    expect(victim!.client.state.closeReason).toMatch(reason);
    expect(s.server.connections.has(1)).toBe(false);
    // The server and the other clients carry on.
    other1!.client.send('say', { text: 'still here' });
    s.tick(5);
    expect(said).toEqual(['still here']);
    expect(other2!.client.status).toBe('in-game');
    expect(s.server.connections.size).toBe(2);
  }

  it('an unknown RPC closes only that connection', () => {
    attackAndCheck(rawMessage((w) => { w.writeBits(MessageKind.Rpc, 8); w.writeVarUint(99); }), /protocol error from client: unknown RPC id 99/);
  });

  it('a toClient RPC sent by a client is unknown to the server', () => {
    attackAndCheck(rawMessage((w) => { w.writeBits(MessageKind.Rpc, 8); w.writeVarUint(1); w.writeVarUint(1); }), /unknown RPC id 1/);
  });

  it('a malformed (truncated) RPC closes only that connection', () => {
    attackAndCheck(rawMessage((w) => { w.writeBits(MessageKind.Rpc, 8); w.writeVarUint(0); w.writeVarUint(50); }), /protocol error from client/);
  });

  it('an oversized RPC closes only that connection', () => {
    attackAndCheck(rawMessage((w) => { w.writeBits(MessageKind.Rpc, 8); w.writeVarUint(3); w.writeString('y'.repeat(600), 1000); }), /exceeds maxBytes 200/);
  });

  it('an oversized message closes only that connection', () => {
    attackAndCheck(new Uint8Array(70_000).fill(7), /exceeds 65536/);
  });

  it('an unknown message kind closes only that connection', () => {
    attackAndCheck(new Uint8Array([200, 1, 2]), /unknown message kind 200/);
  });

  it('drops RPCs from a connection that has not joined', () => {
    const s = createStepper({ protocol: chatProtocol, clients: 1, log: quiet });
    s.until(() => s.clients[0]!.client.status === 'connected');
    const got: string[] = [];
    s.server.onRpc('say', (_c, p) => got.push(p.text));
    expect(() => s.clients[0]!.client.send('say', { text: 'early' })).toThrow(/only be sent in game/);
    s.clients[0]!.transport.send(rawMessage((w) => { w.writeBits(MessageKind.Rpc, 8); w.writeVarUint(0); w.writeString('early', 100); }), 'reliable');
    s.tick(3);
    expect(got).toEqual([]);
    expect(s.server.connections.get(1)!.stats.droppedRpcs).toBe(1);
  });

  it('a handler that throws is logged and does not stop the server', () => {
    const logs: string[] = [];
    const s = createStepper({ protocol: chatProtocol, clients: 1, log: (_l, m) => logs.push(m) });
    s.joinAll({ name: 'p', token: '' });
    s.server.onRpc('say', () => {
      throw new Error('boom');
    });
    const errors: string[] = [];
    s.server.events.on('error', (e, c) => errors.push(`${e.code} ${c?.networkId}: ${e.message}`));
    s.clients[0]!.client.send('say', { text: 'x' });
    s.tick(3);
    expect(logs.some((m) => /handler of RPC "say" threw at tick \d+: boom; fix that callback .* \(networkId 1\)/.test(m))).toBe(true);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^handler 1: react-netcode: handler of RPC "say" threw at tick \d+: boom; fix that callback \(error.cause holds what it threw, with the stack\)\.$/);
    expect(s.clients[0]!.client.status).toBe('in-game');
  });
});

describe('leaving', () => {
  it('server kick: the client sees the reason; the server emits leave once', () => {
    const s = createStepper({ protocol: chatProtocol, clients: 2, log: quiet });
    s.joinAll({ name: 'p', token: '' });
    const left: string[] = [];
    s.server.events.on('leave', (c, reason) => left.push(`${c.networkId}:${reason}`));
    s.server.kick(s.server.connections.get(2)!, 'afk');
    s.tick(60);
    expect(s.clients[1]!.client.state.closeReason).toBe('afk');
    expect(left).toEqual(['2:afk']);
    expect(s.clients[0]!.client.status).toBe('in-game');
  });

  it('client leave: the server sees the close and frees the connection', () => {
    const s = createStepper({ protocol: chatProtocol, clients: 1, log: quiet });
    s.joinAll({ name: 'p', token: '' });
    const left: string[] = [];
    s.server.events.on('leave', (c) => left.push(String(c.networkId)));
    s.clients[0]!.client.leave('gotta go');
    expect(s.clients[0]!.client.state).toMatchObject({ status: 'closed', closeReason: 'gotta go' });
    s.tick(3);
    expect(left).toEqual(['1']);
    expect(s.server.connections.size).toBe(0);
  });

  it('a leave listener can still read the connection\'s input statistics; after it, they are gone', () => {
    const s = createStepper({ protocol: chatProtocol, clients: 1, log: quiet });
    s.joinAll({ name: 'p', token: '' });
    s.tick(30);
    let during: ReturnType<typeof s.server.inputStats> | 'unread' = 'unread';
    let leaving: Parameters<typeof s.server.inputStats>[0] | undefined;
    s.server.events.on('leave', (c) => {
      leaving = c;
      during = s.server.inputStats(c);
    });
    s.clients[0]!.client.leave('gotta go');
    s.tick(3);
    expect(during).toMatchObject({ received: expect.any(Number), missing: expect.any(Number) });
    expect((during as unknown as { received: number }).received).toBeGreaterThan(10);
    expect(s.server.inputStats(leaving!)).toBeUndefined();
  });
});

describe('server.connections and server.connectionsInGame', () => {
  it('connections holds every live connection; connectionsInGame only the joined, not suspended ones, as a live view', () => {
    const s = createStepper({ protocol: chatProtocol, clients: 3, log: quiet });
    s.until(() => s.clients.every((c) => c.client.status === 'connected'), 1000, 'handshake');
    const [a, b, c] = s.clients.map((x) => x.client);
    a!.join({ name: 'a', token: '' });
    c!.join({ name: 'c', token: '' });
    s.until(() => a!.status === 'in-game' && c!.status === 'in-game');
    const view = s.server.connectionsInGame;
    const ids = (): number[] => [...view].map((conn) => conn.networkId);
    expect([...s.server.connections.keys()]).toEqual([1, 2, 3]);
    expect(ids()).toEqual([1, 3]);
    // A dropped link: the connection is suspended (still in connections, not in game) until it resumes.
    s.network.server.disconnect(s.server.connections.get(3)!.peer, 'network down');
    s.until(() => s.server.connections.get(3)!.state === 'suspended', 500, 'suspend');
    expect(ids()).toEqual([1]);
    s.until(() => c!.status === 'in-game' && s.server.connections.get(3)!.inGame, 5000, 'resume');
    expect(ids()).toEqual([1, 3]);
    b!.join({ name: 'b', token: '' });
    a!.leave();
    s.until(() => b!.status === 'in-game' && !s.server.connections.has(1));
    expect(ids()).toEqual([2, 3]);
    expect([...s.server.connections.keys()]).toEqual([2, 3]);
  });
});
