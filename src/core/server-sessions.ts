// Connection bookkeeping for the server engine: peers awaiting Hello, the
// handshake (protocol hash, networkId, resume of a suspended connection), the
// join decision, suspension on a dropped link, lingering closes and timeouts.

import type { BitReader } from './bits.ts';
import { buildMismatch, protocolMismatch, type BuildIdentity } from './build-check.ts';
import { Connection } from './connection.ts';
import { logs, type Logger } from './emitter.ts';
import { describeError } from './errors.ts';
import { IdAllocator } from './ids.ts';
import { readHello, type MessageEncoder } from './messages.ts';
import type { JoinPayload, Protocol } from './protocol.ts';
import type { Rng } from './rng.ts';
import type { PeerId, ServerTransport } from './transport.ts';
import { MessageKind, WIRE_VERSION } from './wire.ts';

/** What `onJoin` returns: accept (`true`/undefined) or refuse (`false` or `{ reject: reason }`). May be a Promise. */
export type JoinDecision = boolean | undefined | void | { reject: string };

export const LINGER_MS = 500;

/** A live connection is taken over by a resume (its token) only once its old link has sent nothing this long (ms). */
export const TAKEOVER_SILENCE_MS = 1000;

export interface SessionHooks<P extends Protocol> {
  /** A new connection completed the handshake (or an old one resumed, `resumed` true). */
  opened(connection: Connection<JoinPayload<P>>, resumed: boolean): void;
  /** The link of an open connection dropped unexpectedly: it is now suspended. */
  suspended(connection: Connection<JoinPayload<P>>, reason: string): void;
  /** The connection is gone for good. */
  closed(connection: Connection<JoinPayload<P>>, reason: string): void;
  sendWelcome(connection: Connection<JoinPayload<P>>, resumed: boolean): void;
  /** A connection in game sent nothing for `silenceTimeoutMs` (`reason` says so): its link is closed, it is suspended next. */
  silent(connection: Connection<JoinPayload<P>>, reason: string): void;
  /** A peer's handshake was refused (it is told `reason`): the server logs it. */
  refused(peer: PeerId, reason: string): void;
}

export interface SessionOptions {
  maxConnections: number;
  resumeGraceMs: number;
  /** Keep a connection that has not joined for a resume too (rooms: each holds a seat). */
  resumeUnjoined: boolean;
  handshakeTimeoutMs: number;
  idQuarantineMs: number;
  /** A connection in game that sent nothing this long (ms) is taken for dropped: closed, suspended (0: never). */
  silenceTimeoutMs: number;
  /** This server's shared-systems fingerprint and build id, compared with each Hello's. */
  identity: BuildIdentity;
}

export class Sessions<P extends Protocol> {
  /** Live (connected, in game or suspended) connections by networkId. */
  readonly connections = new Map<number, Connection<JoinPayload<P>>>();
  readonly byPeer = new Map<PeerId, Connection<JoinPayload<P>>>();
  /** The connections in game (joined, not suspended), in handshake order: a live view (`server.connectionsInGame`). */
  readonly inGame: Iterable<Connection<JoinPayload<P>>> = { [Symbol.iterator]: () => inGame(this.connections.values()) };
  private readonly pending = new Map<PeerId, number>(); // peer → server time it connected
  private readonly refused = new Map<PeerId, number>(); // peer → drop at (ms)
  private readonly ids: IdAllocator;
  /**
   * Sessions the server closed with a reason for their client (a kick, a replaced seat), by networkId, while their id
   * is quarantined: a resume of one (its client did not hear the Close) is refused with that reason rather than
   * answered with a fresh session.
   */
  private readonly ended = new Map<number, { readonly token: number; readonly reason: string; readonly until: number }>();
  private readonly endedForMs: number;
  /** Resumes of a connection whose old link still talked: peer → the session it named, retried each tick. */
  private readonly waiting = new Map<PeerId, { readonly id: number; readonly token: number }>();

