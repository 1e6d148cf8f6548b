// What the two WebRTC halves share: the signalling messages on the socket.io reliable
// channel (kind byte MessageKind.Signal, 254, which the engines ignore — core/wire.ts —
// then JSON; the game's messages pass unchanged, so a WebRTC server also serves plain
// socket.io clients),
// the signalling messages, the data channel's parameters, and the small part of the W3C
// RTCPeerConnection API the transports use — the browser's, or an npm stack's in Node.

import { MessageKind } from '../core/wire.ts';

/** The largest message sent as one datagram: 1280 B (IPv6 minimum MTU) − IP/UDP (48) − DTLS record + AEAD (≈37) − SCTP (28) − margin. */
export const MAX_DATAGRAM_BYTES = 1100;

/** The unreliable data channel: negotiated out of band on both sides (id 0), unordered, never retransmitted. */
export const DATA_CHANNEL_LABEL = 'netcode-u';
export const DATA_CHANNEL_INIT = { negotiated: true, id: 0, ordered: false, maxRetransmits: 0 } as const;

/** Signalling messages, longest accepted (an SDP with many candidates is a few KB). */
export const MAX_SIGNAL_BYTES = 16 * 1024;

/** The first byte of a signalling message (core/wire.ts: MessageKind.Signal, which the engines ignore). */
export const SIGNAL_KIND = MessageKind.Signal;

/** client → server: the offer (ICE candidates gathered in it); or it gave up on the data channel. */
export type ClientSignal = { t: 'offer'; sdp: string } | { t: 'bye'; reason: string };
/** server → client: the answer, or why no data channel is set up for this peer. */
export type ServerSignal = { t: 'answer'; sdp: string } | { t: 'refused'; reason: string };

export interface IceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

/** The part of RTCDataChannel used here. */
export interface DataChannelLike {
  readonly readyState: string;
  readonly bufferedAmount: number;
  binaryType: string;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  send(data: Uint8Array): void;
  close(): void;
}

/** The part of RTCPeerConnection used here (W3C; the browser's, node-datachannel/polyfill's, @roamhq/wrtc's). */
export interface PeerConnectionLike {
  readonly iceGatheringState: string;
  readonly connectionState: string;
  readonly localDescription: { sdp: string; type: string } | null;
  onconnectionstatechange: ((ev: unknown) => void) | null;
  onicegatheringstatechange: ((ev: unknown) => void) | null;
  createDataChannel(label: string, init: Record<string, unknown>): DataChannelLike;
  createOffer(): Promise<{ sdp?: string; type: string }>;
  createAnswer(): Promise<{ sdp?: string; type: string }>;
  setLocalDescription(d: { sdp?: string; type: string }): Promise<void>;
  setRemoteDescription(d: { sdp: string; type: string }): Promise<void>;
  close(): void;
}

export type PeerConnectionConstructor = new (config: Record<string, unknown>) => PeerConnectionLike;

/** A signalling message, framed. */
export function frameSignal(message: ClientSignal | ServerSignal): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(message));
  const out = new Uint8Array(json.byteLength + 1);
  out[0] = SIGNAL_KIND;
  out.set(json, 1);
  return out;
}

/** Sorts a reliable message: the game's (unchanged), a signalling object, or an error text for a malformed signal. */
export function unframe(data: Uint8Array): { game: Uint8Array } | { signal: Record<string, unknown> } | { error: string } {
  if (data.byteLength === 0 || data[0] !== SIGNAL_KIND) return { game: data };
  if (data.byteLength > MAX_SIGNAL_BYTES) return { error: `a signalling message of ${data.byteLength} bytes (at most ${MAX_SIGNAL_BYTES})` };
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data.subarray(1)));
    if (typeof value !== 'object' || value === null || typeof (value as { t?: unknown }).t !== 'string') return { error: 'a signalling message without a type' };
    return { signal: value as Record<string, unknown> };
  } catch {
    return { error: 'a signalling message that is not JSON' };
  }
}

/** A received data channel payload as bytes (ArrayBuffer in browsers, Buffer or ArrayBuffer in Node), or null. */
export function payloadBytes(data: unknown): Uint8Array | null {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return null;
}

/** Resolves when ICE gathering is complete, or after `maxMs` (then the description holds what was gathered so far). */
export function gathered(pc: PeerConnectionLike, maxMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve();
    const timer = setTimeout(done, maxMs);
    const poll = setInterval(() => pc.iceGatheringState === 'complete' && done(), 10);
    function done(): void {
      clearTimeout(timer);
      clearInterval(poll);
      resolve();
    }
  });
}
