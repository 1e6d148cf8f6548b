// The engine a <NetcodeProvider> owns: the NetClient, its UI-rate store and the
// frame driver. One `step(now)` = client.update(now) → auto-join → store updates
// at UI rate → onStep listeners. The provider's own loop (requestFrame) steps it
// unless a component in the Canvas has claimed the frame. No React in here.

import { consoleLogger, createClient, NetcodeError, type ClientOptions, type ClientTransport, type InputValues, type JoinPayload, type Logger, type NetClient, type Protocol, type SystemDef, type Tick } from '../index.ts';
import { leaveOnPageHide } from '../core/page-hide.ts';
import type { FrameDriver, NetcodeContextValue } from './context.ts';
import type { FrameClock } from './frame-clock.ts';
import { appendSample, createNetcodeStore, StatsSampler, type NetcodeStore, type NetcodeStoreState } from './store.ts';

/** A transport, or a factory called once, when the engine connects. */
export type TransportSource = ClientTransport | (() => ClientTransport);

/** Client options the provider passes through (protocol, transport and systems come from the provider). */
export type NetcodeClientOptions<P extends Protocol> = Omit<ClientOptions<P>, 'protocol' | 'transport' | 'systems'>;

/** Called once per predicted tick, before the tick's input is committed: write `input` for `tick`. */
export type InputSampler<P extends Protocol = Protocol> = (input: InputValues<P>, tick: Tick) => void;

export interface EngineOptions<P extends Protocol> {
  protocol: P;
  systems: readonly SystemDef<P>[];
  transport: TransportSource;
  clientOptions?: NetcodeClientOptions<P> | undefined;
  clock: FrameClock;
  pauseWhenHidden: boolean;
  /** Leave at once when the page is closed (`pagehide`, not for the back/forward cache). */
  leaveOnPageHide: boolean;
  join?: JoinPayload<P> | undefined;
  /** Resolves when the app may connect (the `loading` phase); the engine connects after it. */
  ready: Promise<void>;
}

const isHidden = (): boolean => typeof document !== 'undefined' && document.visibilityState === 'hidden';

/** Defers the factory to the first `connect`, so an engine that never connects never builds a transport. */
function lazyTransport(source: TransportSource): ClientTransport {
  if (typeof source !== 'function' && (typeof source !== 'object' || source === null)) {
    throw new NetcodeError('usage', "react-netcode: <NetcodeProvider> needs a transport prop: transport={() => createSocketIoClientTransport('http://localhost:3000')} (or a transport object).");
  }
  if (typeof source !== 'function') return source;
  let transport: ClientTransport | undefined;
  return {
    connect: (handler, intent) => (transport ??= source()).connect(handler, intent),
    send: (data, channel) => transport?.send(data, channel),
    close: (reason) => transport?.close(reason),
    get stats() {
      return transport?.stats;
    },
  };
}

export class NetcodeEngine<P extends Protocol = Protocol> implements NetcodeContextValue<P> {
  readonly client: NetClient<P>;
  readonly store: NetcodeStore;
  readonly frame: FrameDriver;
  readonly clock: FrameClock;
  private readonly log: Logger;
  // Copy-on-write arrays: iterated by index every tick / frame without allocating, replaced on (un)subscribe.
  private samplers: readonly InputSampler<P>[] = [];
  private stepListeners: readonly ((now: number) => void)[] = [];
  private readonly offs: (() => void)[] = [];
  private readonly stats: StatsSampler;
  private join: JoinPayload<P> | undefined;
  private autoJoinBlocked = false;
  /** The provider's own join() is waiting for the server's answer. */
  private autoJoinPending = false;
  private claims = 0;
  private scheduled = false;
  private handle: unknown;
  private seenWorldVersion = -1;
  private modeChanges = 0;
  private seenModeChanges = 0;
  private started = false;
  private disposed = false;

  constructor(private readonly options: EngineOptions<P>) {
    const user = options.clientOptions ?? {};
    this.log = user.log ?? consoleLogger;
    this.clock = options.clock;
    this.join = options.join;
    this.client = createClient<P>({
      // Timestamp what arrives on the provider's clock, so RTT and jitter do not include frame time.
      now: () => options.clock.now(),
      ...user,
      protocol: options.protocol,
      systems: options.systems,
      transport: lazyTransport(options.transport),
      onInput: (input, tick) => this.sampleInput(input, tick, user.onInput),
    });
    this.store = createNetcodeStore();
    this.stats = new StatsSampler(this.client as unknown as NetClient<Protocol>);
    this.frame = {
      step: (now) => this.step(now),
      claim: () => this.claim(),
      onStep: (listener) => {
        const entry = (now: number): void => listener(now); // own identity: the same listener may subscribe twice
        this.stepListeners = [...this.stepListeners, entry];
        return () => void (this.stepListeners = this.stepListeners.filter((l) => l !== entry));
      },
    };
  }

