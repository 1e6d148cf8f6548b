// Server half of the WebRTC transport: a decorator over a reliable server transport
// (socket.io). Each peer's reliable messages carry a tag byte (signal.ts); a peer's
// offer is answered with a peer connection from the npm stack (node-datachannel by
// default, loaded on the first offer, so a server that never gets one never loads it),
// and once the data channel is open that peer's unreliable messages go over it. Setups
// are rate-limited (rate-limit.ts); a refused or failed setup leaves the peer on socket.io.
import { consoleLogger, type Logger } from '../core/emitter.ts';
import { LogLimiter } from '../core/log-limit.ts';
import { NetcodeError } from '../core/errors.ts';
import type { Channel, PeerId, ServerTransport, ServerTransportHandler, TransportStats } from '../core/transport.ts';
import { packDatagrams } from './datagram.ts';
import { SetupLimiter, type SetupLimits } from './rate-limit.ts';
import {
  DATA_CHANNEL_INIT, DATA_CHANNEL_LABEL, MAX_DATAGRAM_BYTES, frameSignal, gathered, payloadBytes, unframe,
  type DataChannelLike, type IceServer, type PeerConnectionConstructor, type PeerConnectionLike, type ServerSignal,
} from './signal.ts';

export interface WebRtcServerTransportOptions {
  /** RTCPeerConnection to use (default: node-datachannel/polyfill's, imported on the first offer). */
  RTCPeerConnection?: PeerConnectionConstructor;
  /** STUN/TURN servers (default none). A server with a public address needs none; behind NAT see docs/transports.md. */
  iceServers?: IceServer[];
  /** UDP ports for host candidates (node-datachannel: portRangeBegin/End), e.g. to open in a firewall or publish from a container. */
  portRange?: { min: number; max: number };
  /** Advertise this address in host candidates instead of the interface's (the public IP of a host behind 1:1 NAT, a container's host). */
  publicAddress?: string;
  /** Peer-connection setups allowed (default 20/s overall, 30/min per address). */
  limits?: SetupLimits;
  /** A peer's address for the per-address limit (default: the socket.io transport's `peerAddress`). */
  addressOf?: (peer: PeerId) => string | undefined;
  /** A setup whose data channel is not open after this long is closed (default 15,000 ms). */
  openTimeoutMs?: number;
  /** Unreliable messages to a peer are dropped (counted) while more than this many bytes wait in its data channel (default 64 KiB). */
  maxBufferedBytes?: number;
  log?: Logger;
}

interface RtcPeer {
  pc: PeerConnectionLike | null;
  dc: DataChannelLike | null;
  open: boolean;
  setups: number;
  /** Signalling messages received: a client needs a few per setup; past MAX_SIGNALS_PER_CONNECTION the link is closed. */
  signals: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  stats: TransportStats & { unreliablePath: 'webrtc' | 'socket.io' };
}

/** Setups one connection may ask for (a client that falls back and retries, or loops). */
const SETUPS_PER_CONNECTION = 3;
/**
 * Signalling messages one connection may send (an offer and a bye per setup, with room to spare). Signals are handled
 * here, before the engine's per-peer rate limits: without this cap a socket could send a refused offer per message.
 */
const MAX_SIGNALS_PER_CONNECTION = 4 * SETUPS_PER_CONNECTION;

/** `sdp` with the address of every host candidate replaced by `address`. */
export function advertise(sdp: string, address: string | undefined): string {
  if (address === undefined) return sdp;
  return sdp.replace(/^(a=candidate:\S+ \d+ \S+ \d+ )(\S+)( \d+ typ host)/gm, `$1${address}$3`);
}

let defaultStack: Promise<PeerConnectionConstructor> | undefined;
function loadDefaultStack(): Promise<PeerConnectionConstructor> {
  defaultStack ??= import('node-datachannel/polyfill').then(
    (m) => m.RTCPeerConnection as unknown as PeerConnectionConstructor,
    (err: Error) => {
      defaultStack = undefined;
      throw new NetcodeError('transport', `react-netcode: the WebRTC server needs the npm package node-datachannel (npm install node-datachannel), or an RTCPeerConnection option: ${err.message}`);
    },
  );
  return defaultStack;
}

export type WebRtcServerTransport = ServerTransport & { readonly maxDatagramBytes: number };

/** See the file comment; created by createWebRtcServerTransport. */
class WebRtcServer implements WebRtcServerTransport {
  readonly maxDatagramBytes = MAX_DATAGRAM_BYTES;
  private readonly peers = new Map<PeerId, RtcPeer>();
  private readonly limiter: SetupLimiter;
  private readonly logs: LogLimiter;
  private readonly openTimeoutMs: number;
  private readonly maxBuffered: number;
  private handler: ServerTransportHandler | null = null;

