// The client engine: opens the transport, says Hello with the protocol hash,
// receives its networkId, joins (GoInGame), exchanges typed RPCs, applies
// snapshots to its World (acking each), interpolates remote ghosts, and resumes
// a dropped connection within the grace period. Driven by `update(now)` per frame.

import { BitReader, BitWriter } from './bits.ts';
import { buildIdentity, buildMismatch, type BuildIdentity } from './build-check.ts';
import { ClientGhosts } from './client-ghosts.ts';
import { ClientInput } from './input/client-input.ts';
import type { ClientEvents, ClientOptions, ClientState, ClientStatus } from './client-options.ts';
import { ClockSync } from './clock/index.ts';
import { CorrectionLog } from './corrections.ts';
import { Emitter, consoleLogger, type Logger } from './emitter.ts';
import { installDebugHandle } from './debug-handle.ts';
import { asNetcodeError, checkEngineOptions, describeError, NetcodeError } from './errors.ts';
import { InputReports, type InputBuffer } from './input/index.ts';
import { LogLimiter } from './log-limit.ts';
import { MessageEncoder, readKind, readPong, readReason, readWelcome, type Pong } from './messages.ts';
import { ModeSwitcher, type PredictionSwitchingOptions } from './smoothing/mode-switcher.ts';
import { payloadProblem } from './payload.ts';
import { createNetworkTime, updateNetworkTime, type NetworkTime } from './clock/network-time.ts';
import { PredictedSpawns } from './predicted-spawns.ts';
import { ClientPrediction, type PredictionOptions } from './prediction.ts';
import type { InputSchema, InputValues, JoinPayload, Protocol, RpcNames, RpcPayload } from './protocol.ts';
import { Reconnector } from './reconnect.ts';
import { RpcRegistry } from './rpc-dispatch.ts';
import type { Schema, Values } from './schema.ts';
import { forEachMessage, Outbox } from './outbox.ts';
import { encodeAck } from './snapshot/index.ts';
import { tickAdd, tickDiff, type Tick } from './clock/tick.ts';
import type { Channel, ClientTransport, TransportStats } from './transport.ts';
import type { Ghost, World } from './world.ts';
import { MAX_MESSAGE_BYTES, MessageKind, WIRE_VERSION } from './wire.ts';

export type { ClientEvents, ClientOptions, ClientState, ClientStatus } from './client-options.ts';

/** What the transport reported, in order; `at` is the arrival time on the client's clock (NaN: unknown). */
type Inbound = { kind: 'open' } | { kind: 'message'; data: Uint8Array; channel: Channel; at: number } | { kind: 'close'; reason: string };

