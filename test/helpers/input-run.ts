// Set-up shared by the input pipeline tests (test/prediction/inputs.test.ts and
// redundancy.test.ts): one runner client over a conditioned link, its ghost on both
// sides, the server's input statistics as deltas, and a hook that drops chosen Input
// packets (message kind 11) before they reach the link.
import { defineSystems, type Logger, type SystemDef } from '../../src/index.ts';
import { createStepper, type LinkOptions, type StepperClientOptions } from '../../src/testing/index.ts';
import type { ClientTransport } from '../../src/core/transport.ts';
import { forEachMessage } from '../../src/core/outbox.ts';
import { MessageKind } from '../../src/core/wire.ts';
import { runnerProtocol, runnerSystems, type RunnerProtocol } from './runner.ts';

export const quiet: Logger = () => {};
export const FRAME_MS = 1000 / 60; // the client's 60 Hz frame = one server tick

export type InputStats = { received: number; duplicates: number; late: number; early: number; missing: number; repeated: number; neutral: number; clamped: number };

export interface RunOptions {
  seed?: number;
  /** Both directions; omitted = a perfect link. */
  link?: LinkOptions;
  engine?: StepperClientOptions['engine'];
  systems?: readonly SystemDef<RunnerProtocol>[];
}

/** One client joined with its runner spawned, prediction started and 2 s of clock sync behind it. */
export function inputRun(options: RunOptions = {}) {
  const link = options.link;
  const s = createStepper({
    protocol: runnerProtocol,
    systems: options.systems ?? defineSystems(runnerProtocol, runnerSystems),
    seed: options.seed ?? 9,
    log: quiet,
    clients: [{ ...(link ? { link: { up: link, down: link } } : {}), ...(options.engine ? { engine: options.engine } : {}) }],
  });
  s.server.events.on('join', (c) => s.server.spawn('runner', {}, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  const c = s.clients[0]!;
  const client = c.client;
  s.until(() => client.world.size === 1 && client.prediction!.lastTick !== undefined, 5000, 'prediction to start');
  s.advance(2000); // clock sync settles
  const me = [...client.world.query('runner')][0]!;
  const serverGhost = s.server.world.get(me.id)!;
  const connection = s.server.connections.get(client.networkId!)!;
  const stats = (): InputStats => ({ ...s.server.inputStats(connection)! });
  /** Counters that changed since `before`. */
  const since = (before: InputStats): InputStats => {
    const now = stats();
    for (const k of Object.keys(now) as (keyof InputStats)[]) now[k] -= before[k];
    return now;
  };
  /** The confirmed (replicated) state of the client's own runner, at its newest confirmed tick. */
  const confirmed = () => {
    const rec = client.ghosts.record(me.id)!;
    return rec.history.get(rec.confirmedTick) as { jumps: number; position: { x: number } }; // GhostRecord is untyped
  };
  return { s, c, client, me, serverGhost, stats, since, confirmed };
}

export interface InputDropper {
  /** Input packets the client sent since `enabled` became true (dropped ones included). */
  sent: number;
  dropped: number;
  enabled: boolean;
}

/** True when a transport write carries an Input message (alone or in a frame's Batch). */
export function carriesInput(data: Uint8Array): boolean {
  let found = false;
  forEachMessage(data, (m) => void (found ||= m[0] === MessageKind.Input));
  return found;
}

/**
 * Drop the writes carrying an Input chosen by `drop(n)`, n = 0, 1, 2 … counting the Input
 * writes sent while `enabled` (a frame's Batch goes or stays whole, as one packet would);
 * every other write (pings, acks, RPCs) passes. Writes are dropped before the link
 * conditioner sees them, so its seeded choices are unchanged.
 */
export function dropInputs(c: { readonly transport: ClientTransport }, drop: (n: number) => boolean): InputDropper {
  const state: InputDropper = { sent: 0, dropped: 0, enabled: false };
  const send = c.transport.send.bind(c.transport);
  c.transport.send = (data, channel) => {
    if (state.enabled && carriesInput(data)) {
      const n = state.sent++;
      if (drop(n)) {
        state.dropped++;
        return;
      }
    }
    send(data, channel);
  };
  return state;
}
