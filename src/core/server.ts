// The authoritative server engine: accepts peers through a ServerTransport, runs
// the handshake (protocol hash, networkId), the join step (GoInGame, with the
// app's onJoin decision) and typed RPCs, and drives fixed ticks from an injected
// clock. Ghost simulation and snapshots plug into `tick()` (see the ghosts docs).

import { FixedStepAccumulator } from './accumulator.ts';
import { BitReader } from './bits.ts';
import { Connection } from './connection.ts';
import { Emitter, consoleLogger, type Logger } from './emitter.ts';
import { NetcodeError, isNetcodeError } from './errors.ts';
import { IdAllocator } from './ids.ts';
import { MessageEncoder, readHello, readKind } from './messages.ts';
import type { JoinPayload, Protocol, RpcNames, RpcPayload } from './protocol.ts';
import { Rng } from './rng.ts';
import { RpcRegistry } from './rpc-dispatch.ts';
import { TickTimer, type TickStats } from './stats.ts';
import type { Tick } from './tick.ts';
import type { Channel, PeerId, Scheduler, ServerTransport, TimerHandle } from './transport.ts';
import { MAX_MESSAGE_BYTES, MessageKind, WIRE_VERSION } from './wire.ts';

/** What `onJoin` returns: accept (`true`/undefined) or refuse (`false` or `{ reject: reason }`). May be a Promise. */
export type JoinDecision = boolean | undefined | void | { reject: string };

export interface ServerOptions<P extends Protocol> {
  protocol: P;
  transport: ServerTransport;
  /** Clock and timers for `start()`; tests drive `tick()`/`update(now)` instead. */
  scheduler?: Scheduler;
  /** Decide whether a connection may join (auth token check, name rules). */
  onJoin?: (connection: Connection<JoinPayload<P>>, payload: JoinPayload<P>) => JoinDecision | Promise<JoinDecision>;
  /** Most simultaneous connections (default 256). Extra clients are refused with "server full". */
  maxConnections?: number;
  /** How long a dropped client may resume with its token (default 10,000 ms); its networkId is quarantined this long plus `idQuarantineMs`. */
  resumeGraceMs?: number;
  /** Extra quarantine of a released networkId beyond the grace (default 5,000 ms). */
  idQuarantineMs?: number;
  /** A peer that has not said Hello after this long is dropped (default 10,000 ms). */
  handshakeTimeoutMs?: number;
  /** Most ticks one `update` may run to catch up (default 8); more is an overrun, logged. */
  maxCatchUpTicks?: number;
  /** First tick number (default 0; tests start near 2^32 to exercise the wrap). */
  startTick?: Tick;
  /** Seed for server randomness (resume tokens; `ctx.rng`). */
  seed?: number;
  log?: Logger;
}

export type ServerEvents<P extends Protocol> = {
  /** Handshake done: the connection has a networkId. */
  connect: (connection: Connection<JoinPayload<P>>) => void;
  /** The join was accepted: the connection is in game. */
  join: (connection: Connection<JoinPayload<P>>) => void;
  /** The connection closed. */
  leave: (connection: Connection<JoinPayload<P>>, reason: string) => void;
  /** After each simulated tick. */
  tick: (tick: Tick) => void;
};

type Inbound = { kind: 'connect'; peer: PeerId } | { kind: 'message'; peer: PeerId; data: Uint8Array; channel: Channel } | { kind: 'disconnect'; peer: PeerId; reason: string };

const LINGER_MS = 500;

export class NetServer<P extends Protocol> {
  readonly protocol: P;
  readonly events: Emitter<ServerEvents<P>>;
  /** Live connections by networkId. */
  readonly connections = new Map<number, Connection<JoinPayload<P>>>();
  private readonly byPeer = new Map<PeerId, Connection<JoinPayload<P>>>();
  private readonly pending = new Map<PeerId, number>(); // peer → server time it connected
  private readonly inbox: Inbound[] = [];
  private readonly transport: ServerTransport;
  private readonly rpcs: RpcRegistry<(connection: Connection<JoinPayload<P>>, payload: never) => void>;
  private readonly encoder = new MessageEncoder();
  private readonly reader = new BitReader();
  private readonly ids: IdAllocator;
  private readonly acc: FixedStepAccumulator;
  private readonly timer = new TickTimer();
  private readonly rng: Rng;
  private readonly log: Logger;
  private loop: TimerHandle | undefined;
  private lastOverruns = 0;
  private listening = false;
  /** The tick the next `tick()` simulates. */
  currentTick: Tick;
  /** Server time in ms, advanced by one step per tick (deterministic). */
  timeMs = 0;