export class NetClient<P extends Protocol> {
  readonly protocol: P;
  readonly events: Emitter<ClientEvents>;
  /** The replicated world, snapshots and interpolation. */
  readonly ghosts: ClientGhosts<P>;
  private readonly transport: ClientTransport;
  private readonly encoder = new MessageEncoder();
  /** What a frame sends, written in one transport write per channel at the end of its send stage. */
  private readonly out = new Outbox();
  /** Inside update(): sends are queued in `out`; outside, written at once. */
  private framing = false;
  /** A snapshot arrived this frame and no Input packet carried its ack yet. */
  private ackDue = false;
  /** Arrival time (client clock) of the message being handled. */
  private receivedAt = 0;
  private readonly reader = new BitReader();
  private readonly ackWriter = new BitWriter(16);
  private readonly rpcs: RpcRegistry<(payload: never) => void>;
  private readonly log: Logger;
  private readonly limitedLog: LogLimiter;
  private inbox: Inbound[] = [];
  private generation = 0;
  private current: ClientState = { status: 'idle', networkId: undefined, closeReason: undefined, joinError: undefined, resumeFailed: false };
  private now = 0;
  private readonly reconnect: Reconnector;
  private statusBeforeDrop: ClientStatus = 'idle';
  /** Server tick announced in the Welcome (clock sync refines it). */
  welcomeTick = 0;
  /** Seed of the world's ctx.rng, from the Welcome. */
  worldSeed = 0;
  private resumeToken = 0;
  /** Shared-systems fingerprint and build id, sent in the Hello and checked against the Welcome (build-check.ts). */
  readonly identity: BuildIdentity;
  /** The local input: write `input.current` (or use `onInput`), count presses with `input.press('jump')`. */
  readonly input: InputBuffer<InputSchema<P>>;
  private readonly inputs: ClientInput<P>;
  /** The server's reports on our inputs (late / missing), from every Pong. */
  readonly inputReports = new InputReports();
  /** Every correction of a predicted ghost's shown transform, with its cause. */
  readonly corrections: CorrectionLog;
  private readonly clockJumps: { from: Tick; to: Tick }[] = [];
  private readonly delayChanges: Tick[] = [];
  private seenJumps = 0;
  /** The last frame that came more than STALL_MS after the one before (client clock). */
  private lastStallAt = -Infinity;
  private seenDelay = 0;
  /** NetworkTime's clocks: serverTick, predictedTick, RTT, jitter, slack. */
  readonly clock: ClockSync;
  /**
   * Prediction and rollback; undefined when disabled (`prediction: false`). `createClient` types it
   * non-optional when prediction is on (PredictingClient); code holding any NetClient can call
   * `requirePrediction()`.
   */
  readonly prediction: ClientPrediction<P> | undefined;
  /** Predicted spawns awaiting their server twins; classifiers per type. */
  readonly spawns: PredictedSpawns<P>;
  private readonly pong: Pong = { echoMs: 0, serverTick: 0, serverFraction: 0, inputMarginTicks: 0, inputsLate: 0, inputsMissing: 0 };
  private lastPingAt = -Infinity;
  private lastFrameAt: number | undefined;
  private paused = false;
  private marginHoldUntil = 0;
  /** Prediction switching (by hand with setGhostMode, or by distance with setPredictionSwitching). */
  private readonly switcher: ModeSwitcher<P>;
  /** NetworkTime for this frame (updated in place). */
  readonly time: NetworkTime = createNetworkTime();

  constructor(private readonly options: ClientOptions<P>) {
    checkEngineOptions(options, 'createClient');
    this.protocol = options.protocol;
    this.transport = options.transport;
    this.log = options.log ?? consoleLogger;
    this.identity = buildIdentity(options.systems, options.buildId);
    const onListenerError = (e: unknown) => this.log('error', `react-netcode: a client event listener threw: ${String(e)}; fix the listener (the other listeners still ran).`);
    this.events = new Emitter(onListenerError);
    this.ghosts = new ClientGhosts(options.protocol, options, onListenerError, options.systems ?? []);
    this.limitedLog = new LogLimiter(this.log);
    // A throwing system is skipped for that run, reported, and the frame goes on.
    this.ghosts.onSystemError = (e) => {
      this.limitedLog.log('error', e.system, e.message, this.now);
      this.events.emit('error', e);
    };
    this.rpcs = new RpcRegistry(options.protocol, 'toClient');
    this.reconnect = new Reconnector(options);
    const send = (bytes: Uint8Array, channel: Channel): void => this.sendRaw(bytes, channel);
    this.inputs = new ClientInput(options.protocol, this.ghosts, send, options.inputsPerPacket, options.maxInputRepeatTicks);
    this.input = this.inputs.buffer;
    this.clock = new ClockSync({ ...options.clock, tickRate: options.protocol.tickRate });
    this.prediction = options.prediction === false ? undefined : new ClientPrediction(this.ghosts, this.ghosts.systems, options.prediction ?? {}, (m) => this.log('info', m));
    this.ghosts.inputProvider = (ghost, tick) => this.inputs.inputFor(ghost as Ghost, tick, this.current.networkId);
    this.ghosts.rawInputProvider = (ghost, tick) =>
      ghost.owner === this.current.networkId ? (this.input.get(tick) as Record<string, unknown> | undefined) : undefined;
    const prediction = this.prediction;
    this.corrections = new CorrectionLog(
      {
        reports: this.inputReports,
        get lastSkip() {
          return prediction?.lastSkip;
        },
        clockJumps: this.clockJumps,
        delayChanges: this.delayChanges,
      },
      (c) => {
        this.log('info', `react-netcode: corrected ${c.type}#${c.ghostId} by ${(c.distance * 1000).toFixed(1)} mm at tick ${c.tick}: ${c.cause} (${c.detail})`);
        this.events.emit('correction', c);
      },
    );
    prediction?.events.on('correction', (r) => this.corrections.add(r, this.now));
    this.spawns = new PredictedSpawns(this.ghosts, options.spawning ?? {}, onListenerError);
    this.spawns.attach(this.prediction, () => this.current.networkId ?? 0);
    const shown = (ghost: Ghost): Values<Schema> => this.view(ghost as Ghost<P>, false) as Values<Schema>;
    this.switcher = new ModeSwitcher(this.ghosts, shown, () => this.prediction?.invalidate());
    this.removeDebugHandle = installDebugHandle(this, options.debugHandle);
  }

