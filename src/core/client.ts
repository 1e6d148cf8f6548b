// The client engine: the session with its server (client-session.ts: Hello with the protocol
// hash, networkId, join, resume), typed RPCs, snapshots applied to its World (acking each),
// prediction, interpolation of remote ghosts, and the frame that runs it all in stages:
// `update(now)`, once per rendered frame.

import { buildIdentity, type BuildIdentity } from './build-check.ts';
import { ClientGhosts } from './client-ghosts.ts';
import { ClientInput } from './input/client-input.ts';
import type { ClientEvents, ClientOptions, ClientState, ClientStatus } from './client-options.ts';
import { ClientClock } from './client-clock.ts';
import { ClientSender, type ClientTraffic } from './client-send.ts';
import { ClientSession, FRAME_WATCH_MS, type SessionHost } from './client-session.ts';
import { DroppedUnreadWarning } from './dropped-unread.ts';
import type { ClockSync } from './clock/index.ts';
import { CorrectionLog } from './corrections.ts';
import { Emitter, consoleLogger, logs, type Listenable, type Logger } from './emitter.ts';
import { installDebugHandle } from './debug-handle.ts';
import { asNetcodeError, checkEngineOptions, describeError, NetcodeError } from './errors.ts';
import { InputReports, type InputBuffer } from './input/index.ts';
import { LogLimiter } from './log-limit.ts';
import { MessageEncoder, readPong, type Pong, type Welcome } from './messages.ts';
import { ModeSwitcher, type PredictionSwitchingOptions } from './smoothing/mode-switcher.ts';
import { createNetworkTime, updateNetworkTime, type NetworkTime } from './clock/network-time.ts';
import { PredictedSpawns } from './predicted-spawns.ts';
import { ClientPrediction, type PredictionOptions } from './prediction.ts';
import type { InputSchema, InputValues, JoinPayload, Protocol, RpcNames, RpcPayload } from './protocol.ts';
import { RpcRegistry } from './rpc-dispatch.ts';
import type { Schema, Values } from './schema.ts';
import { tickAdd, tickDiff, type Tick } from './clock/tick.ts';
import type { Channel, ClientTransport, TransportStats } from './transport.ts';
import type { Ghost, World } from './world.ts';
import { typed } from './typed-ghosts.ts';

export type { ClientEvents, ClientOptions, ClientState, ClientStatus } from './client-options.ts';

export class NetClient<P extends Protocol> {
  readonly protocol: P;
  /** Status, error and correction events: listen with `on` (emitting is the engine's, through `emitter`). */
  readonly events: Listenable<ClientEvents>;
  private readonly emitter: Emitter<ClientEvents>;
  /** The replicated world, snapshots and interpolation. */
  readonly ghosts: ClientGhosts<P>;
  private readonly transport: ClientTransport;
  private readonly encoder = new MessageEncoder();
  /** What a frame sends: one transport write per channel at the end of its send stage (client-send.ts). */
  private readonly sender: ClientSender;
  private readonly rpcs: RpcRegistry<(payload: never) => void>;
  private readonly log: Logger;
  private readonly limitedLog: LogLimiter;
  /** Status, handshake, join, leave and resume; stage 1, receive (client-session.ts). */
  private readonly session: ClientSession<P>;
  private now = 0;
  /** Server tick announced in the Welcome (clock sync refines it). */
  get welcomeTick(): number { return this.welcomed.serverTick; }
  /** Seed of the world's ctx.rng, from the Welcome. */
  get worldSeed(): number { return this.welcomed.worldSeed; }
  private readonly welcomed = { serverTick: 0, worldSeed: 0 };
  /** Shared-systems fingerprint and build id, sent in the Hello and checked against the Welcome (build-check.ts). */
  readonly identity: BuildIdentity;
  /** The local input: write `input.current` (or use `onInput`), count presses with `input.press('jump')`. */
  readonly input: InputBuffer<InputSchema<P>>;
  private readonly inputs: ClientInput<P>;
  /** The server's reports on our inputs (late / missing), from every Pong. */
  readonly inputReports = new InputReports();
  /** Every correction of a predicted ghost's shown transform, with its cause. */
  readonly corrections: CorrectionLog;
  /** Frame times, Pongs and margin reports into the clock; its jumps and input-delay changes (client-clock.ts). */
  private readonly timing: ClientClock;
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
  private paused = false;
  /** Prediction switching (by hand with setGhostMode, or by distance with setPredictionSwitching). */
  private readonly switcher: ModeSwitcher<P>;
  /** NetworkTime for this frame (updated in place through `liveTime`; read-only to games). */
  private readonly liveTime = createNetworkTime();
  readonly time: NetworkTime = this.liveTime;

