// conditionServer end to end over the loopback on a virtual clock: per-peer links
// delayed both ways, reliable order under loss, seeded loss per direction, per-peer
// and live options, graceful closes from either side. Every figure is seeded.

import { describe, expect, it } from 'vitest';
import { conditionServer, type PeerLinkOptions } from '../../src/transport/condition-server.ts';
import type { LinkOptions } from '../../src/transport/conditioner.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';
import { VirtualScheduler } from '../../src/transport/scheduler.ts';
import type { ClientTransport, PeerId } from '../../src/core/transport.ts';

/** A conditioned loopback server with `clients` plain clients, stepped 1 ms at a time with instant loopback delivery. */
function harness(up: LinkOptions, down: LinkOptions, options: { clients?: number; seed?: number; forPeer?: (peer: PeerId) => PeerLinkOptions | undefined } = {}) {
  const clock = new VirtualScheduler();
  const net = new LoopbackNetwork();
  const atServer: { t: number; peer: PeerId; value: number }[] = [];
  const atClient: { t: number; client: number; value: number }[] = [];
  const events: string[] = [];
  let echo = false;
  const server = conditionServer(net.server, { seed: options.seed ?? 1, up, down, ...(options.forPeer && { forPeer: options.forPeer }) }, clock);
  server.listen({
    onConnect: (peer) => events.push(`server: connect ${peer} @${clock.now()}`),
    onMessage: (peer, data, channel) => {
      atServer.push({ t: clock.now(), peer, value: data[0] ?? -1 });
      if (echo) server.send(peer, data, channel);
    },
    onDisconnect: (peer, reason) => events.push(`server: ${peer} ${reason} @${clock.now()}`),
  });
  const clients: ClientTransport[] = [];
  for (let i = 0; i < (options.clients ?? 1); i++) {
    const client = net.createClient();
    clients.push(client);
    client.connect({
      onOpen: () => events.push(`client ${i}: open @${clock.now()}`),
      onMessage: (data) => atClient.push({ t: clock.now(), client: i, value: data[0] ?? -1 }),
      onClose: (reason) => events.push(`client ${i}: close ${reason} @${clock.now()}`),
    });
  }
  const advance = (to: number): void => {
    for (let t = clock.now(); t <= to; t++) {
      clock.advanceTo(t);
      while (net.deliver() > 0);
    }
  };
  advance(0);
  return { clock, net, server, clients, atServer, atClient, events, advance, setEcho: (on: boolean) => (echo = on) };
}

