// A whole game in one page: an authoritative server and its clients over the
// loopback transport. The server runs on the real clock (`server.start()` with
// realTimeScheduler); each client's transport goes through the seeded real-time
// link conditioner; `network.deliver()` runs once per animation frame. Nothing is
// shared between scenes: a story creates one on mount and disposes it on unmount.
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
  type ServerOptions,
  type SystemDef,
} from 'react-netcode';
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
  /** Display frames run since the scene started (each delivered the loopback once). */
  readonly frames: number;
  /** A transport factory for <NetcodeProvider transport>: one conditioned loopback client per call. */
  transport(link: LinkConditions): () => ConditionedClientTransport;
  /** Called every animation frame after `network.deliver()`. Returns an unsubscribe. */
  onFrame(listener: (now: number) => void): () => void;
  dispose(): void;
}

export function createLoopbackScene<P extends Protocol>(options: SceneOptions<P>): LoopbackScene<P> {
  const network = new LoopbackNetwork();
  const server = createServer<P>({
    protocol: options.protocol,
    systems: options.systems ?? [],
    transport: network.server,
    scheduler: realTimeScheduler,
    ...(options.log ? { log: options.log } : {}),
    ...options.server,
  } as ServerOptions<P>);
  options.setup?.(server);
  server.start();

  const listeners = new Set<(now: number) => void>();
  let frames = 0;
  let disposed = false;
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

  return {
    network,
    server,
    get frames() {
      return frames;
    },
    transport: (link) => () => conditionClient(network.createClient(), { seed: link.seed, up: link.up, down: link.down }, realTimeScheduler),
    onFrame(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      cancelAnimationFrame(raf);
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