  constructor(
    private readonly protocol: P,
    private readonly transport: Pick<ServerTransport, 'send' | 'disconnect'>,
    private readonly encoder: MessageEncoder,
    /** Resume tokens: unpredictable in production (createServer passes a CSPRNG), seeded in tests. */
    private readonly tokens: Pick<Rng, 'nextUint32'>,
    private readonly options: SessionOptions,
    private readonly hooks: SessionHooks<P>,
    private readonly log: Logger,
  ) {
    this.endedForMs = options.resumeGraceMs + options.idQuarantineMs;
    this.ids = new IdAllocator(this.endedForMs);
  }

  get pendingPeers(): number {
    return this.pending.size;
  }

  peerConnected(peer: PeerId, now: number): void {
    this.pending.set(peer, now);
  }

  isPending(peer: PeerId): boolean {
    return this.pending.has(peer);
  }

  /** Refused (told why) and waiting out its linger: what it sends is ignored. */
  isRefused(peer: PeerId): boolean {
    return this.refused.has(peer);
  }

  /** A Hello from a pending peer (reader positioned after the kind byte). */
  hello(peer: PeerId, r: BitReader, now: number): void {
    if (!this.pending.has(peer)) return;
    const hello = readHello(r);
    if (hello.wireVersion !== WIRE_VERSION || hello.protocolHash !== this.protocol.hash) {
      this.refuseHello(peer, protocolMismatch(hello, { protocolHash: this.protocol.hash, wireVersion: WIRE_VERSION }), now);
      return;
    }
    const mismatch = buildMismatch('server', this.options.identity, hello);
    if (mismatch !== null) return this.refuseHello(peer, mismatch, now);
    if (hello.resumeId !== 0 && this.resume(peer, hello.resumeId, hello.resumeToken, now)) return;
    this.open(peer, now);
  }

  /** A new session for `peer`, unless the server is full. */
  private open(peer: PeerId, now: number): void {
    const full = `react-netcode: server full (${this.connections.size} connections`;
    if (this.connections.size >= this.options.maxConnections) return this.refuseHello(peer, `${full}, maxConnections ${this.options.maxConnections}); try again later.`, now);
    const networkId = this.ids.allocate(now);
    if (networkId === undefined) return this.refuseHello(peer, `${full}, no free networkId: ids of closed ones are quarantined); try again later.`, now);
    this.ended.delete(networkId);
    this.pending.delete(peer);
    const connection = new Connection<JoinPayload<P>>(networkId, peer, this.tokens.nextUint32() >>> 0 || 1);
    connection.heardAt = now;
    this.connections.set(networkId, connection);
    this.byPeer.set(peer, connection);
    this.hooks.sendWelcome(connection, false);
    this.hooks.opened(connection, false);
  }

  /**
   * A Hello that names a session (`id`, `token`): resume it, or refuse it when the server kicked it. Returns
   * whether it was handled; false starts a fresh session (an unknown id, a wrong token, a session lost past its grace).
   */
  private resume(peer: PeerId, id: number, token: number, now: number): boolean {
    const old = this.connections.get(id);
    if (old === undefined || old.resumeToken !== token) {
      const ended = this.ended.get(id);
      if (ended === undefined || ended.token !== token) return false;
      this.ended.delete(id);
      if (now >= ended.until) return false;
      this.refuseHello(peer, endedWhileAway(ended.reason), now);
      return true;
    }
    if (old.state === 'closed') {
      if (!old.kicked) return false;
      this.refuseHello(peer, endedWhileAway(old.closeReason ?? 'closed'), now);
      return true;
    }
    if (old.state !== 'suspended') {
      // Its client resumes over a new link while the server still holds the old one (half-open, or not yet seen to
      // drop): the token proves it is the same client, so the new link takes the session and the old one is dropped —
      // once the old link has been silent TAKEOVER_SILENCE_MS (a client resuming has stopped sending on it), so a
      // guessed token can never take the session of a client that is still talking. Until then the Hello waits.
      if (now - old.heardAt < TAKEOVER_SILENCE_MS) {
        this.waiting.set(peer, { id, token });
        return true;
      }
      const oldPeer = old.peer;
      this.byPeer.delete(oldPeer);
      this.transport.disconnect(oldPeer, 'react-netcode: the session resumed over a newer link.');
      old.resumeState = old.state;
      old.state = 'suspended';
      old.suspendedAt = now;
      this.hooks.suspended(old, 'react-netcode: its client resumed over a newer link (the server still held the old one)');
    }
    this.pending.delete(peer);
    old.peer = peer;
    old.state = old.resumeState;
    old.heardAt = now;
    this.byPeer.set(peer, old);
    this.hooks.sendWelcome(old, true);
    this.hooks.opened(old, true);
    return true;
  }

