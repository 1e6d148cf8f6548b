// The Stepper: a deterministic harness that runs one server and N clients in one
// process on a virtual clock. Each peer has its own clock offset, drift and frame
// period; links go through the loopback with an optional seeded LinkConditioner
// per client. Nothing depends on wall time: the same seed gives the same run.

import { createClient, type ClientOptions, type NetClient } from '../core/client.ts';
import type { Logger } from '../core/emitter.ts';
import { NetcodeError } from '../core/errors.ts';
import type { JoinPayload, Protocol } from '../core/protocol.ts';
import { deriveSeed, Rng } from '../core/rng.ts';
import { NetServer, type ServerOptions } from '../core/server.ts';
import type { SystemDef } from '../core/system.ts';
import type { ClientTransport } from '../core/transport.ts';
import { conditionClient, type ConditionedClientTransport, type LinkOptions } from '../transport/conditioner.ts';
import { LoopbackNetwork } from '../transport/loopback.ts';
import { VirtualScheduler } from '../transport/scheduler.ts';

/** How a peer's local clock relates to the Stepper's true virtual time. */
export interface PeerClock {
  /** Added to true time (ms). Default 0. */
  offsetMs?: number;
  /** Rate error: local = offset + true × (1 + drift). 0.005 = +0.5 %. Default 0. */
  drift?: number;
  /** How often the peer runs a frame (ms of true time): 1000/144 for a 144 Hz display, 1000/30 for 30 Hz. */
  framePeriodMs?: number;
  /** Each frame period varies uniformly within ± this fraction of framePeriodMs (seeded; 0.5 = ±50 %). Default 0. */
  frameJitter?: number;
}

export interface StepperClientOptions {
  clock?: PeerClock;
  /** Link conditions; omitted = perfect link (delivered at the next frame). */
  link?: { up?: LinkOptions; down?: LinkOptions };
  /** Connect as soon as it is added (default true). */
  connect?: boolean;
  /** Timestamp received messages on arrival on the client's clock (ClientOptions.now; default true). False: at the next frame. */
  stampOnArrival?: boolean;
  /** Extra client engine options (history length, resume grace …). */
  engine?: Omit<Partial<ClientOptions<Protocol>>, 'protocol' | 'transport' | 'systems' | 'log'>;
}

export interface StepperOptions<P extends Protocol> {
  protocol: P;
  /** Seed for every random choice in the run (conditioners, server). Default 1. */
  seed?: number;
  /** The game's systems, given to the server and to every client. */
  systems?: readonly SystemDef<P>[];
  /** Extra server options (onJoin, maxConnections …). */
  server?: Omit<Partial<ServerOptions<P>>, 'protocol' | 'transport' | 'scheduler'>;
  serverClock?: PeerClock;
  /** Clients to add at once: a count, or one options object per client. */
  clients?: number | readonly StepperClientOptions[];
  log?: Logger;
}

export interface StepperPeer {
  readonly clock: Required<PeerClock>;
  /** Next frame, in true virtual ms. */
  nextFrameAt: number;
  frames: number;
  /** True ms until which the peer's main thread is blocked (see `Stepper.stall`); messages arriving before are seen then. */
  busyUntil: number;
  /** Seeded source of frame-time jitter. */
  readonly jitter: Rng;
}

export interface StepperClient<P extends Protocol> extends StepperPeer {
  readonly index: number;
  readonly client: NetClient<P>;
  readonly transport: ClientTransport;
  /** Present when the client has link conditions. */
  readonly link: ConditionedClientTransport | undefined;
}

function resolveClock(clock: PeerClock | undefined, fallbackPeriod: number): Required<PeerClock> {
  const frameJitter = clock?.frameJitter ?? 0;
  if (!(frameJitter >= 0 && frameJitter < 1)) throw new NetcodeError('usage', `react-netcode: PeerClock.frameJitter must be in [0, 1) (got ${String(clock?.frameJitter)}); 0.5 varies each frame by ±50 %.`);
  return { offsetMs: clock?.offsetMs ?? 0, drift: clock?.drift ?? 0, framePeriodMs: clock?.framePeriodMs ?? fallbackPeriod, frameJitter };
}

export class Stepper<P extends Protocol> {
  readonly protocol: P;
  readonly seed: number;
  readonly scheduler = new VirtualScheduler();
  readonly network = new LoopbackNetwork();
  readonly server: NetServer<P>;
  readonly serverPeer: StepperPeer;
  readonly clients: StepperClient<P>[] = [];
  private readonly log: Logger | undefined;
  private readonly systems: readonly SystemDef<P>[] | undefined;
  private time = 0;

  constructor(options: StepperOptions<P>) {
    this.protocol = options.protocol;
    this.seed = options.seed ?? 1;
    this.log = options.log;
    this.systems = options.systems;
    this.server = new NetServer({
      ...(options.log ? { log: options.log } : {}),
      ...(options.systems ? { systems: options.systems } : {}),
      seed: deriveSeed(this.seed, 0x5e4),
      ...options.server,
      protocol: options.protocol,
      transport: this.network.server,
    } as ServerOptions<P>);
    this.server.listen();
    const serverClock = resolveClock(options.serverClock, 1);
    this.serverPeer = { clock: serverClock, nextFrameAt: 0, frames: 0, busyUntil: 0, jitter: new Rng(deriveSeed(this.seed, 0xf7a, 0)) };
    const specs = typeof options.clients === 'number' ? Array.from({ length: options.clients }, () => ({})) : (options.clients ?? []);
    for (const spec of specs) this.addClient(spec);
  }