  /** Take the `debugHandle` off globalThis (if it is still this client's); the React provider does on unmount. */
  readonly removeDebugHandle: () => void;

  /** The prediction handle; throws a usage error when this client was created with `prediction: false`. */
  requirePrediction(): ClientPrediction<P> {
    if (this.prediction === undefined) {
      throw new NetcodeError('usage', 'react-netcode: this client has no prediction (it was created with prediction: false); leave the option out to predict, or check client.prediction for undefined.');
    }
    return this.prediction;
  }

  /** Switch a ghost between predicted and interpolated, blending what is shown over the transition. */
  setGhostMode(ghost: Ghost<P>, mode: 'predicted' | 'interpolated'): boolean {
    return this.switcher.setMode(ghost as Ghost, mode, this.now);
  }

  /** Predict ghosts within `radius` of `center()` and interpolate them beyond `radius + margin` (undefined turns it off). */
  setPredictionSwitching(options: PredictionSwitchingOptions | undefined): void {
    this.switcher.configure(options);
  }

  /**
   * The page was hidden or the app paused (`true`), or is back (`false`). While paused the
   * client sends neutral inputs (nothing held down keeps running); on return the clock resyncs.
   */
  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.paused = paused;
    if (paused) {
      this.inputs.pause(this.current.status === 'in-game' ? this.prediction?.lastTick : undefined);
    } else {
      this.clock.resync();
      this.marginHoldUntil = this.now + 2 * this.clock.rttMs + 250;
      this.prediction?.skipAhead();
      this.lastFrameAt = undefined;
    }
  }

  get isPaused(): boolean {
    return this.paused;
  }

  get state(): Readonly<ClientState> {
    return this.current;
  }

  get status(): ClientStatus {
    return this.current.status;
  }

  get networkId(): number | undefined {
    return this.current.networkId;
  }

  get world(): World<P> {
    return this.ghosts.world;
  }

  /** Open the connection and start the handshake. Allowed when idle or closed. */
  connect(): void {
    if (this.current.status !== 'idle' && this.current.status !== 'closed') {
      throw new NetcodeError('usage', `react-netcode: connect() called while ${this.current.status}; call leave() first.`);
    }
    this.resumeToken = 0;
    this.setState({ status: 'connecting', networkId: undefined, closeReason: undefined, joinError: undefined, resumeFailed: false });
    this.open();
  }

  /**
   * Ask to join the game with the protocol's join payload (GoInGame). Resolves via status: 'in-game', or
   * back to 'connected' with `joinError`.
   */
  join(payload: JoinPayload<P>): void {
    if (this.current.status !== 'connected') {
      const why = this.current.status === 'joining' ? 'a join is already pending: wait for its answer (status in-game, or joinError)' : this.current.status === 'in-game' ? 'you are already in game' : 'wait for the handshake (status connected)';
      throw new NetcodeError('usage', `react-netcode: join() needs status 'connected' (it is '${this.current.status}'): ${why}.`);
    }
    const problem = payloadProblem(this.protocol.join, payload);
    if (problem !== null) throw new NetcodeError('usage', `react-netcode: join payload is invalid: ${problem}; pass a payload that fits the protocol's join fields.`);
    const w = this.encoder.custom(MessageKind.Join);
    this.protocol.join.write(w, payload as never);
    this.sendRaw(w.toBytes(), 'reliable');
    this.setState({ ...this.current, status: 'joining', joinError: undefined, resumeFailed: false });
  }

  /** Close the connection on purpose (no resume); the server sees `reason`. */
  leave(reason = 'client left'): void {
    const status = this.current.status;
    if (status === 'idle' || status === 'closed') return;
    if (status !== 'reconnecting') this.sendRaw(this.encoder.reason(MessageKind.Close, reason), 'reliable');
    this.flush(); // leave() may run inside update (from a listener): the Close goes out before the link closes
    this.finish(reason);
    this.transport.close(reason);
  }

  /** Send RPC `name` to the server (in game only). */
  send<K extends RpcNames<P, 'toServer'>>(name: K, payload: RpcPayload<P, K>): void {
    if (this.current.status !== 'in-game') {
      throw new NetcodeError('usage', `react-netcode: RPC "${name}" can only be sent in game (status is '${this.current.status}'); join first.`);
    }
    this.sendRaw(this.rpcs.encode(this.encoder, name, 'toServer', payload), 'reliable');
  }

  /** Handle RPC `name` from the server; returns the unsubscribe function. */
  onRpc<K extends RpcNames<P, 'toClient'>>(name: K, handler: (payload: RpcPayload<P, K>) => void): () => void {
    return this.rpcs.on(name, handler as (payload: never) => void);
  }

  /**
   * One client frame at monotonic time `now` (ms), in stages (docs/architecture.md, "The client frame"):
   * 1. receive   — everything the transport delivered since the last frame, in order, each message
   *                timestamped at its arrival (`options.now`); snapshots are decoded into the world.
   * 2. clock     — ClockSync moves predictedTick towards serverTick + one-way trip + slack.
   * 3. input     — for each tick to predict, the app samples its input (`onInput`), which is committed.
   * 4. predict   — roll back to a new snapshot and resimulate, then simulate the new ticks once.
   * 5. send      — the frame's one Input packet (its ticks + redundancy + the snapshot ack, or a bare
   *                ack when no tick was predicted) and a Ping when due: one transport write.
   * 6. interpolate — the interpolation timeline moves; remote ghosts sample their confirmed history;
   *                presentation systems run.
   * 7. classify  — predicted spawns whose twin never came are rejected (matching happens in 1).
   * 8. present   — predicted ghosts are frame-interpolated and corrections decay; NetworkTime is updated.
   */
  update(now: number): void {
    this.now = now;
    this.framing = true;
    try {
      this.receiveStage(now);
      if (this.current.status === 'reconnecting') this.retry();
      if (this.current.status !== 'in-game') return;
      // A clock that steps back renders as a zero-length frame.
      const dt = this.lastFrameAt === undefined ? 0 : Math.max(0, now - this.lastFrameAt);
      if (dt > STALL_MS) this.lastStallAt = now;
      this.clock.observeFrame(dt);
      this.lastFrameAt = now;
      this.clock.update(now);
      this.noteClockChanges();
      const predicting = this.prediction !== undefined && this.clock.synced && !this.paused;
      if (predicting) this.predictStage();
      this.sendStage(now);
      this.corrections.resolve(now);
      this.ghosts.frame(now, predicting);
      const p = this.prediction;
      const timeline = this.ghosts.timeline;
      if (p?.lastTick !== undefined) this.spawns.expire(timeline.tick, timeline.newestSnapshotTick, p.lastTick, p.maxRollback);
      if (predicting) this.prediction!.render(this.clock.predictedFraction, dt);
      this.switcher.update(now);
      updateNetworkTime(this.time, this.clock, this.ghosts.timeline, this.prediction?.lastTick, this.prediction?.resimulating ?? false);
    } finally {
      this.framing = false;
      this.flush(); // anything queued after the send stage (an RPC from a presentation system, a Hello)
    }
  }

  /** Stage 1: handle what arrived since the last frame, in order. */
  private receiveStage(now: number): void {
    const batch = this.inbox;
    this.inbox = [];
    for (const event of batch) {
      if (this.current.status === 'closed') break;
      if (event.kind === 'open') {
        const { systemsHash, buildId } = this.identity;
        const resumeId = this.resumeToken ? (this.current.networkId ?? 0) : 0;
        this.sendRaw(this.encoder.hello({ protocolHash: this.protocol.hash, wireVersion: WIRE_VERSION, resumeToken: this.resumeToken, resumeId, systemsHash, buildId }), 'reliable');
      } else if (event.kind === 'close') this.dropped(event.reason);
      else {
        // Arrival time: from the transport callback when the app gave a clock; never after this frame.
        this.receivedAt = event.at <= now ? event.at : now;
        this.onMessage(event.data);
      }
    }
  }

  /** Remember where the prediction clock jumped or the input delay changed (causes of corrections). */
  private noteClockChanges(): void {
    const c = this.clock;
    if (c.jumps !== this.seenJumps) {
      this.seenJumps = c.jumps;
      const after = c.predictedTick;
      const before = tickAdd(after, -Math.round(c.lastJumpTicks));
      remember(this.clockJumps, tickDiff(after, before) >= 0 ? { from: before, to: after } : { from: after, to: before });
    }
    if (c.inputDelayTicks !== this.seenDelay) {
      this.seenDelay = c.inputDelayTicks;
      remember(this.delayChanges, c.predictedTick);
    }
  }

  /** Stages 3 and 4: commit the input of every tick to predict, roll back and simulate. */
  private predictStage(): void {
    const c = this.clock;
    // Inputs for ticks the server will have simulated before they can arrive are not committed
    // (only after a stall or a clock jump): the server runs those ticks without our input and the
    // prediction mirrors what it does; presses go into the first input that arrives in time.
    this.onTimeTick = tickAdd(Math.floor(c.serverTick) >>> 0, Math.ceil(c.rttMs / 2 / c.stepMs) + 1);
    this.prediction!.advance(c.predictedTick, this.beforeTick, undefined, this.input.newestTick);
  }

  /** The oldest tick whose input can still reach the server in time (this frame). */
  private onTimeTick: Tick = 0;

  /**
   * Before predicting `tick`: sample and commit the input of tick + inputDelayTicks. Beyond the
   * prediction cap latency becomes input delay: what is sampled now is the input of a later tick,
   * so it still reaches the server in time. Input ticks stay contiguous when the delay changes:
   * a rise commits the same input for the ticks it would skip (from onTimeTick and the predicted tick
   * on); after a fall, ticks already committed (and sent) are never committed again.
   */
  private readonly beforeTick = (tick: Tick): void => {
    const inputTick = tickAdd(tick, this.clock.inputDelayTicks);
    if (tickDiff(inputTick, this.onTimeTick) < 0) return; // it would arrive late: the server runs it without input
    const newest = this.input.newestTick;
    if (newest !== undefined && tickDiff(inputTick, newest) <= 0) return; // already committed
    // Fill from the tick after the newest committed (an input-delay rise), but never below onTimeTick
    // (older would arrive late) nor below the tick being predicted (older ticks are not predicted for the
    // first time any more: a press in them would never be simulated locally).
    let first = newest === undefined ? inputTick : tickAdd(newest, 1);
    if (tickDiff(this.onTimeTick, first) > 0) first = this.onTimeTick;
    if (tickDiff(tick, first) > 0) first = tick;
    this.options.onInput?.(this.input.current as unknown as InputValues<P>, inputTick);
    for (let t = first; tickDiff(inputTick, t) >= 0; t = tickAdd(t, 1)) this.inputs.commit(t);
  };

  /** Stage 5: the frame's Input (with the ack) or a bare ack, and a Ping when due, in one write. */
  private sendStage(now: number): void {
    if (this.inputs.committedThisFrame) {
      this.inputs.sendFrame();
      this.ackDue = false;
    } else if (this.ackDue) {
      const w = this.ackWriter;
      w.reset();
      w.writeBits(MessageKind.SnapshotAck, 8);
      encodeAck(w, this.ghosts.ackTick, this.ghosts.ackMask);
      this.sendRaw(w.toBytes(), 'unreliable');
      this.ackDue = false;
    }
    if (now - this.lastPingAt >= (this.options.pingIntervalMs ?? 100)) {
      this.lastPingAt = now;
      // Stamped as late as possible: the time this write leaves, not the start of the frame.
      const stamp = this.options.now?.() ?? now;
      this.sendRaw(this.encoder.ping(stamp >= now ? stamp : now), 'unreliable');
    }
    this.flush();
  }

  /**
   * The values to render for a ghost this frame: predicted ghosts frame-interpolated with
   * their VisualCorrection, interpolated ones on the timeline, and while a ghost switches
   * mode, the blend between the two. Never the simulation state itself for predicted ghosts.
   * Typed from the ghost's type: `client.view(ball).position` is a `Vec3`. Read it in this frame.
   */
  view<G extends Ghost<P>>(ghost: G, blended = true): Readonly<G['components']> {
    const g = ghost as Ghost;
    const v = (blended ? this.switcher.view(g) : undefined) ?? (g.mode === 'predicted' ? this.prediction?.view(g) : undefined) ?? g.components;
    return v as Readonly<G['components']>;
  }

  private open(): void {
    const generation = ++this.generation;
    this.inbox = [];
    this.out.clear();
    this.transport.connect({
      onOpen: () => generation === this.generation && this.inbox.push({ kind: 'open' }),
      onMessage: (data, channel) => generation === this.generation && this.inbox.push({ kind: 'message', data, channel, at: this.options.now?.() ?? Number.NaN }),
      onClose: (reason) => generation === this.generation && this.inbox.push({ kind: 'close', reason }),
    });
  }

  /** The link closed without a Close/Refuse from the server: try to resume, else give up. */
  private dropped(reason: string): void {
    const status = this.current.status;
    if (status === 'reconnecting') {
      this.reconnect.scheduleNext(this.now);
      this.generation++; // ignore anything more from the dead link until the next attempt opens
      return;
    }
    const resumable = this.resumeToken !== 0 && (status === 'connected' || status === 'joining' || status === 'in-game');
    if (!resumable || !this.reconnect.enabled) {
      this.finish(reason);
      return;
    }
    this.statusBeforeDrop = status === 'joining' ? 'connected' : status;
    this.generation++;
    this.reconnect.start(this.now);
    this.setState({ ...this.current, status: 'reconnecting', closeReason: reason });
  }

  private retry(): void {
    const next = this.reconnect.poll(this.now);
    if (next === 'expired') {
      const reason = `react-netcode: connection lost: could not resume within ${this.reconnect.graceMs} ms (${this.current.closeReason ?? 'link closed'}); call connect() to start a new session.`;
      this.finish(reason);
      this.transport.close(reason); // an attempt still under way (a transport retrying to open) stops here
    } else if (next === 'attempt') this.open();
  }

  /**
   * Traffic counters since creation: bytes and messages each way (a Batch's parts counted one by one),
   * transport writes made, and snapshots received.
   */
  readonly traffic = { bytesIn: 0, bytesOut: 0, messagesIn: 0, messagesOut: 0, writesOut: 0, snapshotsIn: 0 };

  /** The transport's own counters (which path carries the unreliable channel, what it dropped), when it keeps them. */
  get transportStats(): TransportStats | undefined {
    return this.transport.stats;
  }

  /** Queue a message (inside update) or write it at once (outside): at most one write per channel per frame. */
  private sendRaw(bytes: Uint8Array, channel: Channel): void {
    this.traffic.bytesOut += bytes.byteLength;
    this.traffic.messagesOut++;
    this.out.push(bytes, channel);
    if (!this.framing) this.flush();
  }

  private readonly write = (bytes: Uint8Array, channel: Channel): void => {
    this.traffic.writesOut++;
    this.transport.send(bytes, channel);
  };

  private flush(): void {
    if (this.out.size > 0) this.out.flush(this.write);
  }

  /** One transport message: a lone message or a Batch, whose parts are handled in order. */
  private onMessage(data: Uint8Array): void {
    try {
      if (data.byteLength > MAX_MESSAGE_BYTES) throw new NetcodeError('wire/too-large', `react-netcode: message of ${data.byteLength} bytes exceeds ${MAX_MESSAGE_BYTES}.`);
      forEachMessage(data, this.onPart);
    } catch (thrown) {
      const error = asNetcodeError(thrown, 'handling a message from the server');
      if (this.current.status === 'closed') return;
      const reason = `react-netcode: protocol error from server: ${error.message.replace(/^react-netcode: /, '')}`;
      this.log('error', reason);
      this.finish(reason);
      this.transport.close(reason);
    }
  }

  private readonly onPart = (data: Uint8Array): void => this.handle(data);

  /** One message (throws NetcodeError when it is malformed: the caller closes the connection). */
  private handle(data: Uint8Array): void {
    if (this.current.status === 'closed') return;
    this.traffic.bytesIn += data.byteLength;
    this.traffic.messagesIn++;
    const kind = readKind(this.reader, data);
    switch (kind) {
      case MessageKind.Snapshot:
        this.onSnapshot(data);
        return;
      case MessageKind.Pong: {
        const pong = readPong(this.reader, this.pong);
        // The echo is the low 32 bits of our ms clock: rebuild the full send time.
        const at = this.receivedAt;
        const sentAt = at - ((Math.round(at) - pong.echoMs) >>> 0);
        this.clock.onPong(sentAt, at, pong.serverTick, pong.serverFraction);
        const missingBefore = this.inputReports.missing;
        this.inputReports.onPong(pong.inputsLate, pong.inputsMissing, pong.serverTick);
        // The server reports on our inputs (margin, missing ticks): stale while paused and until
        // inputs sent after the resume have made a round trip.
        if (!this.paused && this.now >= this.marginHoldUntil) {
          this.clock.onInputMargin(pong.inputMarginTicks);
          // Inputs the server missed because this client stalled are not packet loss: no extra slack.
          if (at - this.lastStallAt > 2 * this.clock.rttMs + 500) this.clock.onInputsMissing(this.inputReports.missing - missingBefore, at);
        }
        return;
      }
      case MessageKind.Welcome:
        this.onWelcome();
        return;
      case MessageKind.Joined:
        this.reader.expectEnd();
        this.setState({ ...this.current, status: 'in-game' });
        return;
      case MessageKind.JoinRefused:
        this.setState({ ...this.current, status: 'connected', joinError: readReason(this.reader) });
        return;
      case MessageKind.Refuse:
      case MessageKind.Close: {
        const reason = readReason(this.reader);
        if (kind === MessageKind.Refuse) this.log('error', reason.startsWith('react-netcode:') ? reason : `react-netcode: the server refused this client: ${reason}`);
        this.finish(reason);
        this.transport.close(reason);
        return;
      }
      case MessageKind.Rpc:
        this.dispatchRpc();
        return;
      case MessageKind.Signal:
        return; // a transport's own signalling, never the engine's
      default:
        throw new NetcodeError('wire/unknown-message', `react-netcode: unknown message kind ${kind}.`);
    }
  }

  private onWelcome(): void {
    const welcome = readWelcome(this.reader);
    const mismatch = buildMismatch('client', this.identity, welcome);
    if (mismatch !== null) {
      // The server let us in (an older server, or one that does not check): refuse it from this side.
      const line = `${mismatch} This client's ${this.identity.systems}.`; // mismatch starts with 'react-netcode:'
      this.log('error', line);
      this.sendRaw(this.encoder.reason(MessageKind.Close, mismatch), 'reliable');
      this.flush();
      this.finish(mismatch);
      this.transport.close(mismatch);
      return;
    }
    const reconnecting = this.current.status === 'reconnecting';
    this.welcomeTick = welcome.serverTick;
    this.worldSeed = welcome.worldSeed;
    this.resumeToken = welcome.resumeToken;
    this.ghosts.begin(welcome.networkId, welcome.resumed, this.now, welcome.worldSeed);
    if (!welcome.resumed) {
      this.spawns.clear();
      this.inputs.reset();
      this.inputReports.reset();
      this.corrections.clear();
      this.clockJumps.length = this.delayChanges.length = 0;
      this.prediction?.reset();
      this.switcher.clear();
    }
    this.clock.resync();
    if (reconnecting && welcome.resumed) {
      this.setState({ ...this.current, status: this.statusBeforeDrop, networkId: welcome.networkId, closeReason: undefined });
    } else {
      this.setState({ ...this.current, status: 'connected', networkId: welcome.networkId, closeReason: undefined, resumeFailed: reconnecting });
    }
  }

  /** Snapshots are unreliable: a malformed one is dropped (not acked) and reported, the connection stays. */
  private onSnapshot(data: Uint8Array): void {
    if (this.current.status !== 'in-game') return;
    this.traffic.snapshotsIn++;
    try {
      const snap = this.ghosts.applySnapshot(data, this.receivedAt);
      if (!snap) return;
      this.inputs.onReplicated(snap.inputs);
    } catch (thrown) {
      const error = asNetcodeError(thrown, 'decoding a snapshot');
      this.ghosts.rejectedSnapshots++;
      this.log('warn', `react-netcode: dropped a malformed snapshot: ${describeError(error)}`);
      this.events.emit('error', error);
      return;
    }
    this.ackDue = true; // sent in this frame's Input packet, or alone (send stage)
  }

  private dispatchRpc(): void {
    const { entry, payload } = this.rpcs.decode(this.reader);
    this.rpcs.dispatch(entry, [payload as never], (m) => this.log('error', m));
  }

  private finish(reason: string): void {
    if (this.current.status === 'closed') return;
    this.spawns.clear(); // no server will confirm what is still waiting: each is rejected, its reverts run
    this.generation++;
    this.inbox = [];
    this.out.clear();
    this.ackDue = false;
    this.resumeToken = 0;
    this.setState({ ...this.current, status: 'closed', closeReason: reason });
  }

  private setState(next: ClientState): void {
    this.current = next;
    this.events.emit('status', next);
  }
}