  constructor(private readonly options: ServerOptions<P>) {
    this.protocol = options.protocol;
    this.transport = options.transport;
    this.log = options.log ?? consoleLogger;
    this.events = new Emitter((e) => this.log('error', `react-netcode: a server event listener threw: ${String(e)}`));
    this.rpcs = new RpcRegistry(options.protocol, 'toServer');
    this.ids = new IdAllocator((options.resumeGraceMs ?? 10_000) + (options.idQuarantineMs ?? 5_000));
    this.acc = new FixedStepAccumulator({ stepMs: options.protocol.stepMs, maxStepsPerAdvance: options.maxCatchUpTicks ?? 8 });
    this.rng = new Rng(options.seed ?? 0x5eed);
    this.currentTick = (options.startTick ?? 0) >>> 0;
  }

  /** Start accepting peers (called by `start()`; call it yourself when driving `tick()` by hand). */
  listen(): this {
    if (this.listening) return this;
    this.listening = true;
    this.transport.listen({
      onConnect: (peer) => this.inbox.push({ kind: 'connect', peer }),
      onMessage: (peer, data, channel) => this.inbox.push({ kind: 'message', peer, data, channel }),
      onDisconnect: (peer, reason) => this.inbox.push({ kind: 'disconnect', peer, reason }),
    });
    return this;
  }

  /** Run the fixed-step loop on the scheduler's monotonic clock. */
  start(): void {
    const scheduler = this.options.scheduler;
    if (!scheduler) throw new NetcodeError('usage', 'react-netcode: start() needs a scheduler; pass { scheduler: realTimeScheduler } or drive tick()/update(now) yourself.');
    if (this.loop !== undefined) return;
    this.listen();
    this.acc.reset();
    const run = (): void => {
      this.update(scheduler.now());
      this.loop = scheduler.setTimeout(run, Math.max(1, this.acc.msUntilNextStep()));
    };
    run();
  }

  stop(): void {
    if (this.loop !== undefined) this.options.scheduler?.clearTimeout(this.loop);
    this.loop = undefined;
  }

  /** Stop the loop, tell every client why, and close the transport. */
  close(reason = 'server shutting down'): void {
    this.stop();
    for (const connection of [...this.connections.values()]) this.closeConnection(connection, reason, true);
    this.transport.close();
  }

  /** Feed the monotonic time (ms); runs every tick that is due (clamped catch-up). */
  update(now: number): number {
    const steps = this.acc.advance(now);
    for (let i = 0; i < steps; i++) this.tick();
    if (this.acc.overruns !== this.lastOverruns) {
      this.lastOverruns = this.acc.overruns;
      this.log('warn', `react-netcode: server tick loop fell behind; dropped ${this.acc.droppedSteps} ticks so far (${this.acc.overruns} overruns). The simulation is too slow for tickRate ${this.protocol.tickRate}.`);
    }
    return steps;
  }

  /** Simulate exactly one tick: receive, simulate, send. */
  tick(): void {
    const clock = this.options.scheduler;
    const started = clock ? clock.now() : 0;
    this.listen();
    this.receive();
    this.expire();
    this.events.emit('tick', this.currentTick);
    this.currentTick = (this.currentTick + 1) >>> 0;
    this.timeMs += this.protocol.stepMs;
    this.timer.record(clock ? clock.now() - started : 0);
  }

  get stats(): TickStats {
    return this.timer.summary(this.acc.overruns, this.acc.droppedSteps);
  }

  /** Handle RPC `name` from clients; returns the unsubscribe function. */
  onRpc<K extends RpcNames<P, 'toServer'>>(name: K, handler: (connection: Connection<JoinPayload<P>>, payload: RpcPayload<P, K>) => void): () => void {
    return this.rpcs.on(name, handler as (connection: Connection<JoinPayload<P>>, payload: never) => void);
  }

  /** Send RPC `name` to one connection. */
  send<K extends RpcNames<P, 'toClient'>>(connection: Connection<JoinPayload<P>>, name: K, payload: RpcPayload<P, K>): void {
    this.sendRaw(connection, this.rpcs.encode(this.encoder, name, 'toClient', payload), 'reliable');
  }