  /** Start the loop and the `loading` phase; connects when `ready` resolves. Called once, from the provider's effect. */
  start(): void {
    if (this.started || this.disposed) return;
    this.started = true;
    const c = this.client;
    this.offs.push(
      c.events.on('status', (s) => {
        if (s.joinError !== undefined && this.autoJoinPending) {
          // The provider's own join was refused: say so (the app may never read useConnection().joinError).
          this.log('warn', `react-netcode: the server refused <NetcodeProvider join>: ${s.joinError}. useConnection().joinError holds the reason; change the join prop to try again.`);
        }
        if (s.status !== 'joining') this.autoJoinPending = false;
        const { status, networkId, closeReason, closeCode, joinError, resumeFailed } = s;
        this.store.setState({ status, networkId, closeReason, closeCode, joinError, resumeFailed });
      }),
      c.events.on('error', (e) => this.store.setState({ lastError: e.message })),
      c.ghosts.events.on('mode', () => void this.modeChanges++),
    );
    if (this.options.pauseWhenHidden && typeof document !== 'undefined') {
      const onVisibility = (): void => c.setPaused(isHidden());
      document.addEventListener('visibilitychange', onVisibility);
      this.offs.push(() => document.removeEventListener('visibilitychange', onVisibility));
      if (isHidden()) c.setPaused(true);
    }
    if (this.options.leaveOnPageHide && typeof window !== 'undefined') this.offs.push(leaveOnPageHide(c, window));
    this.schedule();
    this.options.ready.then(
      () => {
        if (!this.disposed) c.connect();
      },
      (error: unknown) => {
        if (this.disposed) return;
        const reason = `react-netcode: init() failed: ${error instanceof Error ? error.message : String(error)}; fix the init promise passed to <NetcodeProvider init>, then remount the provider.`;
        this.store.setState({ status: 'closed', closeReason: reason, closeCode: 'init-failed', lastError: reason });
      },
    );
  }

  /** Stop the loop, close the connection (the server sees `reason`) and drop every listener. Idempotent. */
  dispose(reason = 'react-netcode: <NetcodeProvider> unmounted'): void {
    if (this.disposed) return;
    this.disposed = true;
    this.cancel();
    for (const off of this.offs.splice(0)) off();
    this.stepListeners = [];
    this.samplers = [];
    this.client.leave(reason);
    this.client.removeDebugHandle();
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** The payload auto-joined with once connected (undefined: join by hand with useConnection().join). */
  setJoinPayload(payload: JoinPayload<P> | undefined): void {
    if (payload !== this.join) this.autoJoinBlocked = false;
    this.join = payload;
  }

  /** Add a per-tick input sampler; returns the removal function. Samplers run in the order added. */
  addInputSampler(sampler: InputSampler<P>): () => void {
    const entry: InputSampler<P> = (input, tick) => sampler(input, tick);
    this.samplers = [...this.samplers, entry];
    return () => void (this.samplers = this.samplers.filter((s) => s !== entry));
  }

  private sampleInput(input: InputValues<P>, tick: Tick, user: InputSampler<P> | undefined): void {
    if (isHidden()) {
      // Hidden page with pauseWhenHidden off: nothing the player holds may keep running.
      this.client.input.neutral();
      return;
    }
    const samplers = this.samplers;
    for (let i = 0; i < samplers.length; i++) {
      try {
        samplers[i]!(input, tick);
      } catch (error) {
        this.log('error', `react-netcode: an input sampler (useInput) threw: ${String(error)}; fix the sampler (the other samplers still ran for this tick).`);
      }
    }
    user?.(input, tick);
  }

  private step(now: number): void {
    if (this.disposed) return;
    const c = this.client;
    c.update(now);
    this.autoJoin();
    const version = c.world.version;
    const ghostsChanged = version !== this.seenWorldVersion || this.modeChanges !== this.seenModeChanges;
    const sample = this.stats.sample(now);
    if (ghostsChanged || sample) {
      const s = this.store.getState();
      const next: Partial<NetcodeStoreState> = {};
      if (ghostsChanged) {
        this.seenWorldVersion = version;
        this.seenModeChanges = this.modeChanges;
        next.ghostsVersion = s.ghostsVersion + 1;
      }
      if (sample) {
        next.stats = sample;
        next.statsHistory = appendSample(s.statsHistory, sample);
      }
      this.store.setState(next);
    }
    const listeners = this.stepListeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i]!(now);
      } catch (error) {
        this.log('error', `react-netcode: a frame.onStep listener threw: ${String(error)}; fix the listener (the other listeners still ran).`);
      }
    }
  }

  private autoJoin(): void {
    const c = this.client;
    if (this.join === undefined || this.autoJoinBlocked || c.status !== 'connected' || c.state.joinError !== undefined) return;
    try {
      c.join(this.join);
      this.autoJoinPending = true;
    } catch (error) {
      // An invalid payload: report it once, do not retry every frame until the payload changes.
      this.autoJoinBlocked = true;
      const message = error instanceof Error ? error.message : String(error);
      this.log('warn', `react-netcode: <NetcodeProvider join> cannot join: ${message.replace(/^react-netcode: /, '')} (useConnection().joinError holds this; change the join prop to try again).`);
      this.store.setState({ joinError: message });
    }
  }

  private claim(): () => void {
    if (this.claims > 0) throw new NetcodeError('usage', 'react-netcode: the frame driver is already claimed; mount exactly one <NetcodeFrame/> per <NetcodeProvider>.');
    this.claims++;
    this.cancel();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.claims--;
      this.schedule();
    };
  }

  private readonly onFrame = (): void => {
    this.scheduled = false;
    this.schedule(); // first, so a throwing step does not stop the loop
    this.step(this.clock.now());
  };

  private schedule(): void {
    if (this.disposed || !this.started || this.claims > 0 || this.scheduled) return;
    this.scheduled = true;
    this.handle = this.clock.requestFrame(this.onFrame);
  }

  private cancel(): void {
    if (!this.scheduled) return;
    this.scheduled = false;
    this.clock.cancelFrame(this.handle);
  }
}
