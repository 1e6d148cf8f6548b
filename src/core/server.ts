// The authoritative server engine. Each tick: take what the transport delivered
// (handshake, join, RPCs, acks) → run the systems on the World → send each
// in-game connection its snapshot → expire timeouts. Driven by a fixed-step
// accumulator on an injected monotonic clock (`start()`), or by hand (`tick()`).

import { FixedStepAccumulator } from './clock/accumulator.ts';
import { buildIdentity, type BuildIdentity } from './build-check.ts';
import type { Connection } from './connection.ts';
import { Emitter, consoleLogger, type Listenable, type Logger } from './emitter.ts';
import { asNetcodeError, checkEngineOptions, describeError, HandlerError, NetcodeError } from './errors.ts';
import { LogLimiter } from './log-limit.ts';
import { MessageEncoder } from './messages.ts';
import { ServerOutbox } from './server-outbox.ts';
import type { PeerLimitStats } from './peer-limits.ts';
import type { JoinPayload, Protocol, RpcNames, RpcPayload } from './protocol.ts';
import { Rng } from './rng.ts';
import { RpcRegistry } from './rpc-dispatch.ts';
import { SystemError } from './system.ts';
import { TickTimer, type TickStats } from './stats.ts';
import { BehindWarning, ServerLoop, watchFirstRun } from './server-loop.ts';
import { createStages, type StageHost } from './server-stages.ts';
import type { ServerGhosts } from './server-ghosts.ts';
import type { ServerInbox } from './server-inbox.ts';
import type { ServerInputs } from './input/server-inputs.ts';
import type { ServerMessages } from './server-messages.ts';
import type { Sessions } from './server-sessions.ts';
import type { Tick } from './clock/tick.ts';
import type { Channel, PeerId, ServerTransport, TransportStats } from './transport.ts';
import type { Ghost, GhostNames, GhostValues, SpawnArgs, World } from './world.ts';

export type { JoinDecision } from './server-sessions.ts';
import type { ServerEvents, ServerOptions } from './server-options.ts';
export type { ServerEvents, ServerOptions } from './server-options.ts';

/** Most ticks one loop turn runs while catching up (the rest stays due for the next turns, 1 ms later). */
const CATCH_UP_BURST = 8;

export class NetServer<P extends Protocol> {
  readonly protocol: P;
  /** Connection, tick and error events: listen with `on` (emitting is the engine's, through `emitter`). */
  readonly events: Listenable<ServerEvents<P>>;
  private readonly emitter: Emitter<ServerEvents<P>>;
  private readonly sessions: Sessions<P>;
  private readonly ghosts: ServerGhosts<P>;
  private readonly inbox: ServerInbox;
  private readonly transport: ServerTransport;
  /** Every message to a peer goes through here: batched per tick (one write per channel per peer). */
  private readonly out: ServerOutbox;
  private readonly rpcs: RpcRegistry<(connection: Connection<JoinPayload<P>>, payload: never) => void>;
  private readonly encoder = new MessageEncoder();
  /** The message stage: each queued message decoded and handled by kind (server-messages.ts). */
  private readonly messages: ServerMessages<P>;
  private readonly acc: FixedStepAccumulator;
  private readonly timer = new TickTimer();
  private readonly rng: Rng;
  private readonly log: Logger;
  /** For what peers and app callbacks can trigger at will: a few lines per kind of problem per 10 s. */
  private readonly limitedLog: LogLimiter;
  private readonly worldSeed: number;
  private readonly inputs: ServerInputs<P>;
  /** Shared-systems fingerprint and build id, checked against every Hello (build-check.ts). */
  readonly identity: BuildIdentity;
  private loop: ServerLoop | undefined;
  /** The time the last update(now) was given (the inbox's clock without a scheduler). */
  private lastUpdateAt: number | undefined;
  private readonly behind: BehindWarning;
  private listening = false;
  /** Clears the warning that the server has not begun to run (its first tick() or close()). */
  private readonly ran: () => void;
  /** The tick the next `tick()` simulates. */
  get currentTick(): Tick { return this.nextTick; }
  /** Server time in ms, advanced by one step per tick (deterministic). */
  get timeMs(): number { return this.ms; }
  private nextTick: Tick;
  private ms = 0;