  /** The transport lost `peer`. */
  peerDisconnected(peer: PeerId, reason: string, now: number): void {
    this.pending.delete(peer);
    this.waiting.delete(peer);
    this.refused.delete(peer);
    const connection = this.byPeer.get(peer);
    if (!connection) return;
    this.byPeer.delete(peer);
    // Only a connection in game is kept for a resume (unless resumeUnjoined): one that has not joined holds nothing a
    // fresh session would lose, and kept it would hold a place of maxConnections for resumeGraceMs (Hello, then drop,
    // 100 times a second filled a server). Its client's resume gets a fresh session (resumeFailed) and joins again.
    const unjoined = connection.state !== 'in-game' && !this.options.resumeUnjoined;
    if (connection.state === 'closed' || unjoined || this.options.resumeGraceMs <= 0) {
      if (connection.state !== 'closed') connection.closeReason = reason;
      connection.state = 'closed';
      this.finish(connection, connection.closeReason ?? reason, now);
      return;
    }
    connection.resumeState = connection.state === 'in-game' ? 'in-game' : 'connected';
    connection.state = 'suspended';
    connection.suspendedAt = now;
    this.hooks.suspended(connection, reason);
  }

  /** Close on purpose. `notify`: tell the client why first and drop the link after a linger. */
  close(connection: Connection<JoinPayload<P>>, reason: string, notify: boolean, now: number): void {
    if (connection.state === 'closed') return;
    const wasSuspended = connection.state === 'suspended';
    connection.state = 'closed';
    connection.closeReason = reason;
    connection.kicked = notify;
    if (wasSuspended) {
      this.finish(connection, reason, now);
      return;
    }
    if (notify) {
      this.transport.send(connection.peer, this.encoder.reason(MessageKind.Close, reason), 'reliable');
      connection.lingerUntil = now + LINGER_MS;
    } else this.transport.disconnect(connection.peer, reason);
  }

  /**
   * The transport closed `peer` for what it sent (an oversize message, non-binary data, an unknown event, a malformed
   * frame): a protocol violation, which ends the connection for good as the server's own protocol errors do (no resume:
   * a later connect gets a fresh session). Its `onDisconnect` follows and emits `leave` with this reason.
   */
  violated(peer: PeerId, reason: string, now: number): void {
    const connection = this.byPeer.get(peer);
    if (connection) this.close(connection, `react-netcode: protocol error from client: ${describeError(reason)}`, false, now);
  }

  /** A Close before the handshake: a client that leaves while it connects. Nothing is wrong and nothing is said; its link is closed. */
  leftBeforeHandshake(peer: PeerId): void {
    this.pending.delete(peer);
    this.transport.disconnect(peer, 'react-netcode: the client left before its handshake finished');
  }

  refuse(peer: PeerId, reason: string, now: number): void {
    this.pending.delete(peer);
    this.transport.send(peer, this.encoder.reason(MessageKind.Refuse, reason), 'reliable');
    this.refused.set(peer, now + LINGER_MS);
  }

