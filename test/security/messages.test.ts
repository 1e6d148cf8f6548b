// What a raw client may send (issue 16): join and RPC payloads within their fields'
// declared bounds, reliable-only kinds only on the reliable channel, one Hello per link.
// Each refusal carries a reason that says what was wrong.

import { describe, expect, it } from 'vitest';
import { defineProtocol, field, rpc } from '../../src/index.ts';
import { MessageKind } from '../../src/core/wire.ts';
import { createStepper } from '../../src/testing/index.ts';
import { rawMessage, rawPeer } from '../helpers/raw-peer.ts';

const protocol = defineProtocol({
  join: { name: field.string(16), team: field.u8({ max: 1 }) },
  rpcs: {
    aim: rpc.toServer({ dir: field.vec2({ quantize: 100, maxLength: 1 }), power: field.f32({ quantize: 10, min: 0, max: 5 }) }),
    say: rpc.toServer({ text: field.string(32) }),
  },
});

function setup() {
  const logs: string[] = [];
  const s = createStepper({ protocol, clients: 1, log: (_l, m) => logs.push(m) });
  s.joinAll({ name: 'good', team: 0 });
  const peer = rawPeer(s.network);
  s.tick(2);
  peer.hello(protocol);
  s.tick(2);
  return { s, peer, logs };
}

function join(team: number) {
  return rawMessage((w) => {
    w.writeBits(MessageKind.Join, 8);
    w.writeString('eve', 16);
    w.writeBits(team, 8);
  });
}

function aim(x: number, y: number, power: number) {
  return rawMessage((w) => {
    w.writeBits(MessageKind.Rpc, 8);
    w.writeVarUint(0);
    w.writeVarInt(Math.round(x * 100));
    w.writeVarInt(Math.round(y * 100));
    w.writeVarInt(Math.round(power * 10));
  });
}

describe('payload bounds', () => {
  it('a join payload outside its fields’ bounds is refused with the reason before onJoin; a valid one is accepted', () => {
    const { s, peer } = setup();
    const joined: unknown[] = [];
    s.server.events.on('join', (c) => joined.push(c.joinPayload));
    peer.send(join(5));
    s.tick(2);
    expect(peer.reasons).toEqual(['react-netcode: join payload refused: field "team" must be at most 1, got 5']);
    expect(peer.kinds).toContain(MessageKind.JoinRefused);
    peer.send(join(1)); // the connection stays: it may try again
    s.tick(2);
    expect(joined).toEqual([{ name: 'eve', team: 1 }]);
  });

  it('the sender checks bounds too: a NetClient never sends such a join', () => {
    const { s } = setup();
    const c = s.addClient();
    s.until(() => c.client.status === 'connected');
    expect(() => c.client.join({ name: 'x', team: 5 })).toThrow(/react-netcode: join payload is invalid: field "team" must be at most 1, got 5/);
    expect(() => s.clients[0]!.client.send('aim', { dir: { x: 3, y: 4 }, power: 1 })).toThrow(/RPC "aim" payload is invalid: field "dir" must have a length of at most 1, got 5/);
  });

  it('an RPC outside its bounds is refused (counted, logged) and never reaches a handler; in-bounds ones do', () => {
    const { s, peer, logs } = setup();
    peer.send(join(0));
    s.tick(2);
    const got: unknown[] = [];
    s.server.onRpc('aim', (_c, p) => got.push(p));
    peer.send(aim(3, 4, 1)); // length 5 > maxLength 1
    peer.send(aim(0.6, 0.8, 9)); // power 9 > max 5
    peer.send(aim(0.6, 0.8, 5));
    s.tick(2);
    expect(got).toEqual([{ dir: { x: 0.6, y: 0.8 }, power: 5 }]);
    const connection = [...s.server.connections.values()].find((c) => c.joinPayload?.name === 'eve')!;
    expect(connection.stats.refusedRpcs).toBe(2);
    expect(logs.filter((m) => m.startsWith('react-netcode: refused RPC "aim"'))).toEqual([
      `react-netcode: refused RPC "aim" from networkId ${connection.networkId}: field "dir" must have a length of at most 1, got 5 (a client built from this protocol never sends it).`,
      `react-netcode: refused RPC "aim" from networkId ${connection.networkId}: field "power" must be at most 5, got 9 (a client built from this protocol never sends it).`,
    ]);
    expect(peer.closed()).toBeUndefined();
  });
});

describe('kinds, channels and state', () => {
  it('an RPC on the unreliable channel closes that connection with the reason', () => {
    const { s, peer } = setup();
    peer.send(join(0));
    s.tick(2);
    const got: unknown[] = [];
    s.server.onRpc('say', (_c, p) => got.push(p));
    peer.send(rawMessage((w) => { w.writeBits(MessageKind.Rpc, 8); w.writeVarUint(1); w.writeString('hi', 32); }), 'unreliable');
    s.tick(40);
    expect(got).toEqual([]);
    expect(peer.reasons).toEqual(['react-netcode: protocol error from client: message kind Rpc (7) came on the unreliable channel; it may only be sent reliably.']);
    expect(s.clients[0]!.client.status).toBe('in-game');
  });

  it('a second Hello gets an honest reason', () => {
    const { s, peer } = setup();
    peer.hello(protocol);
    s.tick(2);
    expect(peer.reasons).toEqual([expect.stringMatching(/^react-netcode: protocol error from client: a second Hello on a link whose handshake is done \(networkId \d+\); a client says Hello once per link\.$/)]);
  });

  it('a kind no client sends is named; before the handshake, anything but Hello is refused once and the rest ignored', () => {
    const { s, peer } = setup();
    peer.send(rawMessage((w) => w.writeBits(MessageKind.Welcome, 8)));
    s.tick(2);
    expect(peer.reasons).toEqual(['react-netcode: protocol error from client: message kind Welcome (2) is not one a client may send.']);
    const early = rawPeer(s.network);
    s.tick(2);
    for (let i = 0; i < 50; i++) early.send(new Uint8Array([MessageKind.Join, 0]));
    s.tick(2);
    // One Refuse for the first; the other 49 arrive while it lingers and are ignored.
    expect(early.reasons).toEqual(['react-netcode: protocol error from client: expected Hello, got message kind Join (4) before the handshake.']);
  });

  it('a Close before the handshake (a client leaving while it connects) is no protocol error: its link is closed, nothing logged or refused', () => {
    const { s, logs } = setup();
    const leaving = rawPeer(s.network);
    s.tick(2);
    expect(s.server.pendingPeers).toBe(1);
    leaving.send(new Uint8Array([MessageKind.Close]));
    s.tick(2);
    expect(leaving.reasons).toEqual([]);
    expect(leaving.kinds).not.toContain(MessageKind.Refuse);
    expect(s.server.pendingPeers).toBe(0);
    expect(logs.filter((l) => l.includes('protocol error'))).toEqual([]);
    // A real protocol error's log line: the reason, then the peer, with no stray full stop between.
    const early = rawPeer(s.network);
    s.tick(2);
    early.send(new Uint8Array([MessageKind.Join, 0]));
    s.tick(2);
    expect(logs.find((l) => l.includes('protocol error'))).toMatch(/before the handshake \(peer \d+\); closing that connection only\.$/);
  });
});