  constructor(private readonly options: ServerOptions<P>) {
    checkEngineOptions(options, 'createServer');
    this.protocol = options.protocol;
    this.transport = options.transport;
    this.out = new ServerOutbox(options.transport);
    this.log = options.log ?? consoleLogger;
    this.ran = watchFirstRun((m) => this.log('warn', m));
    this.limitedLog = new LogLimiter(this.log);
    this.events = this.emitter = new Emitter((e) => this.limitedLog.log('error', 'event listener', `react-netcode: a server event listener threw: ${String(e)}; fix the listener (the other listeners still ran).`, this.timeMs));
    this.rpcs = new RpcRegistry(options.protocol, 'toServer');
    const backlog = options.maxCatchUpTicks ?? 2 * options.protocol.tickRate;
    const burst = Math.min(CATCH_UP_BURST, backlog);
    this.acc = new FixedStepAccumulator({ stepMs: options.protocol.stepMs, maxStepsPerAdvance: burst, maxBacklogSteps: backlog });
    this.behind = new BehindWarning(this.acc, () => this.timer.summary(this.acc.overruns, this.acc.droppedSteps), options.protocol);
    this.rng = new Rng(options.seed ?? 0x5eed);
    this.worldSeed = this.rng.nextUint32();
    this.nextTick = (options.startTick ?? 0) >>> 0;
    this.identity = buildIdentity(options.systems ?? [], options.buildId);
    const stages = createStages(options, this.stageHost(options), this.out);
    ({ inputs: this.inputs, ghosts: this.ghosts, sessions: this.sessions, inbox: this.inbox, messages: this.messages } = stages);
  }

  /** What the stages (server-stages.ts) read and call of this server. */
  private stageHost(options: ServerOptions<P>): StageHost<P> {
    return {
      events: this.emitter, log: this.log, limitedLog: this.limitedLog, encoder: this.encoder, rpcs: this.rpcs,
      transport: this.transport, identity: this.identity, worldSeed: this.worldSeed,
      tokens: options.randomUint32 ? { nextUint32: options.randomUint32 } : this.rng,
      tick: () => this.currentTick, timeMs: () => this.timeMs, fraction: () => this.acc.fraction,
      now: () => this.options.scheduler?.now() ?? this.lastUpdateAt ?? this.timeMs,
      sendRaw: (c, bytes, channel, length) => this.sendRaw(c, bytes, channel, length), report: (e, c) => this.report(e, c),
    };
  }

  /** The authoritative world (read it freely; change it from systems or with spawn/despawn). */
  get world(): World<P> {
    return this.ghosts.world;
  }

  /**
   * Live connections by networkId, in handshake order: connected (not joined yet), in game, and
   * suspended (link dropped, waiting `resumeGraceMs` to resume). Closed ones leave it (the `leave`
   * event). Read-only: change connections with kick, and the app's own data in `connection.data`.
   */
  get connections(): ReadonlyMap<number, Connection<JoinPayload<P>>> {
    return this.sessions.connections;
  }

  /**
   * The connections in game (`connection.inGame`: joined and not suspended), in handshake order: a
   * live view, to iterate (`for (const c of server.connectionsInGame)`) or count (`[...view].length`).
   */
  get connectionsInGame(): Iterable<Connection<JoinPayload<P>>> {
    return this.sessions.inGame;
  }

  /** Peers connected at transport level that have not completed the handshake. */
  get pendingPeers(): number {
    return this.sessions.pendingPeers;
  }

  get stats(): TickStats {
    return this.timer.summary(this.acc.overruns, this.acc.droppedSteps);
  }

  /**
   * Snapshot messages encoded since start. Connections whose acks agree share one encode (players who
   * own ghosts included), so per snapshot tick this is about the number of distinct ack states, not of
   * connections; relevancy (a ghost list per connection) makes each connection encode alone.
   */
  get snapshotEncodes(): number {
    return this.ghosts.encodes;
  }

  /** Start accepting peers (called by `start()`/`tick()`). */
  listen(): this {
    if (this.listening) return this;
    this.listening = true;
    this.transport.listen(this.inbox.handler);
    return this;
  }

  /** Run the fixed-step loop on the scheduler's monotonic clock (server-loop.ts). */
  start(): void {
    const scheduler = this.options.scheduler;
    if (!scheduler) throw new NetcodeError('usage', 'react-netcode: start() needs a scheduler; pass { scheduler: realTimeScheduler } or drive tick()/update(now) yourself.');
    if (this.loop?.running) return;
    this.listen();
    this.acc.reset();
    this.loop ??= new ServerLoop(
      scheduler,
      (now) => this.update(now),
      () => this.acc.msUntilNextStep(),
      (error) => this.report(asNetcodeError(error, 'running the server loop')),
    );
    this.loop.start();
  }

  stop(): void {
    this.loop?.stop();
  }

  /** Ms until the next tick is due on the clock `update(now)` is fed (a room server's shared loop sleeps that long). */
  get msUntilNextTick(): number {
    return this.acc.msUntilNextStep();
  }

