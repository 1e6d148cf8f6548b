// The client engine: opens the transport, says Hello with the protocol hash,
// receives its networkId, joins (GoInGame), exchanges typed RPCs, applies
// snapshots to its World (acking each), interpolates remote ghosts, and resumes
// a dropped connection within the grace period. Driven by `update(now)` per frame.

import { BitReader, BitWriter } from './bits.ts';
import { ClientGhosts } from './client-ghosts.ts';
import { ClientInput } from './client-input.ts';
import type { ClientEvents, ClientOptions, ClientState, ClientStatus } from './client-options.ts';
import { ClockSync } from './clock/index.ts';
import { Emitter, consoleLogger, type Logger } from './emitter.ts';
import { NetcodeError, isNetcodeError } from './errors.ts';
import type { InputBuffer } from './input/index.ts';
import { MessageEncoder, readKind, readPong, readReason, readWelcome, type Pong } from './messages.ts';
import { ModeSwitcher, type PredictionSwitchingOptions } from './mode-switcher.ts';
import { createNetworkTime, updateNetworkTime, type NetworkTime } from './network-time.ts';
import { PredictedSpawns } from './predicted-spawns.ts';
import { ClientPrediction } from './prediction.ts';
import type { InputSchema, InputValues, JoinPayload, Protocol, RpcNames, RpcPayload } from './protocol.ts';
import { Reconnector } from './reconnect.ts';
import { RpcRegistry } from './rpc-dispatch.ts';
import type { Schema, Values } from './schema.ts';
import { encodeAck } from './snapshot/index.ts';
import { tickAdd } from './tick.ts';
import type { Channel, ClientTransport } from './transport.ts';
import type { Ghost } from './world.ts';
import { MAX_MESSAGE_BYTES, MessageKind, WIRE_VERSION } from './wire.ts';

export type { ClientEvents, ClientOptions, ClientState, ClientStatus } from './client-options.ts';

type Inbound = { kind: 'open' } | { kind: 'message'; data: Uint8Array; channel: Channel } | { kind: 'close'; reason: string };

export class NetClient<P extends Protocol> {
  readonly protocol: P;
  readonly events: Emitter<ClientEvents>;
  /** The replicated world, snapshots and interpolation. */
  readonly ghosts: ClientGhosts<P>;
  private readonly transport: ClientTransport;
  private readonly encoder = new MessageEncoder();
  private readonly reader = new BitReader();
  private readonly ackWriter = new BitWriter(16);
  private readonly rpcs: RpcRegistry<(payload: never) => void>;
  private readonly log: Logger;
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
  /** The local input: write `input.current` (or use `onInput`), count presses with `input.press('jump')`. */
  readonly input: InputBuffer<InputSchema<P>>;
  private readonly inputs: ClientInput<P>;
  /** NetworkTime's clocks: serverTick, predictedTick, RTT, jitter, slack. */
  readonly clock: ClockSync;
  /** Prediction and rollback; undefined when disabled. */
  readonly prediction: ClientPrediction<P> | undefined;
  /** Predicted spawns awaiting their server twins; classifiers per type. */
  readonly spawns: PredictedSpawns<P>;
  private readonly pong: Pong = { echoMs: 0, serverTick: 0, serverFraction: 0, inputMarginTicks: 0 };
  private lastPingAt = -Infinity;
  private lastFrameAt: number | undefined;
  private paused = false;
  private marginHoldUntil = 0;
  /** Prediction switching (by hand with setGhostMode, or by distance with setPredictionSwitching). */
  private readonly switcher: ModeSwitcher<P>;
  /** NetworkTime for this frame (updated in place). */
  readonly time: NetworkTime = createNetworkTime();

