// Client half of the WebRTC transport: a decorator over a reliable client transport
// (socket.io). The reliable channel and the signalling stay on it; once it is open the
// client offers an RTCPeerConnection with one negotiated, unordered, maxRetransmits-0
// data channel, and when that opens, the unreliable channel (snapshots, inputs, acks,
// pings) moves to it. Until then — and for good when it does not open within
// `openTimeoutMs`, fails, or the server refuses — unreliable messages go over socket.io:
// the engine sees one transport either way; `stats.unreliablePath` says which path.
import { NetcodeError } from '../core/errors.ts';
import type { Channel, ClientTransport, ClientTransportHandler, TransportStats } from '../core/transport.ts';
import { packDatagrams } from './datagram.ts';
import {
  DATA_CHANNEL_INIT, DATA_CHANNEL_LABEL, MAX_DATAGRAM_BYTES, frameSignal, gathered, payloadBytes, unframe,
  type DataChannelLike, type IceServer, type PeerConnectionConstructor, type PeerConnectionLike,
} from './signal.ts';

export interface WebRtcClientTransportOptions {
  /** RTCPeerConnection to use (default: the browser's `globalThis.RTCPeerConnection`; in Node pass one, e.g. node-datachannel/polyfill's). */
  RTCPeerConnection?: PeerConnectionConstructor;
  /** STUN/TURN servers (default none: host candidates only, enough on a LAN or against a server with a public address). */
  iceServers?: IceServer[];
  /** Stay on socket.io if the data channel is not open this long after the socket.io link opened (default 5000 ms). */
  openTimeoutMs?: number;
  /** Longest wait for ICE gathering before the offer is sent with what was gathered (default 2000 ms). */
  gatherTimeoutMs?: number;
  /** Unreliable messages are dropped (counted) while more than this many bytes wait in the data channel (default 64 KiB). */
  maxBufferedBytes?: number;
  /** `false`: never try WebRTC (socket.io only, stats say so). Default true. */
  enabled?: boolean;
}

export interface WebRtcClientTransport extends ClientTransport {
  readonly stats: TransportStats & { unreliablePath: 'webrtc' | 'socket.io' };
  readonly maxDatagramBytes: number;
}

/** One socket.io connection's attempt at a data channel. */
interface Attempt {
  pc: PeerConnectionLike | null;
  dc: DataChannelLike | null;
  open: boolean;
  over: boolean;
  startedAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Set the answer; node-datachannel (libdatachannel) sometimes refuses it right after the offer with "Got a remote candidate
 * without ICE transport" — its ICE transport is created on another thread — and takes it a moment later: retried 3 times.
 */
async function applyAnswer(pc: PeerConnectionLike, sdp: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return await pc.setRemoteDescription({ type: 'answer', sdp });
    } catch (err) {
      if (i >= 3 || !/without ICE transport/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 50 * (i + 1)));
    }
  }
}

function checkMs(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!(v >= 0) || !Number.isFinite(v)) throw new NetcodeError('usage', `react-netcode: ${name} must be a finite number of milliseconds >= 0, got ${String(value)}.`);
  return v;
}