  /** Stop the loop, tell every client why, close the transport and emit `leave` for everyone. */
  close(reason = 'server shutting down'): void {
    this.stop();
    this.ran();
    for (const c of [...this.connections.values()]) this.sessions.close(c, reason, true, this.timeMs);
    this.transport.close();
    this.receive();
    for (const c of [...this.connections.values()]) this.sessions.peerDisconnected(c.peer, reason, this.timeMs);
  }

  /**
   * Feed the monotonic time (ms); runs the ticks that are due, at most 8 per call. After a stall
   * the backlog is caught up over the next calls, up to `maxCatchUpTicks` (2 s): the inputs
   * clients sent for those ticks are already queued, so they run as predicted. Time beyond that
   * bound is skipped, not ticks — tick numbers stay contiguous, inputs received for coming ticks
   * stay queued and run when their tick comes — and clients see the server's clock step back and
   * resync. With `start()`, a pending backlog brings the next loop turn 1 ms later.
   */
  update(now: number): number {
    this.lastUpdateAt = now;
    const steps = this.acc.advance(now);
    for (let i = 0; i < steps; i++) this.tick();
    const warning = this.behind.check(now, this.loop?.startedAt);
    if (warning !== undefined) this.log('warn', warning);
    return steps;
  }

  /**
   * Simulate exactly one tick: receive, simulate, send snapshots, expire. What the tick sends
   * to a peer (Pongs, snapshot, RPCs) leaves at its end in one write per channel.
   */
  tick(): void {
    const clock = this.options.scheduler;
    const started = clock ? clock.now() : 0;
    this.ran();
    this.listen();
    this.out.begin();
    // Every stage is contained: whatever one raises is reported (`error` event) and the tick
    // goes on and advances. Per-connection work is contained finer inside each stage.
    try {
      this.receive();
    } catch (error) {
      this.report(asNetcodeError(error, `receiving at tick ${this.currentTick}`));
    }
    try {
      this.ghosts.simulate(this.currentTick); // a throwing system is skipped for this tick and reported (onError)
    } catch (error) {
      this.report(asNetcodeError(error, `simulating tick ${this.currentTick}`));
    }
    try {
      if (this.ghosts.isSnapshotTick()) this.sendSnapshots();
    } catch (error) {
      this.report(asNetcodeError(error, `sending the snapshots of tick ${this.currentTick}`));
    }
    try {
      this.sessions.expire(this.timeMs);
      if (this.currentTick % this.protocol.tickRate === 0) {
        this.checkInputHealth();
        this.limitedLog.flush(this.timeMs);
      }
    } catch (error) {
      this.report(asNetcodeError(error, `expiring connections at tick ${this.currentTick}`));
    }
    this.emitter.emit('tick', this.currentTick);
    try {
      this.out.end();
    } catch (error) {
      this.report(asNetcodeError(error, `writing the messages of tick ${this.currentTick}`));
    }
    this.nextTick = (this.nextTick + 1) >>> 0;
    this.ghosts.currentTick = this.nextTick;
    this.ms += this.protocol.stepMs;
    this.timer.record(clock ? clock.now() - started : 0);
  }

  /** Input statistics of one connection (received, late, missing, repeated, clamped …). */
  inputStats(connection: Connection<JoinPayload<P>>) {
    return this.inputs.stats(connection.networkId);
  }

  /**
   * Where a connection showed interpolated ghosts when it sampled its input for `tick` (default: the
   * tick being simulated — what `ctx.interpolationView` gives a system); before any input, the view its
   * newest packet carried. Lag compensation rewinds to this.
   */
  interpolationViewOf(c: Connection<JoinPayload<P>>, tick: Tick = this.currentTick): { tick: Tick; fraction: number } {
    return this.inputs.viewAt(c.networkId, tick) ?? { tick: c.interpolationTick, fraction: c.interpolationFraction };
  }

  /**
   * What the transport dropped for one connection (socket.io: unreliable messages under backpressure);
   * undefined when it keeps no stats.
   */
  transportStats(connection: Connection<JoinPayload<P>>): TransportStats | undefined {
    return this.transport.peerStats?.(connection.peer);
  }

  /** How early one connection's inputs arrived: bucket i counts inputs stored i ticks before their tick ran. */
  inputArrivals(connection: Connection<JoinPayload<P>>): Readonly<Uint32Array> | undefined {
    return this.inputs.arrivals(connection.networkId);
  }

  /** Once a second: warn (at most once per 5 s per connection) about inputs that go missing. */
  private checkInputHealth(): void {
    const ticksPerWindow = this.protocol.tickRate * 5;
    // Through the limiter: one line per connection per 5 s is many lines with many connections (a host that opens
    // hundreds that send no input); at most LOG_LIMIT_PER_WINDOW every 10 s, then a count of the rest.
    this.inputs.checkHealth(this.timeMs, ticksPerWindow, (m) => this.limitedLog.log('warn', 'missing inputs', m, this.timeMs), (id) => {
      const c = this.connections.get(id);
      return c && c.inGame ? `networkId ${id} (peer ${c.peer})` : `networkId ${id}`;
    });
  }