  /** Send RPC `name` to every connection in game (or matching `filter`). */
  broadcast<K extends RpcNames<P, 'toClient'>>(name: K, payload: RpcPayload<P, K>, filter: (c: Connection<JoinPayload<P>>) => boolean = (c) => c.inGame): void {
    const bytes = this.rpcs.encode(this.encoder, name, 'toClient', payload);
    for (const connection of this.connections.values()) if (filter(connection)) this.sendRaw(connection, bytes, 'reliable');
  }

  /** Close one connection with a reason the client will see. */
  kick(connection: Connection<JoinPayload<P>>, reason: string): void {
    this.closeConnection(connection, reason, true);
  }

  /** Peers connected at transport level that have not completed the handshake. */
  get pendingPeers(): number {
    return this.pending.size;
  }

  private sendRaw(connection: Connection<JoinPayload<P>>, bytes: Uint8Array, channel: Channel): void {
    if (connection.state === 'closed') return;
    connection.stats.messagesOut++;
    connection.stats.bytesOut += bytes.byteLength;
    this.transport.send(connection.peer, bytes, channel);
  }

  private receive(): void {
    // Handlers may queue more events (e.g. a kick disconnecting a peer): take a fixed batch.
    const batch = this.inbox.splice(0, this.inbox.length);
    for (const event of batch) {
      if (event.kind === 'connect') this.pending.set(event.peer, this.timeMs);
      else if (event.kind === 'disconnect') this.onDisconnect(event.peer, event.reason);
      else this.onMessage(event.peer, event.data);
    }
  }

  private onDisconnect(peer: PeerId, reason: string): void {
    this.pending.delete(peer);
    this.refused.delete(peer);
    const connection = this.byPeer.get(peer);
    if (!connection) return;
    this.byPeer.delete(peer);
    this.connections.delete(connection.networkId);
    this.ids.release(connection.networkId, this.timeMs);
    connection.state = 'closed';
    connection.closeReason ??= reason;
    connection.lingerUntil = 0;
    this.events.emit('leave', connection, connection.closeReason);
  }

  private onMessage(peer: PeerId, data: Uint8Array): void {
    const connection = this.byPeer.get(peer);
    if (connection?.state === 'closed') return;
    try {
      if (data.byteLength > MAX_MESSAGE_BYTES) throw new NetcodeError('wire/too-large', `react-netcode: message of ${data.byteLength} bytes exceeds ${MAX_MESSAGE_BYTES}.`);
      const kind = readKind(this.reader, data);
      if (!connection) {
        if (kind !== MessageKind.Hello) throw new NetcodeError('wire/unknown-message', `react-netcode: expected Hello, got message kind ${kind}.`);
        this.onHello(peer);
        return;
      }
      connection.stats.messagesIn++;
      connection.stats.bytesIn += data.byteLength;
      if (kind === MessageKind.Join) this.onJoinMessage(connection);
      else if (kind === MessageKind.Rpc) this.onRpcMessage(connection);
      else if (kind === MessageKind.Close) this.closeConnection(connection, this.safeReason(), false);
      else throw new NetcodeError('wire/unknown-message', `react-netcode: unknown message kind ${kind}.`);
    } catch (error) {
      if (!isNetcodeError(error)) throw error;
      const reason = `react-netcode: protocol error from client: ${error.message.replace(/^react-netcode: /, '')}`;
      this.log('warn', `${reason} (peer ${peer}${connection ? `, networkId ${connection.networkId}` : ''}); closing that connection only.`);
      if (connection) this.closeConnection(connection, reason, true);
      else this.refusePeer(peer, reason);
    }
  }

  private safeReason(): string {
    try {
      return this.reader.readString(256);
    } catch {
      return 'client left';
    }
  }

  private onHello(peer: PeerId): void {
    if (!this.pending.has(peer)) return;
    const hello = readHello(this.reader);
    if (hello.wireVersion !== WIRE_VERSION || hello.protocolHash !== this.protocol.hash) {
      this.refusePeer(peer, `react-netcode: protocol mismatch (client ${hello.protocolHash.toString(16)} v${hello.wireVersion}, server ${this.protocol.hash.toString(16)} v${WIRE_VERSION}); client and server must be built from the same defineProtocol.`);
      return;
    }
    if (this.connections.size >= (this.options.maxConnections ?? 256)) return this.refusePeer(peer, 'server full');
    const networkId = this.ids.allocate(this.timeMs);
    if (networkId === undefined) return this.refusePeer(peer, 'server full (no free networkId)');
    this.pending.delete(peer);
    const connection = new Connection<JoinPayload<P>>(networkId, peer, this.rng.nextUint32() || 1);
    this.connections.set(networkId, connection);
    this.byPeer.set(peer, connection);
    this.sendRaw(connection, this.encoder.welcome({ networkId, resumeToken: connection.resumeToken, serverTick: this.currentTick, resumed: false }), 'reliable');
    this.events.emit('connect', connection);
  }