describe('conditionServer over LoopbackNetwork', () => {
  it('delays both ways: latency 50 → a reply to a message sent at 0 arrives at 100', () => {
    const h = harness({ latencyMs: 50 }, { latencyMs: 50 });
    h.setEcho(true);
    expect(h.events).toEqual(['server: connect 1 @0', 'client 0: open @0']); // connect passes straight through
    h.clients[0]!.send(Uint8Array.of(7), 'unreliable');
    h.clients[0]!.send(Uint8Array.of(8), 'reliable');
    h.advance(200);
    expect(h.atServer).toEqual([
      { t: 50, peer: 1, value: 7 }, // 0 + 50 up
      { t: 50, peer: 1, value: 8 },
    ]);
    expect(h.atClient).toEqual([
      { t: 100, client: 0, value: 7 }, // 50 + 50 down
      { t: 100, client: 0, value: 8 },
    ]);
  });

  it('keeps reliable order under jitter and loss, both ways (each send a buffer of its own, as the transport contract asks)', () => {
    const h = harness({ latencyMs: 20, jitterMs: 15, loss: 0.2 }, { latencyMs: 20, jitterMs: 15, loss: 0.2 });
    for (let i = 0; i < 200; i++) {
      h.server.send(1, Uint8Array.of(i), 'reliable');
      h.clients[0]!.send(Uint8Array.of(i), 'reliable');
      h.advance(h.clock.now() + 1);
    }
    h.advance(3000);
    const all = Array.from({ length: 200 }, (_, i) => i);
    expect(h.atClient.map((m) => m.value)).toEqual(all);
    expect(h.atServer.map((m) => m.value)).toEqual(all);
    const link = h.server.link(1)!;
    // 200 packets, 20% lost per attempt: ≈ 40 first losses per direction (sd ≈ 5.7)
    expect(link.down.stats.retransmitted).toBeGreaterThan(20);
    expect(link.up.stats.retransmitted).toBeGreaterThan(20);
    expect(link.down.stats.dropped + link.up.stats.dropped).toBe(0); // reliable: never dropped
  });

  it('applies unreliable loss per peer and per direction, with independent seeded streams', () => {
    const h = harness({}, { loss: 0.3 }, { clients: 2 });
    for (let i = 0; i < 1000; i++) {
      h.server.send(1, Uint8Array.of(1), 'unreliable');
      h.server.send(2, Uint8Array.of(2), 'unreliable');
      h.clients[0]!.send(Uint8Array.of(i & 0xff), 'unreliable');
    }
    h.advance(10);
    expect(h.atServer.length).toBe(1000); // up is lossless
    const got = [0, 1].map((c) => h.atClient.filter((m) => m.client === c).length);
    // down: ≈ 0.7 * 1000 = 700 per peer (sd ≈ √(1000 * 0.3 * 0.7) ≈ 14.5)
    for (const n of got) {
      expect(n).toBeGreaterThan(650);
      expect(n).toBeLessThan(750);
    }
    expect(got[0]).toBe(1000 - h.server.link(1)!.down.stats.dropped);
    expect(got[1]).toBe(1000 - h.server.link(2)!.down.stats.dropped);
    expect(got[0]).not.toBe(got[1]); // peer 1 and peer 2 draw from different streams
  });

  it('is deterministic per seed', () => {
    const run = (seed: number): number[] => {
      const h = harness({ latencyMs: 30, jitterMs: 15, loss: 0.1 }, { latencyMs: 30, jitterMs: 15, loss: 0.1 }, { seed });
      h.setEcho(true);
      for (let i = 0; i < 300; i++) {
        h.clients[0]!.send(Uint8Array.of(i & 0xff), 'unreliable');
        h.advance(h.clock.now() + 1);
      }
      h.advance(1000);
      return h.atClient.map((m) => m.t * 256 + m.value);
    };
    expect(run(77)).toEqual(run(77));
    expect(run(77)).not.toEqual(run(78));
  });

  it('takes per-peer options from forPeer and live changes for one peer or all', () => {
    const h = harness({ latencyMs: 10 }, { latencyMs: 10 }, { clients: 2, forPeer: (peer) => (peer === 2 ? { down: { latencyMs: 100 } } : undefined) });
    h.setEcho(true);
    h.clients[0]!.send(Uint8Array.of(1), 'reliable');
    h.clients[1]!.send(Uint8Array.of(2), 'reliable');
    h.advance(200);
    expect(h.atClient).toEqual([
      { t: 20, client: 0, value: 1 }, // 10 up + 10 down
      { t: 110, client: 1, value: 2 }, // 10 up (the default) + 100 down (its own)
    ]);
    h.server.setOptions({ down: { latencyMs: 40 } }, 1); // peer 1 only
    h.clients[0]!.send(Uint8Array.of(3), 'reliable');
    h.clients[1]!.send(Uint8Array.of(4), 'reliable');
    h.advance(400);
    expect(h.atClient.slice(2)).toEqual([
      { t: 250, client: 0, value: 3 }, // 200 + 10 + 40
      { t: 310, client: 1, value: 4 }, // 200 + 10 + 100
    ]);
    h.server.setOptions({ up: { latencyMs: 0 }, down: { latencyMs: 5 } }); // every peer
    h.clients[0]!.send(Uint8Array.of(5), 'reliable');
    h.clients[1]!.send(Uint8Array.of(6), 'reliable');
    h.advance(600);
    expect(h.atClient.slice(4)).toEqual([
      { t: 405, client: 0, value: 5 }, // 400 + 0 + 5
      { t: 405, client: 1, value: 6 },
    ]);
    expect(() => conditionServer(new LoopbackNetwork().server, { seed: 1, up: { loss: 2 } }, h.clock)).toThrow(/^react-netcode: LinkOptions.loss/);
  });

  it('server disconnect is graceful: told at once, what it sent still arrives, then the client closes', () => {
    const h = harness({ latencyMs: 50 }, { latencyMs: 50 });
    h.advance(10);
    h.server.send(1, Uint8Array.of(1), 'reliable'); // the reason, as the engine sends before a kick
    h.server.send(1, Uint8Array.of(2), 'unreliable');
    h.clients[0]!.send(Uint8Array.of(9), 'reliable'); // in flight towards the server: dropped by the disconnect
    h.server.disconnect(1, 'kicked');
    expect(h.events.at(-1)).toBe('server: 1 kicked @10'); // synchronously, like the inner transport
    h.server.send(1, Uint8Array.of(3), 'reliable'); // after the disconnect: ignored
    h.advance(500);
    expect(h.atClient).toEqual([
      { t: 60, client: 0, value: 1 }, // 10 + 50
      { t: 60, client: 0, value: 2 },
    ]);
    expect(h.atServer).toEqual([]);
    expect(h.events.slice(2)).toEqual(['server: 1 kicked @10', 'client 0: close kicked @60']);
    expect(h.clock.pending).toBe(0);
  });

  it('a client that leaves: what it sent still reaches the server, then onDisconnect', () => {
    const h = harness({ latencyMs: 50 }, { latencyMs: 50 });
    h.advance(10);
    h.clients[0]!.send(Uint8Array.of(1), 'reliable'); // e.g. its Close message
    h.server.send(1, Uint8Array.of(5), 'reliable'); // towards the client: lost with the link
    h.clients[0]!.close('bye');
    h.advance(20);
    h.server.send(1, Uint8Array.of(6), 'reliable'); // the server does not know yet: ignored
    h.advance(500);
    expect(h.atServer).toEqual([{ t: 60, peer: 1, value: 1 }]);
    expect(h.atClient).toEqual([]);
    expect(h.events.slice(2)).toEqual(['client 0: close bye @10', 'server: 1 bye @60']);
    expect(h.server.link(1)).toBeUndefined();
    expect(h.clock.pending).toBe(0);
  });

  it('close() tells the server of every peer at once, drains what it sent, then closes the inner transport', () => {
    const h = harness({}, { latencyMs: 30 }, { clients: 2 });
    h.advance(5);
    h.server.send(1, Uint8Array.of(1), 'reliable');
    h.server.send(2, Uint8Array.of(2), 'reliable');
    h.server.close();
    expect(h.events.slice(-2)).toEqual(['server: 1 server closed @5', 'server: 2 server closed @5']);
    h.advance(100);
    expect(h.atClient).toEqual([
      { t: 35, client: 0, value: 1 }, // 5 + 30
      { t: 35, client: 1, value: 2 },
    ]);
    expect(h.events.filter((e) => e.startsWith('client') && e.includes('close'))).toEqual(['client 0: close server closed @35', 'client 1: close server closed @35']);
    const late = h.net.createClient(); // the inner transport is closed: nobody is listening
    const closes: string[] = [];
    late.connect({ onOpen: () => closes.push('open'), onMessage: () => {}, onClose: (r) => closes.push(r) });
    h.advance(110);
    expect(closes).toEqual(['react-netcode: loopback server is not listening']);
    expect(h.events.filter((e) => e.startsWith('server')).length).toBe(4); // 2 connects + 2 closes: nothing twice
  });
});