export function createWebRtcClientTransport(inner: ClientTransport, options: WebRtcClientTransportOptions = {}): WebRtcClientTransport {
  const openTimeoutMs = checkMs(options.openTimeoutMs, 5000, 'openTimeoutMs');
  const gatherTimeoutMs = checkMs(options.gatherTimeoutMs, 2000, 'gatherTimeoutMs');
  const maxBuffered = checkMs(options.maxBufferedBytes, 64 * 1024, 'maxBufferedBytes');
  const stats: WebRtcClientTransport['stats'] = { unreliableDropped: 0, unreliablePath: 'socket.io', maxDatagramBytes: MAX_DATAGRAM_BYTES, unreliableOversize: 0, datagramsIn: 0, datagramsOut: 0 };
  let attempt: Attempt | null = null;
  let handler: ClientTransportHandler | null = null;

  /** Give up on the data channel of `a` (the unreliable channel stays on, or returns to, socket.io). */
  const fallBack = (a: Attempt, reason: string, tellServer: boolean): void => {
    if (a.over) return;
    a.over = true;
    if (a.timer !== undefined) clearTimeout(a.timer);
    stats.unreliablePath = 'socket.io';
    stats.unreliableSetupMs ??= Date.now() - a.startedAt;
    stats.fallbackReason = `react-netcode: the unreliable channel runs over socket.io: ${reason}`;
    if (tellServer) inner.send(frameSignal({ t: 'bye', reason }), 'reliable');
    if (a.dc) a.dc.onmessage = a.dc.onopen = a.dc.onclose = null;
    a.pc?.close();
  };

  const start = async (a: Attempt): Promise<void> => {
    a.startedAt = Date.now();
    delete stats.unreliableSetupMs;
    const Ctor = options.RTCPeerConnection ?? (globalThis as { RTCPeerConnection?: PeerConnectionConstructor }).RTCPeerConnection;
    if (options.enabled === false) return fallBack(a, 'WebRTC is off (option enabled: false)', false);
    if (Ctor === undefined) return fallBack(a, 'no RTCPeerConnection here (in Node, pass one as the RTCPeerConnection option)', false);
    a.timer = setTimeout(() => fallBack(a, `the data channel did not open within ${openTimeoutMs} ms (UDP blocked or no usable ICE candidate? see docs/transports.md)`, true), openTimeoutMs);
    const pc = (a.pc = new Ctor({ iceServers: options.iceServers ?? [] }));
    const dc = (a.dc = pc.createDataChannel(DATA_CHANNEL_LABEL, { ...DATA_CHANNEL_INIT }));
    dc.binaryType = 'arraybuffer';
    dc.onopen = () => {
      if (a.over || attempt !== a) return;
      clearTimeout(a.timer);
      a.open = true;
      stats.unreliablePath = 'webrtc';
      stats.unreliableSetupMs = Date.now() - a.startedAt;
      delete stats.fallbackReason;
    };
    dc.onmessage = (ev) => {
      const bytes = payloadBytes(ev.data);
      if (bytes === null || a.over || attempt !== a) return;
      stats.datagramsIn!++;
      handler?.onMessage(bytes, 'unreliable');
    };
    dc.onclose = () => fallBack(a, 'the data channel closed', true);
    pc.onconnectionstatechange = () => pc.connectionState === 'failed' && fallBack(a, 'the peer connection failed (ICE found no working candidate pair)', true);
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc, gatherTimeoutMs);
    if (a.over || attempt !== a) return;
    inner.send(frameSignal({ t: 'offer', sdp: pc.localDescription?.sdp ?? '' }), 'reliable');
  };

  const onSignal = (a: Attempt, signal: Record<string, unknown>): void => {
    if (a.over || a.pc === null) return;
    if (signal.t === 'refused') return fallBack(a, `the server set up no data channel: ${String(signal.reason)}`, false);
    if (signal.t !== 'answer' || typeof signal.sdp !== 'string') return;
    applyAnswer(a.pc, signal.sdp).catch((err: Error) => fallBack(a, `the server's answer was not accepted: ${err.message}`, true));
  };

  const sendUnreliable = (a: Attempt | null, data: Uint8Array): void => {
    if (a === null || !a.open || a.over || a.dc === null || a.dc.readyState !== 'open') {
      inner.send(data, 'unreliable');
      return;
    }
    if (a.dc.bufferedAmount > maxBuffered) {
      stats.unreliableDropped++;
      return;
    }
    const { fit, oversize } = packDatagrams(data, MAX_DATAGRAM_BYTES);
    try {
      for (const d of fit) a.dc.send(d);
      stats.datagramsOut! += fit.length;
    } catch (err) {
      fallBack(a, `a data channel send failed (${(err as Error).message})`, true);
    }
    for (const m of oversize) {
      stats.unreliableOversize!++;
      inner.send(m, 'unreliable');
    }
  };

  return {
    stats,
    maxDatagramBytes: MAX_DATAGRAM_BYTES,
    connect(next: ClientTransportHandler): void {
      handler = next;
      const a: Attempt = { pc: null, dc: null, open: false, over: false, startedAt: Date.now(), timer: undefined };
      attempt = a;
      stats.unreliablePath = 'socket.io';
      inner.connect({
        onOpen: () => {
          next.onOpen();
          start(a).catch((err: Error) => fallBack(a, `setting up the peer connection failed: ${err.message}`, true));
        },
        onMessage: (data: Uint8Array, channel: Channel) => {
          if (channel === 'unreliable') return next.onMessage(data, channel);
          const part = unframe(data);
          if ('game' in part) next.onMessage(part.game, 'reliable');
          else if ('signal' in part) onSignal(a, part.signal);
          else inner.close(`react-netcode: the server sent ${part.error}`);
        },
        onClose: (reason: string) => {
          fallBack(a, 'the socket.io link closed', false);
          if (attempt === a) attempt = null;
          next.onClose(reason);
        },
      });
    },
    send(data: Uint8Array, channel: Channel): void {
      if (channel === 'reliable') inner.send(data, 'reliable');
      else sendUnreliable(attempt, data);
    },
    close(reason: string): void {
      inner.close(reason);
    },
  };
}