  constructor(private readonly inner: ServerTransport, private readonly options: WebRtcServerTransportOptions) {
    this.limiter = new SetupLimiter(options.limits);
    this.logs = new LogLimiter(options.log ?? consoleLogger);
    this.openTimeoutMs = options.openTimeoutMs ?? 15_000;
    this.maxBuffered = options.maxBufferedBytes ?? 64 * 1024;
  }

  listen(next: ServerTransportHandler): void {
    this.handler = next;
    this.inner.listen({
      ...(next.canConnect ? { canConnect: (opening: number) => next.canConnect!(opening) } : {}),
      ...(next.onPeerError ? { onPeerError: (peer: PeerId, reason: string) => next.onPeerError!(peer, reason) } : {}),
      onConnect: (peer) => {
        const stats = { unreliableDropped: 0, unreliablePath: 'socket.io' as const, maxDatagramBytes: MAX_DATAGRAM_BYTES, unreliableOversize: 0, datagramsIn: 0, datagramsOut: 0 };
        this.peers.set(peer, { pc: null, dc: null, open: false, setups: 0, signals: 0, timer: undefined, stats });
        next.onConnect(peer);
      },
      onMessage: (peer, data, channel) => this.onMessage(peer, data, channel),
      onDisconnect: (peer, reason) => {
        const p = this.peers.get(peer);
        this.peers.delete(peer);
        if (p) this.teardown(p);
        next.onDisconnect(peer, reason);
      },
    });
  }

  send(peer: PeerId, data: Uint8Array, channel: Channel): void {
    const p = this.peers.get(peer);
    if (p === undefined) return;
    if (channel === 'reliable') this.inner.send(peer, data, 'reliable');
    else this.sendUnreliable(peer, p, data);
  }

  disconnect(peer: PeerId, reason: string): void {
    this.inner.disconnect(peer, reason);
  }

  close(): void {
    for (const p of this.peers.values()) this.teardown(p);
    this.inner.close();
  }

  peerStats(peer: PeerId): TransportStats | undefined {
    const p = this.peers.get(peer);
    if (p === undefined) return undefined;
    const base = this.inner.peerStats?.(peer);
    return { ...p.stats, unreliableDropped: p.stats.unreliableDropped + (base?.unreliableDropped ?? 0) };
  }

  private reply(peer: PeerId, message: ServerSignal): void {
    this.inner.send(peer, frameSignal(message), 'reliable');
  }

  private teardown(p: RtcPeer): void {
    if (p.timer !== undefined) clearTimeout(p.timer);
    p.timer = undefined;
    if (p.dc) p.dc.onmessage = p.dc.onopen = p.dc.onclose = null;
    p.pc?.close();
    p.pc = p.dc = null;
    p.open = false;
    p.stats.unreliablePath = 'socket.io';
  }

  private refuse(peer: PeerId, reason: string): void {
    this.logs.log('warn', 'webrtc setup refused', `react-netcode: no WebRTC data channel for peer ${peer}: ${reason}; it stays on socket.io.`, Date.now());
    this.reply(peer, { t: 'refused', reason });
  }

  private address(peer: PeerId): string {
    const inner = this.inner as { peerAddress?: (p: PeerId) => string | undefined };
    return (this.options.addressOf ?? ((id: PeerId) => inner.peerAddress?.(id)))(peer) ?? `peer ${peer}`;
  }

  private async setup(peer: PeerId, p: RtcPeer, offer: string): Promise<void> {
    const Ctor = this.options.RTCPeerConnection ?? (await loadDefaultStack());
    if (this.peers.get(peer) !== p) return;
    const config: Record<string, unknown> = { iceServers: this.options.iceServers ?? [] };
    const range = this.options.portRange;
    if (range) Object.assign(config, { portRangeBegin: range.min, portRangeEnd: range.max });
    const pc = (p.pc = new Ctor(config));
    this.watch(peer, p, pc, (p.dc = pc.createDataChannel(DATA_CHANNEL_LABEL, { ...DATA_CHANNEL_INIT })));
    p.timer = setTimeout(() => {
      if (p.pc !== pc) return;
      this.logs.log('info', 'webrtc timeout', `react-netcode: the data channel of peer ${peer} did not open within ${this.openTimeoutMs} ms; closed.`, Date.now());
      this.teardown(p);
    }, this.openTimeoutMs);
    await pc.setRemoteDescription({ type: 'offer', sdp: offer });
    await pc.setLocalDescription(await pc.createAnswer());
    await gathered(pc, 2000);
    if (p.pc !== pc) return;
    this.reply(peer, { t: 'answer', sdp: advertise(pc.localDescription?.sdp ?? '', this.options.publicAddress) });
  }

