// The WebRTC transport's pure parts: re-packing a Batch into datagrams that fit, the tag-byte
// framing of the reliable channel, the setup rate limit, the public-address rewrite.
import { describe, expect, it } from 'vitest';
import { forEachMessage, Outbox } from '../../src/core/outbox.ts';
import type { ClientTransport, ClientTransportHandler, ServerTransport, ServerTransportHandler } from '../../src/core/transport.ts';
import { MessageKind } from '../../src/core/wire.ts';
import { createWebRtcClientTransport } from '../../src/webrtc/client.ts';
import { packDatagrams } from '../../src/webrtc/datagram.ts';
import { SetupLimiter } from '../../src/webrtc/rate-limit.ts';
import { advertise, createWebRtcServerTransport } from '../../src/webrtc/server.ts';
import { frameSignal, MAX_DATAGRAM_BYTES, unframe } from '../../src/webrtc/signal.ts';

const message = (kind: number, size: number): Uint8Array => new Uint8Array(size).fill(kind);

function batchOf(parts: Uint8Array[]): Uint8Array {
  const box = new Outbox();
  for (const p of parts) box.push(p, 'unreliable');
  let out: Uint8Array = new Uint8Array();
  box.flush((bytes) => (out = bytes));
  return out;
}

describe('packDatagrams', () => {
  it('leaves a write that fits as it is', () => {
    const m = message(3, 500);
    expect(packDatagrams(m, MAX_DATAGRAM_BYTES)).toEqual({ fit: [m], oversize: [] });
  });

  it('re-packs a Batch over the limit into Batches that fit, every message once and in order', () => {
    const parts = [message(3, 400), message(4, 400), message(5, 400), message(6, 30)];
    const { fit, oversize } = packDatagrams(batchOf(parts), MAX_DATAGRAM_BYTES);
    expect(oversize).toEqual([]);
    expect(fit.length).toBe(2);
    for (const d of fit) expect(d.byteLength).toBeLessThanOrEqual(MAX_DATAGRAM_BYTES);
    const seen: number[] = [];
    for (const d of fit) forEachMessage(d, (m) => seen.push(m[0]!, m.byteLength));
    expect(seen).toEqual([3, 400, 4, 400, 5, 400, 6, 30]);
  });

  it('hands back a message that alone does not fit (it goes over socket.io whole)', () => {
    const big = message(3, 2000);
    const { fit, oversize } = packDatagrams(batchOf([big, message(4, 20)]), MAX_DATAGRAM_BYTES);
    expect(oversize.map((m) => m.byteLength)).toEqual([2000]);
    expect(fit.map((m) => m.byteLength)).toEqual([20]);
    expect(packDatagrams(big, MAX_DATAGRAM_BYTES)).toEqual({ fit: [], oversize: [big] });
  });
});

describe('reliable-channel framing', () => {
  it('passes game messages unchanged and tells signals apart', () => {
    expect(unframe(new Uint8Array([9, 8]))).toEqual({ game: new Uint8Array([9, 8]) });
    expect(unframe(new Uint8Array())).toEqual({ game: new Uint8Array() });
    expect(unframe(frameSignal({ t: 'bye', reason: 'x' }))).toEqual({ signal: { t: 'bye', reason: 'x' } });
  });

  it('names what is wrong with a bad message instead of throwing', () => {
    expect(unframe(new Uint8Array([0xfe, 0x7b]))).toMatchObject({ error: expect.stringContaining('not JSON') });
    expect(unframe(new Uint8Array([0xfe, 0x31]))).toMatchObject({ error: expect.stringContaining('without a type') });
    expect(unframe(new Uint8Array(20_000).fill(0xfe))).toMatchObject({ error: expect.stringContaining('at most') });
  });
});

describe('SetupLimiter', () => {
  it('limits setups per address per minute and overall per second', () => {
    const limiter = new SetupLimiter({ perSecond: 3, perMinutePerAddress: 2 });
    expect(limiter.take('a', 0)).toBeNull();
    expect(limiter.take('a', 10)).toBeNull();
    expect(limiter.take('a', 20)).toMatch(/2 peer connections per minute from a/);
    expect(limiter.take('b', 30)).toBeNull();
    expect(limiter.take('c', 40)).toMatch(/3 peer connections per second/);
    expect(limiter.take('c', 1100)).toBeNull();
    expect(limiter.take('a', 60_011)).toBeNull();
  });
});