  /**
   * Spawn a ghost outside systems, e.g. a player's character in the `join` event. `init` must give
   * every field declared `required: true` (a spawn without one throws a usage error); the rest default.
   */
  spawn<K extends GhostNames<P>>(type: K, ...args: SpawnArgs<P, K, { owner?: number }>): Ghost<P, K> {
    return this.ghosts.spawn(type, args[0] as Partial<GhostValues<P, K>> | undefined, args[1]);
  }

  /** Destroy a ghost outside systems. */
  despawn(ghost: Ghost<P>): void {
    this.ghosts.despawn(ghost);
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

  /** Close one connection with a reason the client will see (no resume). */
  kick(connection: Connection<JoinPayload<P>>, reason: string): void {
    this.sessions.close(connection, reason, true, this.timeMs);
  }

  /**
   * A contained failure: the `error` event (with the connection it concerns, if any) and a
   * rate-limited log line. SystemErrors and HandlerErrors come from app code; 'internal' ones
   * from react-netcode itself.
   */
  private report(error: NetcodeError, connection?: Connection<JoinPayload<P>>): void {
    const key = error instanceof HandlerError ? error.handler : error instanceof SystemError ? `system "${error.system}"` : error.code;
    this.limitedLog.log('error', key, connection ? `${error.message} (networkId ${connection.networkId})` : error.message, this.timeMs);
    this.emitter.emit('error', error, connection);
  }

  private sendRaw(connection: Connection<JoinPayload<P>>, bytes: Uint8Array, channel: Channel, length = bytes.byteLength): void {
    if (connection.state === 'closed' || connection.state === 'suspended') return;
    connection.stats.messagesOut++;
    connection.stats.bytesOut += length;
    this.out.send(connection.peer, bytes, channel, length);
  }

  private sendSnapshots(): void {
    const tick = this.currentTick;
    if (!this.ghosts.beginSnapshots(tick)) return;
    for (const connection of this.connections.values()) {
      if (!connection.inGame) continue;
      // Contained per connection (ServerGhosts reports through onError and recovers).
      const bytes = this.ghosts.snapshotFor(connection, tick);
      // The encoder reuses its buffer: the outbox copies it.
      if (bytes) this.sendRaw(connection, bytes, 'unreliable');
    }
  }

  private receive(): void {
    // Handlers may queue more events (e.g. a kick disconnecting a peer): take a fixed batch.
    const batch = this.inbox.take();
    for (const event of batch) {
      try {
        if (event.kind === 'connect') this.sessions.peerConnected(event.peer, this.timeMs);
        else if (event.kind === 'disconnect') {
          this.out.forget(event.peer);
          this.inbox.limits.forget(event.peer);
          this.sessions.peerDisconnected(event.peer, event.reason, this.timeMs);
        } else if (event.kind === 'limit') this.closeFlooder(event.peer);
        else if (event.kind === 'violation') this.sessions.violated(event.peer, event.reason, this.timeMs);
        else this.messages.onMessage(event.peer, event.data, event.channel);
      } catch (error) {
        this.report(asNetcodeError(error, `handling a ${event.kind} event of peer ${event.peer}`));
      }
    }
  }

  /** A peer stayed over its message or byte rate past the grace: close it, saying why. */
  private closeFlooder(peer: PeerId): void {
    const o = this.inbox.limits.options;
    const reason = `react-netcode: closed for sending more than ${o.messagesPerSecond} messages or ${o.bytesPerSecond} bytes a second for ${o.persistMs} ms (maxMessagesPerSecond / maxBytesPerSecond).`;
    const connection = this.sessions.byPeer.get(peer);
    this.limitedLog.log('warn', 'rate limit', `react-netcode: ${describeError(reason)} (peer ${peer}${connection ? `, networkId ${connection.networkId}` : ''})`, this.timeMs);
    if (connection) this.sessions.close(connection, reason, true, this.timeMs);
    else this.sessions.refuse(peer, reason, this.timeMs);
  }

  /** What the per-peer limits dropped, for one connection's current link (undefined once it is gone). */
  limitStats(connection: Connection<JoinPayload<P>>): PeerLimitStats | undefined {
    return this.inbox.limits.stats(connection.peer);
  }

  /** Totals of the per-peer limits: messages and bytes dropped, peers refused at connect or turned away, peers closed for flooding. */
  get limitTotals(): Readonly<{ droppedMessages: number; droppedBytes: number; refusedPeers: number; closedPeers: number }> {
    return this.inbox.limits.totals;
  }
}