  private watch(peer: PeerId, p: RtcPeer, pc: PeerConnectionLike, dc: DataChannelLike): void {
    dc.binaryType = 'arraybuffer';
    dc.onopen = () => {
      if (p.pc !== pc) return;
      clearTimeout(p.timer);
      p.open = true;
      p.stats.unreliablePath = 'webrtc';
    };
    dc.onmessage = (ev) => {
      const bytes = payloadBytes(ev.data);
      if (bytes === null || p.pc !== pc || this.peers.get(peer) !== p) return;
      p.stats.datagramsIn!++;
      this.handler?.onMessage(peer, bytes, 'unreliable');
    };
    dc.onclose = () => {
      if (p.pc !== pc) return;
      this.logs.log('info', 'webrtc closed', `react-netcode: the data channel of peer ${peer} closed (peer connection ${pc.connectionState}); it goes back to socket.io.`, Date.now());
      this.teardown(p);
    };
  }

  private onSignal(peer: PeerId, p: RtcPeer, signal: Record<string, unknown>): void {
    if (signal.t === 'bye') return this.teardown(p);
    if (signal.t !== 'offer' || typeof signal.sdp !== 'string') return this.refuse(peer, `unknown signalling message '${String(signal.t)}'`);
    if (p.pc !== null) return this.refuse(peer, 'a setup is already under way for this connection');
    if (++p.setups > SETUPS_PER_CONNECTION) return this.refuse(peer, `${SETUPS_PER_CONNECTION} setups on this connection already`);
    const why = this.limiter.take(this.address(peer), Date.now());
    if (why !== null) return this.refuse(peer, why);
    this.setup(peer, p, signal.sdp).catch((err: Error) => {
      this.teardown(p);
      if (this.peers.get(peer) === p) this.refuse(peer, `the setup failed: ${err.message}`);
    });
  }

  private onMessage(peer: PeerId, data: Uint8Array, channel: Channel): void {
    const p = this.peers.get(peer);
    if (p === undefined || this.handler === null) return;
    if (channel === 'unreliable') return this.handler.onMessage(peer, data, channel);
    const part = unframe(data);
    if ('game' in part) this.handler.onMessage(peer, part.game, 'reliable');
    else if ('signal' in part) {
      if (++p.signals <= MAX_SIGNALS_PER_CONNECTION) return this.onSignal(peer, p, part.signal);
      this.violation(peer, `more than ${MAX_SIGNALS_PER_CONNECTION} WebRTC signalling messages on one connection`);
    } else this.violation(peer, part.error);
  }

  /** The client sent something no client of this transport sends (`what`): a protocol violation, the link closed. */
  private violation(peer: PeerId, what: string): void {
    const reason = `react-netcode: the client sent ${what}`;
    this.handler?.onPeerError?.(peer, reason);
    this.inner.disconnect(peer, reason);
  }

  private sendUnreliable(peer: PeerId, p: RtcPeer, data: Uint8Array): void {
    const dc = p.dc;
    if (!p.open || dc === null || dc.readyState !== 'open') return this.inner.send(peer, data, 'unreliable');
    if (dc.bufferedAmount > this.maxBuffered) {
      p.stats.unreliableDropped++;
      return;
    }
    const { fit, oversize } = packDatagrams(data, MAX_DATAGRAM_BYTES);
    try {
      for (const d of fit) dc.send(d);
      p.stats.datagramsOut! += fit.length;
    } catch (err) {
      // A full send buffer throws in some stacks: a drop, counted, while the channel stays open; otherwise back to socket.io.
      const open = dc.readyState === 'open';
      const then = open ? 'dropped, counted in unreliableDropped' : 'it goes back to socket.io';
      this.logs.log('warn', 'webrtc send failed', `react-netcode: a data channel send to peer ${peer} failed (${(err as Error).message}); ${then}.`, Date.now());
      if (open) p.stats.unreliableDropped++;
      else this.teardown(p);
    }
    for (const m of oversize) {
      p.stats.unreliableOversize!++;
      const text = `react-netcode: an unreliable message of ${m.byteLength} bytes does not fit one datagram (${MAX_DATAGRAM_BYTES}); sent over socket.io instead — lower snapshotBudgetBytes.`;
      this.logs.log('warn', 'webrtc oversize', text, Date.now());
      this.inner.send(peer, m, 'unreliable');
    }
  }
}

/**
 * The WebRTC server transport over `inner` (a socket.io server transport): answers each client's offer with a peer
 * connection (node-datachannel unless `RTCPeerConnection` is given), rate-limited; a peer's unreliable messages go over its
 * data channel once open, over `inner` otherwise. Plain socket.io clients are served too (they never offer).
 */
export function createWebRtcServerTransport(inner: ServerTransport, options: WebRtcServerTransportOptions = {}): WebRtcServerTransport {
  return new WebRtcServer(inner, options);
}