/** A frame this long after the previous one is a stall (the inputs the server misses meanwhile are not loss). */
const STALL_MS = 250;

/** Keep the newest 8 entries of a change log. */
function remember<T>(list: T[], entry: T): void {
  if (list.length >= 8) list.shift();
  list.push(entry);
}

/** A client whose prediction is on (created without `prediction: false`): `prediction` is always there. */
export type PredictingClient<P extends Protocol> = NetClient<P> & { readonly prediction: ClientPrediction<P> };

/**
 * Create a client engine. Its type follows the `prediction` option: left out or options (the default, on)
 * gives a `PredictingClient` whose `client.prediction` is never undefined; `prediction: false` one whose
 * `prediction` is undefined; an option only known at run time a plain `NetClient` (use `requirePrediction()`).
 */
export function createClient<P extends Protocol>(
  options: ClientOptions<P> & { prediction: false },
): NetClient<P> & { readonly prediction: undefined };
export function createClient<P extends Protocol>(options: ClientOptions<P> & { prediction?: PredictionOptions }): PredictingClient<P>;
export function createClient<P extends Protocol>(options: ClientOptions<P>): NetClient<P>;
export function createClient<P extends Protocol>(options: ClientOptions<P>): NetClient<P> {
  return new NetClient(options);
}