  /** Refuse a Hello: tell the peer why, and the server's log. */
  private refuseHello(peer: PeerId, reason: string, now: number): void {
    this.refuse(peer, reason, now);
    this.hooks.refused(peer, reason);
  }

  /** Timeouts: peers without a Hello, clients silent in game, refused and lingering links, suspended connections past their grace. */
  expire(now: number): void {
    for (const [peer, since] of this.pending) {
      if (now - since >= this.options.handshakeTimeoutMs) {
        this.pending.delete(peer);
        this.transport.disconnect(peer, 'handshake timed out');
      }
    }
    for (const [peer, until] of this.refused) {
      if (now >= until) {
        this.refused.delete(peer);
        this.transport.disconnect(peer, 'refused');
      }
    }
    if (this.waiting.size > 0) this.retryWaiting(now);
    // forEach with a kept callback, not for…of: every tick, nothing allocated per connection.
    this.expireNow = now;
    this.connections.forEach(this.expireOne);
  }

  /** Resumes waiting for their old link's silence: taken over, resumed, refused or a fresh session once it is over. */
  private retryWaiting(now: number): void {
    for (const [peer, { id, token }] of this.waiting) {
      if (!this.pending.has(peer)) {
        this.waiting.delete(peer); // gone, or timed out
        continue;
      }
      const old = this.connections.get(id);
      if (old !== undefined && old.resumeToken === token && (old.state === 'connected' || old.state === 'in-game') && now - old.heardAt < TAKEOVER_SILENCE_MS) continue;
      this.waiting.delete(peer);
      if (!this.resume(peer, id, token, now)) this.open(peer, now);
    }
  }

  private expireNow = 0;
  private readonly expireOne = (connection: Connection<JoinPayload<P>>): void => {
    const now = this.expireNow;
    if (connection.state === 'closed' && connection.lingerUntil > 0 && now >= connection.lingerUntil) {
      connection.lingerUntil = 0;
      this.transport.disconnect(connection.peer, connection.closeReason ?? 'closed');
    } else if (connection.state === 'suspended' && now - connection.suspendedAt >= this.options.resumeGraceMs) {
      connection.state = 'closed';
      connection.closeReason = 'connection lost (not resumed in time)';
      this.finish(connection, connection.closeReason, now);
    } else if (connection.state === 'in-game' && this.options.silenceTimeoutMs > 0 && now - connection.heardAt >= this.options.silenceTimeoutMs) {
      this.silenced(connection, now);
    }
  };

  /** In game and silent for silenceTimeoutMs: a dropped link, as if the transport had lost it (suspended, or closed without a grace). */
  private silenced(connection: Connection<JoinPayload<P>>, now: number): void {
    const peer = connection.peer;
    const reason = `react-netcode: the client sent nothing for ${this.options.silenceTimeoutMs} ms in game (a frozen page, a dead link; silenceTimeoutMs)`;
    this.hooks.silent(connection, reason);
    this.transport.disconnect(peer, reason);
    this.peerDisconnected(peer, reason, now);
  }

  private finish(connection: Connection<JoinPayload<P>>, reason: string, now: number): void {
    if (!this.connections.delete(connection.networkId)) return;
    if (connection.kicked) this.ended.set(connection.networkId, { token: connection.resumeToken, reason, until: now + this.endedForMs });
    this.ids.release(connection.networkId, now);
    connection.lingerUntil = 0;
    this.hooks.closed(connection, reason);
    if (logs(this.log, 'debug')) this.log('debug', `react-netcode: connection ${connection.networkId} closed: ${reason}`);
  }
}

/** The refusal of a resume whose session the server ended while the client's link was down. */
function endedWhileAway(reason: string): string {
  return `react-netcode: this session cannot resume: the server ended it while its link was down: ${describeError(reason)}`;
}

function* inGame<C extends Connection<unknown>>(connections: Iterable<C>): Generator<C> {
  for (const c of connections) if (c.inGame) yield c;
}