  constructor(private readonly options: ClientOptions<P>) {
    this.protocol = options.protocol;
    this.transport = options.transport;
    this.log = options.log ?? consoleLogger;
    const onListenerError = (e: unknown) => this.log('error', `react-netcode: a client event listener threw: ${String(e)}`);
    this.events = new Emitter(onListenerError);
    this.ghosts = new ClientGhosts(options.protocol, options, onListenerError, options.systems ?? []);
    this.rpcs = new RpcRegistry(options.protocol, 'toClient');
    this.reconnect = new Reconnector(options);
    this.inputs = new ClientInput(options.protocol, this.ghosts, (bytes, channel) => this.sendRaw(bytes, channel), options.inputsPerPacket);
    this.input = this.inputs.buffer;
    this.clock = new ClockSync({ ...options.clock, tickRate: options.protocol.tickRate });
    this.prediction = options.prediction === false ? undefined : new ClientPrediction(this.ghosts, this.ghosts.systems, options.prediction ?? {}, (m) => this.log('info', m));
    this.ghosts.inputProvider = (ghost, tick) => this.inputs.inputFor(ghost as Ghost, tick, this.current.networkId);
    // eslint-disable-next-line max-len -- long line left for the rewrite of this file (issue 17 lint pass)
    this.ghosts.rawInputProvider = (ghost, tick) => (ghost.owner === this.current.networkId ? (this.input.get(tick) as Record<string, unknown> | undefined) : undefined);
    this.spawns = new PredictedSpawns(this.ghosts, options.spawning ?? {}, onListenerError);
    this.spawns.attach(this.prediction, () => this.current.networkId ?? 0);
    // eslint-disable-next-line max-len -- long line left for the rewrite of this file (issue 17 lint pass)
    this.switcher = new ModeSwitcher(this.ghosts, (ghost) => this.view(ghost as Ghost<P>, false) as Values<Schema>, () => this.prediction?.invalidate());
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

  get world() {
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

  // eslint-disable-next-line max-len -- long line left for the rewrite of this file (issue 17 lint pass)
  /** Ask to join the game with the protocol's join payload (GoInGame). Resolves via status: 'in-game', or back to 'connected' with `joinError`. */
  join(payload: JoinPayload<P>): void {
    if (this.current.status !== 'connected') {
      throw new NetcodeError('usage', `react-netcode: join() needs status 'connected' (it is '${this.current.status}'); wait for the handshake, or you are already in game.`);
    }
    const problem = this.protocol.join.validate(payload);
    if (problem !== null) throw new NetcodeError('usage', `react-netcode: join payload is invalid: ${problem}.`);
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

  /** One client frame at monotonic time `now` (ms): receive, resume if needed, interpolate. */
  update(now: number): void {
    this.now = now;
    const batch = this.inbox;
    this.inbox = [];
    for (const event of batch) {
      if (this.current.status === 'closed') break;
      if (event.kind === 'open') {
        this.sendRaw(this.encoder.hello({ protocolHash: this.protocol.hash, wireVersion: WIRE_VERSION, resumeToken: this.resumeToken, resumeId: this.resumeToken ? (this.current.networkId ?? 0) : 0 }), 'reliable');
      } else if (event.kind === 'close') this.dropped(event.reason);
      else this.onMessage(event.data);
    }
    if (this.current.status === 'reconnecting') this.retry();
    if (this.current.status !== 'in-game') return;
    // eslint-disable-next-line max-len -- long line left for the rewrite of this file (issue 17 lint pass)
    const dt = this.lastFrameAt === undefined ? 0 : Math.max(0, now - this.lastFrameAt); // a clock that steps back renders as a zero-length frame
    this.lastFrameAt = now;
    if (now - this.lastPingAt >= (this.options.pingIntervalMs ?? 100)) {
      this.lastPingAt = now;
      this.sendRaw(this.encoder.ping(now), 'unreliable');
    }
    this.clock.update(now);
    const predicting = this.prediction !== undefined && this.clock.synced && !this.paused;
    if (predicting) {
      this.prediction!.advance(this.clock.predictedTick, (tick) => {
        // Beyond the prediction cap, latency becomes input delay: what is sampled now is the
        // input of a later tick, so it still reaches the server in time.
        const inputTick = tickAdd(tick, this.clock.inputDelayTicks);
        this.options.onInput?.(this.input.current as unknown as InputValues<P>, inputTick);
        this.inputs.commitAndSend(inputTick);
      });
    }
    this.ghosts.frame(now, predicting);
    // eslint-disable-next-line max-len -- long line left for the rewrite of this file (issue 17 lint pass)
    if (this.prediction?.lastTick !== undefined) this.spawns.expire(this.ghosts.timeline.tick, this.ghosts.timeline.newestSnapshotTick, this.prediction.lastTick, this.options.prediction ? (this.options.prediction.maxRollbackTicks ?? 64) : 64);
    if (predicting) this.prediction!.render(this.clock.predictedFraction, dt);
    this.switcher.update(now);
    updateNetworkTime(this.time, this.clock, this.ghosts.timeline, this.prediction?.lastTick, this.prediction?.resimulating ?? false);
  }

  /**
   * The values to render for a ghost this frame: predicted ghosts frame-interpolated with
   * their VisualCorrection, interpolated ones on the timeline, and while a ghost switches
   * mode, the blend between the two. Never the simulation state itself for predicted ghosts.
   */
  view(ghost: Ghost<P>, blended = true): Readonly<Record<string, unknown>> {
    const g = ghost as Ghost;
    const v = (blended ? this.switcher.view(g) : undefined) ?? (g.mode === 'predicted' ? this.prediction?.view(g) : undefined) ?? g.components;
    return v as Readonly<Record<string, unknown>>;
  }

  private open(): void {
    const generation = ++this.generation;
    this.inbox = [];
    this.transport.connect({
      onOpen: () => generation === this.generation && this.inbox.push({ kind: 'open' }),
      onMessage: (data, channel) => generation === this.generation && this.inbox.push({ kind: 'message', data, channel }),
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
    if (next === 'expired') this.finish(`connection lost: could not resume within ${this.reconnect.graceMs} ms (${this.current.closeReason ?? 'link closed'})`);
    else if (next === 'attempt') this.open();
  }

  /** Traffic counters since creation (bytes and messages each way). */
  readonly traffic = { bytesIn: 0, bytesOut: 0, messagesIn: 0, messagesOut: 0 };

  private sendRaw(bytes: Uint8Array, channel: Channel): void {
    this.traffic.bytesOut += bytes.byteLength;
    this.traffic.messagesOut++;
    this.transport.send(bytes, channel);
  }

  private onMessage(data: Uint8Array): void {
    this.traffic.bytesIn += data.byteLength;
    this.traffic.messagesIn++;
    try {
      if (data.byteLength > MAX_MESSAGE_BYTES) throw new NetcodeError('wire/too-large', `react-netcode: message of ${data.byteLength} bytes exceeds ${MAX_MESSAGE_BYTES}.`);
      const kind = readKind(this.reader, data);
      switch (kind) {
        case MessageKind.Snapshot:
          this.onSnapshot(data);
          return;
        case MessageKind.Pong: {
          const pong = readPong(this.reader, this.pong);
          // The echo is the low 32 bits of our ms clock: rebuild the full send time.
          const sentAt = this.now - ((Math.round(this.now) - pong.echoMs) >>> 0);
          this.clock.onPong(sentAt, this.now, pong.serverTick, pong.serverFraction);
          // The server reports the margin of our newest input: stale while paused and until
          // inputs sent after the resume have made a round trip.
          if (!this.paused && this.now >= this.marginHoldUntil) this.clock.onInputMargin(pong.inputMarginTicks);
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
          this.finish(reason);
          this.transport.close(reason);
          return;
        }
        case MessageKind.Rpc:
          this.dispatchRpc();
          return;
        default:
          throw new NetcodeError('wire/unknown-message', `react-netcode: unknown message kind ${kind}.`);
      }
    } catch (error) {
      if (!isNetcodeError(error)) throw error;
      const reason = `react-netcode: protocol error from server: ${error.message.replace(/^react-netcode: /, '')}`;
      this.log('error', reason);
      this.finish(reason);
      this.transport.close(reason);
    }
  }

  private onWelcome(): void {
    const welcome = readWelcome(this.reader);
    const reconnecting = this.current.status === 'reconnecting';
    this.welcomeTick = welcome.serverTick;
    this.worldSeed = welcome.worldSeed;
    this.resumeToken = welcome.resumeToken;
    this.ghosts.begin(welcome.networkId, welcome.resumed, this.now, welcome.worldSeed);
    if (!welcome.resumed) {
      this.spawns.clear();
      this.inputs.reset();
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
    try {
      const snap = this.ghosts.applySnapshot(data, this.now);
      if (!snap) return;
      this.inputs.onReplicated(snap.inputs);
    } catch (error) {
      if (!isNetcodeError(error)) throw error;
      this.ghosts.rejectedSnapshots++;
      this.log('warn', `react-netcode: dropped a malformed snapshot: ${error.message}`);
      this.events.emit('error', error);
      return;
    }
    const w = this.ackWriter;
    w.reset();
    w.writeBits(MessageKind.SnapshotAck, 8);
    encodeAck(w, this.ghosts.ackTick, this.ghosts.ackMask);
    this.sendRaw(w.toBytes(), 'unreliable');
  }

  private dispatchRpc(): void {
    const { entry, payload } = this.rpcs.decode(this.reader);
    this.rpcs.dispatch(entry, [payload as never], (m) => this.log('error', m));
  }

  private finish(reason: string): void {
    if (this.current.status === 'closed') return;
    this.generation++;
    this.inbox = [];
    this.resumeToken = 0;
    this.setState({ ...this.current, status: 'closed', closeReason: reason });
  }

  private setState(next: ClientState): void {
    this.current = next;
    this.events.emit('status', next);
  }
}

export function createClient<P extends Protocol>(options: ClientOptions<P>): NetClient<P> {
  return new NetClient(options);
}
