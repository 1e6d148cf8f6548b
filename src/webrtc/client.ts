// Client half of the WebRTC transport: a decorator over a reliable client transport
// (socket.io). The reliable channel and the signalling stay on it; once it is open the
// client offers an RTCPeerConnection with one negotiated, unordered, maxRetransmits-0
// data channel, and when that opens, the unreliable channel (snapshots, inputs, acks,
// pings) moves to it. Until then — and for good when it does not open within
// `openTimeoutMs`, fails, or the server refuses — unreliable messages go over socket.io:
// the engine sees one transport either way; `stats.unreliablePath` says which path.
import { NetcodeError } from '../core/errors.ts';
import type { Channel, ClientTransport, ClientTransportHandler, ConnectIntent, TransportStats } from '../core/transport.ts';
import { packDatagrams } from './datagram.ts';
import {
  DATA_CHANNEL_INIT, DATA_CHANNEL_LABEL, MAX_DATAGRAM_BYTES, frameSignal, gathered, payloadBytes, unframe,
  type DataChannelLike, type IceServer, type PeerConnectionConstructor, type PeerConnectionLike,
} from './signal.ts';

export interface WebRtcClientTransportOptions {
  /** RTCPeerConnection to use (default: the browser's `globalThis.RTCPeerConnection`; in Node pass one: node-datachannel/polyfill's). */
  RTCPeerConnection?: PeerConnectionConstructor;
  /** STUN/TURN servers (default none: host candidates only, enough on a LAN or against a server with a public address). */
  iceServers?: IceServer[];
  /** Stay on socket.io if the data channel is not open this long after the socket.io link opened (default 10,000 ms). */
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

/** Peer-connection setups per socket.io link (the server accepts 3 per connection). */
const SETUPS_PER_LINK = 3;

function checkMs(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!(v >= 0) || !Number.isFinite(v)) throw new NetcodeError('usage', `react-netcode: ${name} must be a finite number of milliseconds >= 0, got ${String(value)}.`);
  return v;
}

/** See the file comment; created by createWebRtcClientTransport. */
class WebRtcClient implements WebRtcClientTransport {
  readonly stats: WebRtcClientTransport['stats'] = {
    unreliableDropped: 0, unreliablePath: 'socket.io', maxDatagramBytes: MAX_DATAGRAM_BYTES, unreliableOversize: 0, datagramsIn: 0, datagramsOut: 0,
  };
  readonly maxDatagramBytes = MAX_DATAGRAM_BYTES;
  private readonly openTimeoutMs: number;
  private readonly gatherTimeoutMs: number;
  private readonly maxBuffered: number;
  private attempt: Attempt | null = null;
  private handler: ClientTransportHandler | null = null;
  /** Setups on the current link (a data channel that closes or fails is set up again, up to SETUPS_PER_LINK). */
  private setups = 0;

  constructor(private readonly inner: ClientTransport, private readonly options: WebRtcClientTransportOptions) {
    this.openTimeoutMs = checkMs(options.openTimeoutMs, 10_000, 'openTimeoutMs');
    this.gatherTimeoutMs = checkMs(options.gatherTimeoutMs, 2000, 'gatherTimeoutMs');
    this.maxBuffered = checkMs(options.maxBufferedBytes, 64 * 1024, 'maxBufferedBytes');
  }

  connect(next: ClientTransportHandler, intent?: ConnectIntent): void {
    this.handler = next;
    const a: Attempt = { pc: null, dc: null, open: false, over: false, startedAt: Date.now(), timer: undefined };
    this.attempt = a;
    this.setups = 0;
    this.stats.unreliablePath = 'socket.io';
    this.inner.connect({
      onOpen: () => {
        next.onOpen();
        this.begin(a);
      },
      onMessage: (data: Uint8Array, channel: Channel) => {
        if (channel === 'unreliable') return next.onMessage(data, channel);
        const part = unframe(data);
        if ('game' in part) next.onMessage(part.game, 'reliable');
        else if (!('signal' in part)) {
          const reason = `react-netcode: the server sent ${part.error}`;
          next.onServerError?.(reason);
          this.inner.close(reason);
        }
        else if (this.attempt !== null) this.onSignal(this.attempt, part.signal);
      },
      onClose: (reason: string) => {
        const current = this.attempt;
        this.attempt = null;
        if (current !== null) this.fallBack(current, 'the socket.io link closed', false);
        next.onClose(reason);
      },
      onServerError: (reason: string) => next.onServerError?.(reason),
      onRetry: (reason: string) => next.onRetry?.(reason),
    }, intent);
  }

  send(data: Uint8Array, channel: Channel): void {
    if (channel === 'reliable') this.inner.send(data, 'reliable');
    else this.sendUnreliable(this.attempt, data);
  }

  close(reason: string): void {
    this.inner.close(reason);
  }

  private begin(a: Attempt): void {
    this.setups++;
    this.start(a).catch((err: Error) => this.fallBack(a, `setting up the peer connection failed: ${err.message}`, true, true));
  }