  constructor(private readonly options: ClientOptions<P>) {
    checkEngineOptions(options, 'createClient');
    this.protocol = options.protocol;
    this.transport = options.transport;
    this.log = options.log ?? consoleLogger;
    this.identity = buildIdentity(options.systems, options.buildId);
    const onListenerError = (e: unknown) => this.log('error', `react-netcode: a client event listener threw: ${String(e)}; fix the listener (the other listeners still ran).`);
    this.events = this.emitter = new Emitter(onListenerError);
    this.ghosts = new ClientGhosts(options.protocol, options, onListenerError, options.systems ?? []);
    this.limitedLog = new LogLimiter(this.log);
    // A throwing system is skipped for that run, reported, and the frame goes on.
    this.ghosts.onSystemError = (e) => {
      this.limitedLog.log('error', e.system, e.message, this.now);
      this.emitter.emit('error', e);
    };
    this.rpcs = new RpcRegistry(options.protocol, 'toClient');
    this.sender = new ClientSender(this.transport, this.encoder, options);
    this.traffic = this.sender.traffic;
    const send = (bytes: Uint8Array, channel: Channel, length: number): void => this.sender.send(bytes, channel, length);
    this.inputs = new ClientInput(options.protocol, this.ghosts, send, options.inputsPerPacket, options.maxInputRepeatTicks);
    this.input = this.inputs.buffer;
    this.timing = new ClientClock({ ...options.clock, tickRate: options.protocol.tickRate }, this.inputReports);
    this.clock = this.timing.sync;
    this.prediction = options.prediction === false ? undefined : new ClientPrediction(this.ghosts, this.ghosts.systems, options.prediction ?? {}, (m) => this.log('info', m));
    this.ghosts.inputProvider = (ghost, tick) => this.inputs.inputFor(ghost, tick, this.session.state.networkId);
    this.ghosts.rawInputProvider = (ghost, tick) =>
      ghost.owner === this.session.state.networkId ? (this.input.get(tick) as Record<string, unknown> | undefined) : undefined;
    const prediction = this.prediction;
    this.corrections = new CorrectionLog(
      {
        reports: this.inputReports,
        get lastSkip() {
          return prediction?.lastSkip;
        },
        clockJumps: this.timing.clockJumps,
        delayChanges: this.timing.delayChanges,
      },
      (c) => {
        // A logger that lists its levels without 'info' (the default one) gets no line built per correction.
        if (logs(this.log, 'info')) {
          this.log('info', `react-netcode: corrected ${c.type}#${c.ghostId} by ${(c.distance * 1000).toFixed(1)} mm at tick ${c.tick}: ${c.cause} (${c.detail})`);
        }
        this.emitter.emit('correction', c);
      },
    );
    prediction?.events.on('correction', (r) => this.corrections.add(r, this.now));
    const pingTicks = Math.ceil((options.pingIntervalMs ?? 100) / options.protocol.stepMs);
    this.spawns = new PredictedSpawns(this.ghosts, options.spawning ?? {}, onListenerError, this.inputReports, pingTicks);
    this.spawns.attach(this.prediction, () => this.session.state.networkId ?? 0);
    const shown = (ghost: Ghost): Values<Schema> => this.view(typed<P>(ghost), false) as Values<Schema>;
    this.switcher = new ModeSwitcher(this.ghosts, shown, () => this.prediction?.invalidate());
    const host: SessionHost = {
      snapshot: (data, at) => this.onSnapshot(data, at),
      pong: (reader, at) => this.timing.onPong(readPong(reader, this.pong), at, this.now, this.paused),
      rpc: (reader) => {
        const { entry, payload } = this.rpcs.decode(reader);
        this.rpcs.dispatch(entry, [payload as never], (m) => this.log('error', m));
      },
      welcome: (welcome, now) => this.onWelcome(welcome, now),
      closed: () => this.spawns.clear(), // no server will confirm what is still waiting: each is rejected, its reverts run
      droppedUnread: (count, at) => this.droppedUnread.dropped(count, at, this.paused),
      paused: () => this.paused,
      unframed: (waiting) => {
        if (this.paused) return;
        this.log('warn', `react-netcode: client.update(now) has not run in the ${FRAME_WATCH_MS / 1000} s since connect() (${waiting} event(s) of the link wait for it), so the client stays '${this.session.state.status}': the handshake advances only inside update(now). Call it every frame (the React provider does, once per animation frame; a Node client calls it from a timer).`);
      },
    };
    const { sender, encoder, identity, emitter: events, log } = this;
    this.session = new ClientSession({ options, sender, encoder, identity, events, log, host });
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
    return this.switcher.setMode(ghost, mode, this.now);
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
    this.session.pausedChanged(paused);
    if (paused) {
      this.inputs.pause(this.session.state.status === 'in-game' ? this.prediction?.lastTick : undefined);
    } else {
      this.timing.resume(this.now);
      this.session.reconnect.heard(this.now); // what a hidden page missed hearing is no silence of the server
      this.prediction?.skipAhead();
    }
  }

  get isPaused(): boolean {
    return this.paused;
  }

  get state(): Readonly<ClientState> {
    return this.session.state;
  }

  get status(): ClientStatus {
    return this.session.state.status;
  }

