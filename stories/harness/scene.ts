// A whole game in one page: an authoritative server and its clients over the
// loopback transport. In real time the server runs on the real clock (`server.start()`
// with realTimeScheduler), each client's transport goes through the seeded real-time
// link conditioner and `network.deliver()` runs once per animation frame. In
// deterministic mode (a FixedFrameLoop, see frameloop.ts) all of that runs on the
// loop's virtual clock instead, and the scene hands its clients that clock
// (`clientClock` for <NetcodeProvider clock>, `frameNow` for <NetcodeFrame now>).
// Nothing is shared between scenes but the loop: a story creates one on mount and
// disposes it on unmount.
import {
  conditionClient,
  createServer,
  LoopbackNetwork,
  realTimeScheduler,
  type ConditionedClientTransport,
  type LinkOptions,
  type Logger,
  type NetServer,
  type Protocol,
  type Scheduler,
  type ServerOptions,
  type SystemDef,
} from 'react-netcode';
import type { NetcodeFrameProps } from 'react-netcode/r3f';
import type { FrameClock } from 'react-netcode/react';
import type { FixedFrameLoop } from './frameloop.ts';
import { storyState } from './story-state.ts';

/** Link conditions of one client, both directions. */
export interface LinkConditions {
  seed: number;
  up: LinkOptions;
  down: LinkOptions;
}

export interface SceneOptions<P extends Protocol> {
  protocol: P;
  systems?: readonly SystemDef<P>[];
  /** Extra server options (everything but protocol, systems, transport and scheduler). */
  server?: Partial<Omit<ServerOptions<P>, 'protocol' | 'systems' | 'transport' | 'scheduler'>>;
  /** Called once after the server is created and before it starts: spawn the level, listen for joins. */
  setup?: (server: NetServer<P>) => void;
  log?: Logger;
}

export interface LoopbackScene<P extends Protocol> {
  readonly network: LoopbackNetwork;
  readonly server: NetServer<P>;
  /** Display frames run since the scene started (each delivered the loopback once); in deterministic mode the loop's frame number. */
  readonly frames: number;
  /** True on a FixedFrameLoop (virtual clock, fixed frame time). */
  readonly deterministic: boolean;
  /** The clock the server, the link conditioners and `every` run on. */
  readonly scheduler: Scheduler;
  /** The scene's time in ms: `performance.now()` in real time, virtual in deterministic mode. For readouts (e.g. a latency in ms). */
  now(): number;
  /** For <NetcodeProvider clock>: undefined (the default clock) in real time, the loop's virtual clock in deterministic mode. */
  readonly clientClock: FrameClock | undefined;
  /** For <NetcodeFrame now>: undefined (R3F's frame clock) in real time, the virtual time in deterministic mode. */
  readonly frameNow: NetcodeFrameProps['now'];
  /** A transport factory for <NetcodeProvider transport>: one conditioned loopback client per call. */
  transport(link: LinkConditions): () => ConditionedClientTransport;
  /** Run `fn` every `ms` on the scene's clock (a bot's button presses): setInterval in real time, virtual timers in deterministic mode. Returns the cancel. */
  every(ms: number, fn: () => void): () => void;
  /** Called every frame after `network.deliver()`. Returns an unsubscribe. */
  onFrame(listener: (now: number) => void): () => void;
  dispose(): void;
}

export function createLoopbackScene<P extends Protocol>(options: SceneOptions<P>, loop: FixedFrameLoop | null = null): LoopbackScene<P> {
  const scheduler: Scheduler = loop ? loop.scheduler : realTimeScheduler;
  const network = new LoopbackNetwork();
  const server = createServer<P>({
    protocol: options.protocol,
    systems: options.systems ?? [],
    transport: network.server,
    scheduler,
    ...(options.log ? { log: options.log } : {}),
    ...options.server,
  } as ServerOptions<P>);
  options.setup?.(server);
  server.start();

  const listeners = new Set<(now: number) => void>();
  const timers = new Set<() => void>();
  let frames = 0;
  let disposed = false;
  let stopFrames: () => void;
  if (loop) {
    const offDelivery = loop.addDelivery(() => network.deliver());
    const offFrame = loop.onFrame((now) => {
      frames = loop.status.frame;
      for (const l of listeners) l(now);
    });
    stopFrames = () => {
      offDelivery();
      offFrame();
    };
  } else {
    let raf = 0;
    const frame = (now: number): void => {
      if (disposed) return;
      network.deliver();
      frames++;
      storyState().frames = frames;
      for (const l of listeners) l(now);
      raf = requestAnimationFrame(frame);
    };
    raf = requestAnimationFrame(frame);
    stopFrames = () => cancelAnimationFrame(raf);
  }

  return {
    network,
    server,
    get frames() {
      return frames;
    },
    deterministic: loop !== null,
    scheduler,
    now: loop ? loop.now : () => performance.now(),
    clientClock: loop?.clientClock,
    frameNow: loop ? () => loop.now() : undefined,
    transport: (link) => () => conditionClient(network.createClient(), { seed: link.seed, up: link.up, down: link.down }, scheduler),
    every(ms, fn) {
      let cancel: () => void;
      if (loop) {
        let handle = scheduler.setTimeout(function tick() {
          handle = scheduler.setTimeout(tick, ms);
          fn();
        }, ms);
        cancel = () => scheduler.clearTimeout(handle);
      } else {
        const id = setInterval(fn, ms);
        cancel = () => clearInterval(id);
      }
      const entry = (): void => {
        timers.delete(entry);
        cancel();
      };
      timers.add(entry);
      return entry;
    },
    onFrame(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      stopFrames();
      for (const cancel of [...timers]) cancel();
      listeners.clear();
      server.close('story unmounted');
      network.deliver();
    },
  };
}

/** The stories' runner: x follows the input axis at `speed` m/s, clamped to ±`limit`. */
export function runX(pos: { x: number }, move: number, speed: number, limit: number, dt: number): void {
  pos.x = Math.max(-limit, Math.min(limit, pos.x + move * speed * dt));
}