describe('advertise', () => {
  it('rewrites host candidates to the public address and leaves the others', () => {
    const sdp = 'a=candidate:1 1 UDP 2122317311 172.17.0.2 50000 typ host\r\na=candidate:2 1 UDP 1686052607 203.0.113.9 50000 typ srflx raddr 172.17.0.2 rport 50000\r\n';
    expect(advertise(sdp, '198.51.100.7')).toBe(sdp.replace('172.17.0.2 50000 typ host', '198.51.100.7 50000 typ host'));
    expect(advertise(sdp, undefined)).toBe(sdp);
  });
});

describe('the WebRTC client transport', () => {
  it("a malformed signalling frame from the server is a server error: the engine's session ends with 'protocol-error'", () => {
    const handlers: ClientTransportHandler[] = [];
    const closed: string[] = [];
    const inner: ClientTransport = { connect: (h) => void handlers.push(h), send: () => {}, close: (r) => { closed.push(r); handlers[0]!.onClose(r); } };
    const told: string[] = [];
    const closes: string[] = [];
    // No RTCPeerConnection is given and Node has none: the transport stays on socket.io, which is all this needs.
    const rtc = createWebRtcClientTransport(inner, { openTimeoutMs: 1000 });
    rtc.connect({ onOpen: () => {}, onMessage: () => {}, onClose: (r) => void closes.push(r), onServerError: (r) => void told.push(r) });
    handlers[0]!.onOpen();
    handlers[0]!.onMessage(new Uint8Array([MessageKind.Signal, 0x7b]), 'reliable'); // '{': not JSON
    expect(told).toEqual(['react-netcode: the server sent a signalling message that is not JSON']);
    expect(closed).toEqual(told);
    expect(closes).toEqual(told);
  });

  it("passes on its socket.io link's retry notices", () => {
    const handlers: ClientTransportHandler[] = [];
    const inner: ClientTransport = { connect: (h) => void handlers.push(h), send: () => {}, close: () => {} };
    const told: string[] = [];
    createWebRtcClientTransport(inner, { openTimeoutMs: 1000 }).connect({ onOpen: () => {}, onMessage: () => {}, onClose: () => {}, onRetry: (r) => void told.push(r) });
    handlers[0]!.onRetry!('react-netcode: could not connect (attempt 1 of 10)');
    expect(told).toEqual(['react-netcode: could not connect (attempt 1 of 10)']);
  });
});

describe('the WebRTC server transport', () => {
  it('closes a connection that sends more signalling messages than any client needs, as a protocol violation', () => {
    let inner: ServerTransportHandler | undefined;
    const disconnected: string[] = [];
    const sent: string[] = [];
    const fake: ServerTransport = {
      listen: (h) => void (inner = h),
      send: (_p, data) => void sent.push(JSON.stringify(unframe(data))),
      disconnect: (peer, reason) => void disconnected.push(`${peer}: ${reason}`),
      close: () => {},
    };
    const errors: string[] = [];
    const rtc = createWebRtcServerTransport(fake, { log: () => {} });
    rtc.listen({ onConnect: () => {}, onMessage: () => {}, onDisconnect: () => {}, onPeerError: (peer, reason) => void errors.push(`${peer}: ${reason}`) });
    inner!.onConnect(1);
    for (let i = 0; i < 12; i++) inner!.onMessage(1, frameSignal({ t: 'junk' } as never), 'reliable'); // each refused, once
    expect(sent).toHaveLength(12);
    expect(disconnected).toEqual([]);
    inner!.onMessage(1, frameSignal({ t: 'junk' } as never), 'reliable');
    const reason = 'react-netcode: the client sent more than 12 WebRTC signalling messages on one connection';
    expect(disconnected).toEqual([`1: ${reason}`]);
    expect(errors).toEqual([`1: ${reason}`]);
    expect(sent).toHaveLength(12); // the thirteenth is not answered
  });
});
