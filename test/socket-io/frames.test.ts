// Netcode frames (src/socket-io/frames.ts): one engine.io message per transport message between
// two transports that speak them, plain socket.io emits with a peer that does not. Real servers
// and clients on 127.0.0.1, every wait bounded.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket as ServerSocket } from 'socket.io';
import { io as rawClient } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../src/core/transport.ts';
import { announcedAttachments, encodeFrame, FrameSorter } from '../../src/socket-io/frames.ts';
import { createSocketIoClientTransport, createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { toBytes } from '../../src/socket-io/bytes.ts';
import { waitFor } from '../helpers/wait.ts';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Engine.io packets of one server-side socket: what it wrote and what it read (type, binary or text, first byte). */
function packetsOf(socket: ServerSocket) {
  const written: { binary: boolean; first: number | undefined }[] = [];
  const read: { binary: boolean; first: number | undefined }[] = [];
  const conn = socket.conn as unknown as { on(e: string, fn: (p: { type: string; data?: unknown }) => void): void };
  const note = (into: typeof written) => (p: { type: string; data?: unknown }) => {
    if (p.type !== 'message') return;
    const b = toBytes(p.data);
    into.push({ binary: b !== null, first: b?.[0] });
  };
  conn.on('packetCreate', note(written));
  conn.on('packet', note(read));
  return { written, read };
}

async function pair() {
  const server = createSocketIoServerTransport({ port: 0, host: '127.0.0.1' });
  cleanups.push(() => { server.close(); return server.io.close(); });
  const got: { data: number[]; channel: Channel }[] = [];
  let peer = -1;
  server.listen({ onConnect: (p) => void (peer = p), onMessage: (_p, data, channel) => void got.push({ data: [...data], channel }), onDisconnect: () => {} });
  const { port } = await server.ready();
  const sockets: ServerSocket[] = [];
  server.io.on('connection', (s) => sockets.push(s));
  const client = createSocketIoClientTransport(`http://127.0.0.1:${port}`, { retry: false });
  const back: { data: number[]; channel: Channel }[] = [];
  let open = false;
  client.connect({ onOpen: () => void (open = true), onMessage: (data, channel) => void back.push({ data: [...data], channel }), onClose: () => {} });
  cleanups.push(() => client.close('test over'));
  await waitFor(() => open && peer > 0 && sockets.length === 1, 'connected');
  return { server, client, got, back, peer: () => peer, socket: sockets[0]!, port };
}

describe('netcode frames', () => {
  it('sorts frames from socket.io packets, attachments a header announced included', () => {
    expect(announcedAttachments('51-["u",{"_placeholder":true,"num":0}]')).toBe(1);
    expect(announcedAttachments('612-/x,[{"_placeholder":true,"num":0}]')).toBe(12);
    expect(announcedAttachments('2["r","x"]')).toBe(0);
    expect(announcedAttachments('5oops')).toBe(0);
    const sorter = new FrameSorter();
    const frame = encodeFrame(Uint8Array.of(7, 8, 9), 'unreliable');
    expect([...sorter.take(frame)!]).toEqual([7, 8, 9]);
    expect(sorter.channel).toBe('unreliable');
    expect([...sorter.take(encodeFrame(new Uint8Array(0), 'reliable'))!]).toEqual([]);
    expect(sorter.channel).toBe('reliable');
    // An announced attachment goes to socket.io even when it starts with a tag byte; the next frame is a frame again.
    expect(sorter.take('52-["r",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]')).toBeNull();
    expect(sorter.take(frame)).toBeNull();
    expect(sorter.take(frame.buffer)).toBeNull();
    expect(sorter.take(frame)).not.toBeNull();
    expect(sorter.take(Uint8Array.of(1, 2))).toBeNull(); // no tag: socket.io's to judge
    expect(sorter.take('2')).toBeNull();
  });

  it('two transports exchange one binary engine.io message per transport message once the server has answered', async () => {
    const { server, client, got, back, peer, socket } = await pair();
    const packets = packetsOf(socket);
    client.send(Uint8Array.of(1, 1), 'reliable'); // before the server sent anything: a plain emit (text header + attachment)
    await waitFor(() => got.length === 1, 'first message');
    expect(packets.read.map((p) => p.binary)).toEqual([false, true]);
    server.send(peer(), Uint8Array.of(2, 2), 'unreliable');
    server.send(peer(), Uint8Array.of(3), 'reliable');
    await waitFor(() => back.length === 2, 'the server messages');
    expect(packets.written).toEqual([{ binary: true, first: 0xf2 }, { binary: true, first: 0xf1 }]);
    expect(back).toEqual([{ data: [2, 2], channel: 'unreliable' }, { data: [3], channel: 'reliable' }]);
    for (let i = 0; i < 20; i++) client.send(Uint8Array.of(10 + i), i % 2 === 0 ? 'unreliable' : 'reliable');
    await waitFor(() => got.length === 21, 'the client messages');
    expect(packets.read.slice(2)).toEqual(Array.from({ length: 20 }, (_, i) => ({ binary: true, first: i % 2 === 0 ? 0xf2 : 0xf1 })));
    expect(got.slice(1)).toEqual(Array.from({ length: 20 }, (_, i) => ({ data: [10 + i], channel: i % 2 === 0 ? 'unreliable' : 'reliable' })));
  });

  it('an oversized frame disconnects its sender, as an oversized emit does', async () => {
    const server = createSocketIoServerTransport({ port: 0, host: '127.0.0.1', maxMessageBytes: 64 });
    cleanups.push(() => { server.close(); return server.io.close(); });
    const reasons: string[] = [];
    let peer = -1;
    server.listen({ onConnect: (p) => void (peer = p), onMessage: () => {}, onDisconnect: (_p, r) => void reasons.push(r) });
    const { port } = await server.ready();
    const client = createSocketIoClientTransport(`http://127.0.0.1:${port}`, { retry: false });
    let closed = '';
    let open = false;
    let heard = 0;
    client.connect({ onOpen: () => void (open = true), onMessage: () => void heard++, onClose: (r) => void (closed = r) });
    cleanups.push(() => client.close('test over'));
    await waitFor(() => open && peer > 0, 'open');
    server.send(peer, Uint8Array.of(1), 'reliable');
    await waitFor(() => heard === 1, 'the server frame'); // the client now sends frames
    client.send(new Uint8Array(65), 'unreliable');
    await waitFor(() => reasons.length === 1 && closed !== '', 'the disconnect');
    expect(reasons[0]).toMatch(/^react-netcode: message of 65 bytes exceeds maxMessageBytes \(64\)/);
  });

  it('a plain socket.io client (no frames asked for) gets plain emits and is heard', async () => {
    const server = createSocketIoServerTransport({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => { server.close(); return server.io.close(); });
    const got: number[][] = [];
    let peer = -1;
    server.listen({ onConnect: (p) => void (peer = p), onMessage: (_p, d) => void got.push([...d]), onDisconnect: () => {} });
    const { port } = await server.ready();
    const raw = rawClient(`http://127.0.0.1:${port}`, { path: '/netcode', transports: ['websocket'], reconnection: false, forceNew: true });
    cleanups.push(() => void raw.disconnect());
    const heard: { event: string; data: number[] }[] = [];
    raw.onAny((event: string, data: unknown) => heard.push({ event, data: [...(toBytes(data) ?? [])] }));
    await waitFor(() => peer > 0, 'connect');
    server.send(peer, Uint8Array.of(5, 6), 'reliable');
    server.send(peer, Uint8Array.of(7), 'unreliable');
    raw.emit('r', Uint8Array.of(9));
    await waitFor(() => heard.length === 2 && got.length === 1, 'both ways');
    expect(heard).toEqual([{ event: 'r', data: [5, 6] }, { event: 'u', data: [7] }]);
    expect(got).toEqual([[9]]);
  });

  it('a client talking to a server that sends plain emits keeps sending plain emits', async () => {
    const http = createServer();
    const io = new Server(http, { path: '/netcode' });
    cleanups.push(() => io.close());
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const events: string[] = [];
    io.on('connection', (s) => s.onAny((event: string, data: unknown) => {
      events.push(event);
      s.emit(event, toBytes(data)); // echo, as an older server transport would send
    }));
    const client = createSocketIoClientTransport(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, { retry: false });
    const back: number[][] = [];
    let open = false;
    client.connect({ onOpen: () => void (open = true), onMessage: (d) => void back.push([...d]), onClose: () => {} });
    cleanups.push(() => client.close('test over'));
    await waitFor(() => open, 'open');
    client.send(Uint8Array.of(1), 'reliable');
    await waitFor(() => back.length === 1, 'echo');
    client.send(Uint8Array.of(2), 'unreliable');
    await waitFor(() => back.length === 2, 'second echo');
    expect(events).toEqual(['r', 'u']);
    expect(back).toEqual([[1], [2]]);
  });
});