  /**
   * Give up on the data channel of `a` (the unreliable channel stays on, or returns to, socket.io). `again`: a channel that
   * closed or failed is set up anew after a second, while the link is open, up to SETUPS_PER_LINK times in all.
   */
  private fallBack(a: Attempt, reason: string, tellServer: boolean, again = false): void {
    if (a.over) return;
    if (again && this.setups < SETUPS_PER_LINK) {
      setTimeout(() => {
        if (this.attempt !== a) return;
        const b: Attempt = { pc: null, dc: null, open: false, over: false, startedAt: Date.now(), timer: undefined };
        this.attempt = b;
        this.begin(b);
      }, 1000);
    }
    a.over = true;
    if (a.timer !== undefined) clearTimeout(a.timer);
    this.stats.unreliablePath = 'socket.io';
    this.stats.unreliableSetupMs ??= Date.now() - a.startedAt;
    this.stats.fallbackReason = `react-netcode: the unreliable channel runs over socket.io: ${reason}`;
    if (tellServer) this.inner.send(frameSignal({ t: 'bye', reason }), 'reliable');
    if (a.dc) a.dc.onmessage = a.dc.onopen = a.dc.onclose = null;
    a.pc?.close();
  }

  private async start(a: Attempt): Promise<void> {
    a.startedAt = Date.now();
    delete this.stats.unreliableSetupMs;
    const Ctor = this.options.RTCPeerConnection ?? (globalThis as { RTCPeerConnection?: PeerConnectionConstructor }).RTCPeerConnection;
    if (this.options.enabled === false) return this.fallBack(a, 'WebRTC is off (option enabled: false)', false);
    if (Ctor === undefined) return this.fallBack(a, 'no RTCPeerConnection here (in Node, pass one as the RTCPeerConnection option)', false);
    const timeout = `the data channel did not open within ${this.openTimeoutMs} ms (UDP blocked or no usable ICE candidate? see docs/transports.md)`;
    a.timer = setTimeout(() => this.fallBack(a, timeout, true), this.openTimeoutMs);
    const pc = (a.pc = new Ctor({ iceServers: this.options.iceServers ?? [] }));
    this.watch(a, pc, (a.dc = pc.createDataChannel(DATA_CHANNEL_LABEL, { ...DATA_CHANNEL_INIT })));
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc, this.gatherTimeoutMs);
    if (a.over || this.attempt !== a) return;
    this.inner.send(frameSignal({ t: 'offer', sdp: pc.localDescription?.sdp ?? '' }), 'reliable');
  }

  private watch(a: Attempt, pc: PeerConnectionLike, dc: DataChannelLike): void {
    const stats = this.stats;
    dc.binaryType = 'arraybuffer';
    dc.onopen = () => {
      if (a.over || this.attempt !== a) return;
      clearTimeout(a.timer);
      a.open = true;
      stats.unreliablePath = 'webrtc';
      stats.unreliableSetupMs = Date.now() - a.startedAt;
      delete stats.fallbackReason;
    };
    dc.onmessage = (ev) => {
      const bytes = payloadBytes(ev.data);
      if (bytes === null || a.over || this.attempt !== a) return;
      stats.datagramsIn!++;
      this.handler?.onMessage(bytes, 'unreliable');
    };
    dc.onclose = () => this.fallBack(a, 'the data channel closed', true, true);
    pc.onconnectionstatechange = () => pc.connectionState === 'failed' && this.fallBack(a, 'the peer connection failed (ICE found no working candidate pair)', true, true);
  }

  private onSignal(a: Attempt, signal: Record<string, unknown>): void {
    if (a.over || a.pc === null) return;
    if (signal.t === 'refused') return this.fallBack(a, `the server set up no data channel: ${String(signal.reason)}`, false);
    if (signal.t !== 'answer' || typeof signal.sdp !== 'string') return;
    applyAnswer(a.pc, signal.sdp).catch((err: Error) => this.fallBack(a, `the server's answer was not accepted: ${err.message}`, true, true));
  }

  private sendUnreliable(a: Attempt | null, data: Uint8Array): void {
    if (a === null || !a.open || a.over || a.dc === null || a.dc.readyState !== 'open') return this.inner.send(data, 'unreliable');
    if (a.dc.bufferedAmount > this.maxBuffered) {
      this.stats.unreliableDropped++;
      return;
    }
    const { fit, oversize } = packDatagrams(data, MAX_DATAGRAM_BYTES);
    try {
      for (const d of fit) a.dc.send(d);
      this.stats.datagramsOut! += fit.length;
    } catch (err) {
      // A full send buffer throws in some stacks: a drop, counted, while the channel stays open; otherwise back to socket.io.
      if (a.dc.readyState === 'open') this.stats.unreliableDropped++;
      else this.fallBack(a, `a data channel send failed (${(err as Error).message})`, true, true);
    }
    for (const m of oversize) {
      this.stats.unreliableOversize!++;
      this.inner.send(m, 'unreliable');
    }
  }
}

/**
 * The WebRTC client transport over `inner` (a socket.io client transport): reliable messages and signalling on `inner`, the
 * unreliable channel on a data channel once it opens, on `inner` until then or when it does not (`stats.unreliablePath`).
 */
export function createWebRtcClientTransport(inner: ClientTransport, options: WebRtcClientTransportOptions = {}): WebRtcClientTransport {
  return new WebRtcClient(inner, options);
}