  get networkId(): number | undefined {
    return this.session.state.networkId;
  }

  get world(): World<P> {
    return this.ghosts.world;
  }

  /** Open the connection and start the handshake. Allowed when idle or closed. */
  connect(): void {
    this.session.connect();
  }

  /**
   * Ask to join the game with the protocol's join payload (GoInGame). Resolves via status: 'in-game', or
   * back to 'connected' with `joinError`.
   */
  join(payload: JoinPayload<P>): void {
    this.session.join(payload);
  }

  /** Close the connection on purpose (no resume); the server sees `reason`. */
  leave(reason = 'client left'): void {
    this.session.leave(reason);
  }

  /** Send RPC `name` to the server (in game only). */
  send<K extends RpcNames<P, 'toServer'>>(name: K, payload: RpcPayload<P, K>): void {
    if (this.session.state.status !== 'in-game') {
      throw new NetcodeError('usage', `react-netcode: RPC "${name}" can only be sent in game (status is '${this.session.state.status}'); join first.`);
    }
    this.sender.send(this.rpcs.encode(this.encoder, name, 'toServer', payload), 'reliable');
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
    this.droppedUnread.frame(now);
    this.sender.framing = true;
    try {
      this.session.receive(now);
      if (this.session.state.status !== 'in-game') return;
      const dt = this.timing.frame(now);
      const predicting = this.prediction !== undefined && this.clock.synced && !this.paused;
      if (predicting) this.predictStage();
      this.sender.sendStage(now, this.inputs, this.ghosts.ackTick, this.ghosts.ackMask);
      this.corrections.resolve(now);
      this.ghosts.frame(now, predicting);
      const p = this.prediction;
      const timeline = this.ghosts.timeline;
      if (p?.lastTick !== undefined) this.spawns.expire(timeline.tick, timeline.newestSnapshotTick, p.lastTick, p.maxRollback);
      if (predicting) this.prediction!.render(this.clock.predictedFraction, dt);
      this.switcher.update(now);
      updateNetworkTime(this.liveTime, this.clock, this.ghosts.timeline, this.prediction?.lastTick, this.prediction?.resimulating ?? false);
    } finally {
      this.sender.framing = false;
      this.sender.flush(); // anything queued after the send stage (an RPC from a presentation system, a Hello)
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

  /** Reports a drop of unread messages (client-session.ts): frames that stopped, or a burst between two frames. */
  private readonly droppedUnread = new DroppedUnreadWarning((m) => this.log('warn', m));

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

  /**
   * The values to render for a ghost this frame: predicted ghosts frame-interpolated with
   * their VisualCorrection, interpolated ones on the timeline, and while a ghost switches
   * mode, the blend between the two. Never the simulation state itself for predicted ghosts.
   * Typed from the ghost's type: `client.view(ball).position` is a `Vec3`. Read it in this frame.
   */
  view<G extends Ghost<P>>(ghost: G, blended = true): Readonly<G['components']> {
    const g: Ghost = ghost;
    const v = (blended ? this.switcher.view(g) : undefined) ?? (g.mode === 'predicted' ? this.prediction?.view(g) : undefined) ?? g.components;
    return v as Readonly<G['components']>;
  }

  /**
   * Traffic counters since creation: bytes and messages each way (a Batch's parts counted one by one),
   * transport writes made, and snapshots received.
   */
  readonly traffic: Readonly<ClientTraffic>;

  /** The transport's own counters (which path carries the unreliable channel, what it dropped), when it keeps them. */
  get transportStats(): TransportStats | undefined {
    return this.transport.stats;
  }

  /** A new session (not a resume) forgets the last one's ghosts, inputs, reports and predictions. */
  private onWelcome(welcome: Welcome, now: number): void {
    this.welcomed.serverTick = welcome.serverTick;
    this.welcomed.worldSeed = welcome.worldSeed;
    this.ghosts.begin(welcome.networkId, welcome.resumed, now, welcome.worldSeed);
    if (!welcome.resumed) {
      this.spawns.clear();
      this.inputs.reset();
      this.inputReports.reset();
      this.corrections.clear();
      this.timing.clearChanges();
      this.prediction?.reset();
      this.switcher.clear();
    }
    this.clock.resync();
  }

  /** Snapshots are unreliable: a malformed one is dropped (not acked) and reported, the connection stays. */
  private onSnapshot(data: Uint8Array, at: number): void {
    this.sender.traffic.snapshotsIn++;
    try {
      const snap = this.ghosts.applySnapshot(data, at);
      if (!snap) return;
      this.inputs.onReplicated(snap.inputs);
    } catch (thrown) {
      const error = asNetcodeError(thrown, 'decoding a snapshot');
      this.ghosts.countRejected();
      this.log('warn', `react-netcode: dropped a malformed snapshot: ${describeError(error)}`);
      this.emitter.emit('error', error);
      return;
    }
    this.sender.ackDue = true; // sent in this frame's Input packet, or alone (send stage)
  }
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