  private onJoinMessage(connection: Connection<JoinPayload<P>>): void {
    const payload = this.protocol.join.read(this.reader) as JoinPayload<P>;
    this.reader.expectEnd();
    if (connection.inGame || connection.joining) return;
    const decide = this.options.onJoin;
    let decision: JoinDecision | Promise<JoinDecision>;
    try {
      decision = decide ? decide(connection, payload) : true;
    } catch (error) {
      this.log('error', `react-netcode: onJoin threw for networkId ${connection.networkId}: ${String(error)}`);
      decision = { reject: 'join failed on the server' };
    }
    if (decision instanceof Promise) {
      connection.joining = true;
      decision.then(
        (d) => this.applyJoin(connection, payload, d),
        (error: unknown) => {
          this.log('error', `react-netcode: onJoin rejected for networkId ${connection.networkId}: ${String(error)}`);
          this.applyJoin(connection, payload, { reject: 'join failed on the server' });
        },
      );
    } else this.applyJoin(connection, payload, decision);
  }

  private applyJoin(connection: Connection<JoinPayload<P>>, payload: JoinPayload<P>, decision: JoinDecision): void {
    connection.joining = false;
    if (connection.state !== 'connected') return;
    if (decision === false || (typeof decision === 'object' && decision !== null)) {
      const reason = typeof decision === 'object' && decision !== null ? decision.reject : 'join refused';
      this.sendRaw(connection, this.encoder.reason(MessageKind.JoinRefused, reason), 'reliable');
      return;
    }
    connection.state = 'in-game';
    connection.joinPayload = payload;
    this.sendRaw(connection, this.encoder.joined(), 'reliable');
    this.events.emit('join', connection);
  }

  private onRpcMessage(connection: Connection<JoinPayload<P>>): void {
    const { entry, payload } = this.rpcs.decode(this.reader);
    if (!connection.inGame) {
      connection.stats.droppedRpcs++;
      return;
    }
    const handlers = this.rpcs.handlersFor(entry);
    if (!handlers) return;
    for (const handler of [...handlers]) {
      try {
        handler(connection, payload as never);
      } catch (error) {
        this.log('error', `react-netcode: handler of RPC "${entry.name}" threw: ${String(error)}`);
      }
    }
  }

  /** Tell the client why, then drop the link after a short linger (so the reason arrives first). */
  private closeConnection(connection: Connection<JoinPayload<P>>, reason: string, notify: boolean): void {
    if (connection.state === 'closed') return;
    if (notify) this.sendRaw(connection, this.encoder.reason(MessageKind.Close, reason), 'reliable');
    connection.state = 'closed';
    connection.closeReason = reason;
    connection.lingerUntil = notify ? this.timeMs + LINGER_MS : 0;
    if (!notify) this.transport.disconnect(connection.peer, reason);
  }

  private readonly refused = new Map<PeerId, number>(); // peer → drop at (ms)

  private refusePeer(peer: PeerId, reason: string): void {
    this.pending.delete(peer);
    this.transport.send(peer, this.encoder.reason(MessageKind.Refuse, reason), 'reliable');
    this.refused.set(peer, this.timeMs + LINGER_MS);
  }

  private expire(): void {
    const timeout = this.options.handshakeTimeoutMs ?? 10_000;
    for (const [peer, since] of this.pending) {
      if (this.timeMs - since >= timeout) {
        this.pending.delete(peer);
        this.transport.disconnect(peer, 'handshake timed out');
      }
    }
    for (const [peer, until] of this.refused) {
      if (this.timeMs >= until) {
        this.refused.delete(peer);
        this.transport.disconnect(peer, 'refused');
      }
    }
    for (const connection of this.connections.values()) {
      if (connection.lingerUntil > 0 && this.timeMs >= connection.lingerUntil) {
        this.transport.disconnect(connection.peer, connection.closeReason ?? 'closed');
      }
    }
  }
}

export function createServer<P extends Protocol>(options: ServerOptions<P>): NetServer<P> {
  return new NetServer(options);
}
