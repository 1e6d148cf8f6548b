// LoopbackNetwork: the in-memory transport pair the engine tests run on. Checks
// that nothing moves until deliver(), global ordering, copies, pooled views and close.

import { describe, expect, it } from 'vitest';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';
import { isNetcodeError } from '../../src/core/errors.ts';
import type { Channel, ClientTransport, ClientTransportHandler, PeerId, ServerTransportHandler } from '../../src/core/transport.ts';

type ServerLog = ServerTransportHandler & { log: string[]; last: Uint8Array | null };
type ClientLog = ClientTransportHandler & { log: string[]; last: Uint8Array | null };

function serverLog(): ServerLog {
  const h: ServerLog = {
    log: [],
    last: null,
    onConnect: (peer) => h.log.push(`connect ${peer}`),
    onMessage: (peer, data, channel) => {
      h.last = data;
      h.log.push(`msg ${peer} ${channel} ${[...data].join(',')}`);
    },
    onDisconnect: (peer, reason) => h.log.push(`disconnect ${peer} ${reason}`),
  };
  return h;
}

function clientLog(name: string): ClientLog {
  const h: ClientLog = {
    log: [],
    last: null,
    onOpen: () => h.log.push(`${name} open`),
    onMessage: (data, channel: Channel) => {
      h.last = data;
      h.log.push(`${name} msg ${channel} ${[...data].join(',')}`);
    },
    onClose: (reason) => h.log.push(`${name} close ${reason}`),
  };
  return h;
}

/** A listening network with `n` connected, opened clients (peers 1..n). */
function setup(n: number): { net: LoopbackNetwork; server: ServerLog; clients: ClientTransport[]; handlers: ClientLog[] } {
  const net = new LoopbackNetwork();
  const server = serverLog();
  net.server.listen(server);
  const clients: ClientTransport[] = [];
  const handlers: ClientLog[] = [];
  for (let i = 0; i < n; i++) {
    const client = net.createClient();
    const handler = clientLog(`c${i + 1}`);
    client.connect(handler);
    clients.push(client);
    handlers.push(handler);
  }
  net.deliver();
  return { net, server, clients, handlers };
}

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

