// The two kinds the engines do not speak themselves (wire.ts): Signal (254), a transport's own
// signalling, is ignored by a plain server and client — a WebRTC client on a plain socket.io
// server keeps its link and falls back after its timeout; Seat (15), the room server's routing,
// is refused by a plain server with a reason that says where to connect.
import { describe, expect, it } from 'vitest';
import { defineProtocol, field, ghost } from '../../src/index.ts';
import { MessageKind } from '../../src/core/wire.ts';
import { encodeSeat } from '../../src/rooms/seat.ts';
import { createStepper } from '../../src/testing/index.ts';
import { frameSignal } from '../../src/webrtc/signal.ts';
import { rawPeer } from '../helpers/raw-peer.ts';

const protocol = defineProtocol({ ghosts: { cube: ghost({ x: field.f32() }) } });

describe('transport kinds at a plain server', () => {
  it('ignores Signal before and after the handshake: the link stays, the handshake still completes', () => {
    const lines: string[] = [];
    const s = createStepper({ protocol, clients: 0, log: (_l, m) => lines.push(m) });
    const peer = rawPeer(s.network);
    s.tick(2);
    peer.send(frameSignal({ t: 'offer', sdp: 'v=0' }));
    s.tick(2);
    peer.hello(protocol);
    s.tick(2);
    peer.send(frameSignal({ t: 'bye', reason: 'timeout' }));
    peer.ping();
    s.tick(4);
    expect(peer.closed()).toBeUndefined();
    expect(peer.reasons).toEqual([]);
    expect(peer.kinds).toContain(MessageKind.Welcome);
    expect(peer.pongs.length).toBeGreaterThan(0);
    expect(lines.filter((l) => /Signal|254/.test(l))).toEqual([]);
  });

  it('refuses Signal on the unreliable channel like any reliable-only kind', () => {
    const s = createStepper({ protocol, clients: 0, log: () => {} });
    const peer = rawPeer(s.network);
    s.tick(2);
    peer.hello(protocol);
    s.tick(2);
    peer.send(frameSignal({ t: 'bye', reason: 'x' }), 'unreliable');
    s.tick(4);
    expect(peer.reasons.join('\n')).toMatch(/unreliable channel; it may only be sent reliably/);
  });

  it('refuses a Seat, saying that this is no room server and where to connect', () => {
    const s = createStepper({ protocol, clients: 0, log: () => {} });
    const peer = rawPeer(s.network);
    s.tick(2);
    peer.send(encodeSeat('abc'));
    s.tick(4);
    expect(peer.reasons.join('\n')).toMatch(/a seat came to a server that is no room server; connect to the URL the matchmaker gave/);
  });

  it('a client ignores a Signal from its server', () => {
    const s = createStepper({ protocol, clients: 1, log: () => {} });
    s.tick(30);
    const client = s.clients[0]!.client;
    expect(['connected', 'in-game']).toContain(client.status);
    const peer = [...s.server.connections.values()][0]!;
    (s.server as unknown as { sendRaw(c: unknown, d: Uint8Array, ch: string): void }).sendRaw(peer, frameSignal({ t: 'refused', reason: 'x' }), 'reliable');
    const before = client.status;
    s.tick(10);
    expect(client.status).toBe(before);
  });
});