  /** True virtual time in ms since the Stepper started. */
  get now(): number {
    return this.time;
  }

  /** A peer's local clock reading at true time `t`. */
  localTime(peer: StepperPeer, t = this.time): number {
    return peer.clock.offsetMs + t * (1 + peer.clock.drift);
  }

  addClient(options: StepperClientOptions = {}): StepperClient<P> {
    const index = this.clients.length;
    const raw = this.network.createClient();
    const seed = deriveSeed(this.seed, 0xc1, index);
    const link = options.link ? conditionClient(raw, { seed, ...options.link }, this.scheduler) : undefined;
    const transport = link ?? raw;
    const clock = resolveClock(options.clock, 1000 / 60);
    const self: { peer?: StepperClient<P> } = {};
    const clientOptions: ClientOptions<P> = {
      // Messages are timestamped on arrival on the client's own clock (as a browser's performance.now);
      // while its thread is blocked (a stall), they are seen when it is free again.
      ...(options.stampOnArrival === false ? {} : {
            now: () => clock.offsetMs + Math.max(this.time, self.peer?.busyUntil ?? 0) * (1 + clock.drift),
          }),
      ...options.engine,
      protocol: this.protocol,
      transport,
      ...(this.systems ? { systems: this.systems } : {}),
      ...(this.log ? { log: this.log } : {}),
    } as ClientOptions<P>;
    const peer: StepperClient<P> = {
      index,
      client: createClient(clientOptions),
      transport,
      link,
      clock,
      nextFrameAt: this.time,
      frames: 0,
      busyUntil: 0,
      jitter: new Rng(deriveSeed(this.seed, 0xf7a, index + 1)),
    };
    self.peer = peer;
    this.clients.push(peer);
    if (options.connect ?? true) peer.client.connect();
    return peer;
  }

  /** Advance true time by `ms`, running every peer frame and delivering every packet due on the way. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new NetcodeError('usage', `react-netcode: Stepper.advance needs a non-negative duration (got ${ms}).`);
    const target = this.time + ms;
    for (;;) {
      let next = this.serverPeer.nextFrameAt;
      for (const c of this.clients) if (c.nextFrameAt < next) next = c.nextFrameAt;
      if (next > target) break;
      this.time = next;
      this.scheduler.advanceTo(next);
      this.network.deliver();
      if (this.serverPeer.nextFrameAt === next) this.frame(this.serverPeer, () => this.server.update(this.localTime(this.serverPeer)));
      for (const c of this.clients) if (c.nextFrameAt === next) this.frame(c, () => c.client.update(this.localTime(c)));
    }
    this.time = target;
    this.scheduler.advanceTo(target);
    this.network.deliver();
  }

  /**
   * Block a peer's main thread for `ms` of true time from now (a long frame, a GC pause, a
   * background tab): it runs no frame until then, and what arrives meanwhile is timestamped
   * when it is free again — as a browser delivers socket events only after a long task.
   */
  stall(peer: StepperPeer, ms: number): void {
    if (!(ms >= 0)) throw new NetcodeError('usage', `react-netcode: Stepper.stall needs a non-negative duration (got ${ms}).`);
    peer.busyUntil = Math.max(peer.busyUntil, this.time + ms);
    peer.nextFrameAt = Math.max(peer.nextFrameAt, peer.busyUntil);
  }

  /** Change a peer's frame period from its next frame on (e.g. a game dropping from 60 to 20 fps). */
  setFramePeriod(peer: StepperPeer, framePeriodMs: number): void {
    if (!(framePeriodMs > 0)) throw new NetcodeError('usage', `react-netcode: Stepper.setFramePeriod needs a positive period (got ${framePeriodMs}).`);
    (peer.clock as { framePeriodMs: number }).framePeriodMs = framePeriodMs;
  }

  /** Advance by `n` server ticks of true time. */
  tick(n = 1): void {
    this.advance(n * this.protocol.stepMs);
  }

  /** Advance until `predicate()` holds, at most `maxMs`; throws (with `what`) if it never does. Returns the ms it took. */
  until(predicate: () => boolean, maxMs = 10_000, what = 'condition'): number {
    const start = this.time;
    const step = Math.min(this.serverPeer.clock.framePeriodMs, ...this.clients.map((c) => c.clock.framePeriodMs));
    while (!predicate()) {
      if (this.time - start >= maxMs) throw new NetcodeError('usage', `react-netcode: Stepper timed out after ${maxMs} ms waiting for ${what}.`);
      this.advance(step);
    }
    return this.time - start;
  }

  /** Join every connected client with `payload` and run until all are in game. */
  joinAll(payload: JoinPayload<P>, maxMs = 10_000): void {
    this.until(() => this.clients.every((c) => c.client.status === 'connected' || c.client.status === 'in-game'), maxMs, 'every client to connect');
    for (const c of this.clients) if (c.client.status === 'connected') c.client.join(payload);
    this.until(() => this.clients.every((c) => c.client.status === 'in-game'), maxMs, 'every client to be in game');
  }

  private frame(peer: StepperPeer, run: () => void): void {
    run();
    peer.frames++;
    const { framePeriodMs, frameJitter } = peer.clock;
    peer.nextFrameAt += frameJitter > 0 ? framePeriodMs * (1 + frameJitter * (2 * peer.jitter.next() - 1)) : framePeriodMs;
  }
}

export function createStepper<P extends Protocol>(options: StepperOptions<P>): Stepper<P> {
  return new Stepper(options);
}