describe('LoopbackNetwork', () => {
  it('moves nothing until deliver(): connect queues onConnect then onOpen', () => {
    const net = new LoopbackNetwork();
    const server = serverLog();
    net.server.listen(server);
    const handler = clientLog('c');
    net.createClient().connect(handler);
    expect(server.log).toEqual([]);
    expect(handler.log).toEqual([]);
    expect(net.pending).toBe(2); // onConnect + onOpen
    expect(net.deliver()).toBe(2);
    expect(server.log).toEqual(['connect 1']);
    expect(handler.log).toEqual(['c open']);
    expect(net.pending).toBe(0);
  });

  it('delivers in global send order across clients; events queued during delivery wait for the next pass', () => {
    const { net, server, clients, handlers } = setup(2);
    const [c1, c2] = clients as [ClientTransport, ClientTransport];
    server.onMessage = (peer, data, channel) => {
      server.log.push(`msg ${peer} ${channel} ${[...data].join(',')}`);
      net.server.send(peer, bytes(data[0] ?? 0, 99), channel); // echo, queued for the next pass
    };
    c2.send(bytes(2), 'reliable');
    c1.send(bytes(1), 'unreliable');
    c2.send(bytes(3), 'unreliable');
    expect(net.deliver()).toBe(3);
    expect(server.log.slice(2)).toEqual(['msg 2 reliable 2', 'msg 1 unreliable 1', 'msg 2 unreliable 3']);
    expect(handlers[0]?.log).toEqual(['c1 open']);
    expect(net.pending).toBe(3);
    expect(net.deliver()).toBe(3);
    expect(handlers[0]?.log).toEqual(['c1 open', 'c1 msg unreliable 1,99']);
    expect(handlers[1]?.log).toEqual(['c2 open', 'c2 msg reliable 2,99', 'c2 msg unreliable 3,99']);
    expect(net.stats).toEqual({ messages: 6, bytes: 9 }); // 3 messages of 1 byte + 3 echoes of 2 bytes = 3 + 6
  });

  it('copies at send time: mutating or reusing the sent buffer does not change what arrives', () => {
    const { net, server, clients } = setup(1);
    const buffer = bytes(1, 2, 3);
    clients[0]?.send(buffer, 'reliable');
    buffer[0] = 9;
    clients[0]?.send(buffer, 'reliable');
    buffer.fill(7);
    net.deliver();
    expect(server.log.slice(1)).toEqual(['msg 1 reliable 1,2,3', 'msg 1 reliable 9,2,3']);
  });

  it('delivers views with a non-zero byteOffset into a larger pooled buffer', () => {
    const { net, server, clients, handlers } = setup(1);
    clients[0]?.send(bytes(1, 2), 'reliable');
    net.server.send(1, bytes(5, 6, 7), 'unreliable');
    clients[0]?.send(new Uint8Array(40_000).fill(4), 'reliable'); // over a quarter slab: its own buffer
    net.deliver();
    for (const view of [server.last, handlers[0]?.last]) {
      expect(view).not.toBeNull();
      expect(view?.byteOffset).toBeGreaterThan(0);
      expect(view?.buffer.byteLength).toBeGreaterThan(view?.byteLength ?? Infinity);
    }
    expect(server.last?.byteLength).toBe(40_000);
    expect([...(handlers[0]?.last ?? [])]).toEqual([5, 6, 7]);
  });

  it('client close: own onClose at once; what it sent before still arrives, then onDisconnect; nothing reaches it after', () => {
    const { net, server, clients, handlers } = setup(1);
    const client = clients[0] as ClientTransport;
    client.send(bytes(1), 'reliable');
    net.server.send(1, bytes(2), 'reliable');
    client.close('bye');
    expect(handlers[0]?.log).toEqual(['c1 open', 'c1 close bye']);
    client.send(bytes(3), 'reliable'); // not open: ignored
    net.server.send(1, bytes(4), 'reliable'); // peer closing: ignored
    expect(net.deliver()).toBe(2); // the message sent before the close (graceful, like TCP), then onDisconnect
    expect(server.log).toEqual(['connect 1', 'msg 1 reliable 1', 'disconnect 1 bye']);
    expect(handlers[0]?.log).toEqual(['c1 open', 'c1 close bye']);
    client.close('again'); // at most once
    expect(handlers[0]?.log.length).toBe(2);
  });

  it('server disconnect and server close: own callbacks at once, client gets what was sent before, then onClose; nothing after', () => {
    const { net, server, clients, handlers } = setup(3);
    clients[0]?.send(bytes(1), 'reliable');
    net.server.send(1, bytes(2), 'reliable');
    net.server.disconnect(1, 'kicked');
    expect(server.log.slice(3)).toEqual(['disconnect 1 kicked']);
    clients[1]?.close('leaving'); // onDisconnect 2 still in flight when the server closes: the server's own close wins
    net.server.close();
    expect(server.log.slice(3)).toEqual(['disconnect 1 kicked', 'disconnect 2 server closed', 'disconnect 3 server closed']);
    net.deliver();
    expect(server.log.length).toBe(6); // 3 connects + 3 disconnects, none twice
    expect(handlers.map((h) => h.log)).toEqual([
      ['c1 open', 'c1 msg reliable 2', 'c1 close kicked'],
      ['c2 open', 'c2 close leaving'],
      ['c3 open', 'c3 close server closed'],
    ]);
    net.server.disconnect(3, 'late'); // gone: ignored
    net.server.send(3, bytes(1), 'reliable');
    expect(net.pending).toBe(0);
  });

  it('closing before the connect is delivered tells the server nothing', () => {
    const net = new LoopbackNetwork();
    const server = serverLog();
    net.server.listen(server);
    const handler = clientLog('c');
    const client = net.createClient();
    client.connect(handler);
    client.close('changed my mind');
    expect(net.deliver()).toBe(0);
    expect(server.log).toEqual([]);
    expect(handler.log).toEqual(['c close changed my mind']);
  });

  it('reconnecting after close gives a new PeerId (ids increase, never reused)', () => {
    const { net, server, clients, handlers } = setup(2);
    const client = clients[0] as ClientTransport;
    client.close('x');
    const ids: PeerId[] = [];
    server.onConnect = (peer) => ids.push(peer);
    client.connect(handlers[0] as ClientLog);
    expect(() => client.connect(handlers[0] as ClientLog)).toThrow(/^react-netcode:/);
    net.deliver();
    client.close('y');
    client.connect(handlers[0] as ClientLog);
    net.deliver();
    expect(ids).toEqual([3, 4]); // peers 1 and 2 from setup
  });

  it('refuses clients when the server is not listening, and listen works only once', () => {
    const net = new LoopbackNetwork();
    const handler = clientLog('c');
    net.createClient().connect(handler);
    expect(net.deliver()).toBe(1); // the refusal
    expect(handler.log).toEqual(['c close react-netcode: loopback server is not listening']);
    net.server.listen(serverLog());
    let error: unknown = null;
    try {
      net.server.listen(serverLog());
    } catch (e) {
      error = e;
    }
    expect(isNetcodeError(error) && error.code === 'usage' && error.message.startsWith('react-netcode:')).toBe(true);
  });
});
