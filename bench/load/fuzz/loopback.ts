// The fuzzer over the in-memory loopback: the server runs with start() on a virtual
// clock (so a run is deterministic for its seed and as fast as the CPU allows), N fuzzing
// connections each send one generated packet per server tick, and a well-behaved client
// plays alongside. After each tick the runner knows exactly which packet closed which
// connection; a closed one reconnects (to a state drawn anew: pending, connected, in game).
import { performance } from 'node:perf_hooks';
import { NetServer } from '../../../src/core/server.ts';
import { LoopbackNetwork } from '../../../src/transport/loopback.ts';
import { VirtualScheduler } from '../../../src/transport/scheduler.ts';
import { MessageKind } from '../../../src/core/wire.ts';
import { FuzzGenerator, type Packet } from './generate.ts';
import { GoodClient } from './good-client.ts';
import { ServerGuard } from './guard.ts';
import { FuzzPeer } from './peer.ts';
import { attachFuzzHandlers, fuzzProtocol, fuzzServerOptions, fuzzSystems } from './protocol.ts';
import { emptyRows, emptyVariants, kindLabel, mergeServer, type FuzzReport } from './report.ts';
import { Rng } from '../../../src/core/rng.ts';

export interface FuzzRunOptions {
  packets: number;
  seed: number;
  /** Fuzzing connections at once (default 48). */
  connections?: number;
  /** Packets a connection past its handshake sends per tick, each followed by a probe Ping (default 6). */
  burst?: number;
  /** Stop early after this many escapes and lost ticks (a broken server wedges: default 100). */
  maxFailures?: number;
}

/**
 * Server options of every fuzz run: handshakes and messages fast enough for the fuzzer's
 * reconnects and bursts (the limits themselves are tested in test/security/limits.test.ts
 * and measured by the flood bench).
 */
export const FUZZ_SERVER_LIMITS = { maxPendingPeers: 4096, maxHandshakesPerSecond: 100_000, maxConnections: 4096, maxMessagesPerSecond: 100_000, maxBytesPerSecond: 64 * 1024 * 1024 };

type Target = 'pending' | 'connected' | 'in-game';

/** Probe Pings carry stamps in a range of their own (a fuzz Ping hitting one by chance is 1 in 16). */
export const PROBE_BASE = 0xf000_0000;

/**
 * Packets a connection sent in one round (each with its probe stamp), and which of them
 * closed it: the first whose probe never came back, when the connection closed.
 */
export class Round {
  readonly packets: Packet[] = [];
  readonly stamps: number[] = [];
  clear(): void {
    this.packets.length = 0;
    this.stamps.length = 0;
  }
  /** Index of the packet that closed the connection: the first whose probe never came back (the last when all did). */
  closer(echoes: ReadonlySet<number>): number {
    for (let i = 0; i < this.packets.length; i++) if (this.stamps[i] === -1 || !echoes.has(this.stamps[i]!)) return i;
    return this.packets.length - 1;
  }
}

/**
 * Tally a finished round: every packet the server handled is "sent" (those after the one
 * that closed the connection reached a closed connection and count as ignored).
 */
export function tallyRound(round: Round, closed: boolean, echoes: ReadonlySet<number>, rows: FuzzReport['rows'], variants: FuzzReport['variants']): number {
  const n = round.packets.length;
  if (n === 0) return 0;
  const last = closed ? round.closer(echoes) : n - 1;
  for (let i = 0; i <= last; i++) {
    const packet = round.packets[i]!;
    rows[kindLabel(packet.bytes)].sent++;
    variants[packet.variant].sent++;
  }
  if (closed) {
    const packet = round.packets[last]!;
    rows[kindLabel(packet.bytes)].closed++;
    variants[packet.variant].closed++;
  }
  return last + 1;
}

interface Slot {
  peer: FuzzPeer;
  target: Target;
  readonly round: Round;
}

export function fuzzLoopback(options: FuzzRunOptions): FuzzReport {
  const started = performance.now();
  const scheduler = new VirtualScheduler();
  const network = new LoopbackNetwork();
  const guard = new ServerGuard();
  const server = new NetServer({
    protocol: fuzzProtocol,
    systems: fuzzSystems,
    transport: guard.wrap(network.server),
    scheduler,
    log: () => {},
    ...fuzzServerOptions(),
    ...FUZZ_SERVER_LIMITS,
  });
  attachFuzzHandlers(server);
  guard.watch(server);
  server.start();
  const generator = new FuzzGenerator(fuzzProtocol, options.seed);
  const rng = new Rng(options.seed ^ 0x5eed);
  const good = new GoodClient(network.createClient(), (bytes) => generator.capture(bytes), () => scheduler.now());
  const rows = emptyRows();
  const variants = emptyVariants();
  const burst = options.burst ?? 6;
  let reconnects = 0;
  let ignored = 0;
  let stamp = 0;
  const drawTarget = (): Target => (rng.chance(0.15) ? 'pending' : rng.chance(0.2) ? 'connected' : 'in-game');
  const connect = (): Slot => ({ peer: new FuzzPeer(network.createClient(), fuzzProtocol), target: drawTarget(), round: new Round() });
  const slots: Slot[] = Array.from({ length: options.connections ?? 48 }, connect);

  const step = (): void => {
    network.deliver();
    // Exactly one server tick per step (the loop runs on the virtual clock).
    const before = server.currentTick;
    for (let i = 0; i < 100 && server.currentTick === before; i++) scheduler.advanceTo(scheduler.now() + (i === 0 ? fuzzProtocol.stepMs : 1));
    network.deliver();
    good.frame(scheduler.now());
  };

  // The good client joins first.
  for (let i = 0; i < 600 && !good.inGame; i++) step();
  if (!good.inGame) throw new Error('react-netcode: the fuzzer’s well-behaved client could not join the loopback server.');
  let sent = 0;
  while (sent < options.packets && guard.failures <= (options.maxFailures ?? 100)) {
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      slot.round.clear();
      const p = slot.peer;
      if (p.closed) {
        slots[i] = connect();
        reconnects++;
        continue;
      }
      if (!p.open) continue;
      // Drive the connection to its target state with valid messages (not counted).
      if (p.state === 'pending' && slot.target !== 'pending') {
        p.hello();
        continue;
      }
      if (p.state === 'connected' && slot.target === 'in-game') {
        p.send(generator.valid(MessageKind.Join, p), 'reliable');
        slot.target = 'connected'; // once: a refused join leaves it fuzzing while connected
        continue;
      }
      p.clearReplies();
      // Before the handshake anything but a Hello is answered (Refuse), so one packet and no probe.
      const n = p.state === 'pending' ? 1 : burst;
      for (let k = 0; k < n && sent < options.packets; k++) {
        const packet = generator.next(p);
        p.send(packet.bytes, packet.channel);
        slot.round.packets.push(packet);
        if (p.state === 'pending') slot.round.stamps.push(-1);
        else {
          const s = (PROBE_BASE | (stamp++ & 0x0fff_ffff)) >>> 0;
          p.ping(s);
          slot.round.stamps.push(s);
        }
      }
    }
    step();
    for (const slot of slots) {
      const handled = tallyRound(slot.round, slot.peer.closed, slot.peer.echoes, rows, variants);
      sent += handled;
      ignored += slot.round.packets.length - handled;
    }
  }
  for (let i = 0; i < 30 && guard.failures <= (options.maxFailures ?? 100); i++) step(); // the last packets are handled; the good client sees the ticks after them
  const report: FuzzReport = {
    transport: 'loopback',
    seed: options.seed,
    packets: sent,
    seconds: (performance.now() - started) / 1000,
    connections: slots.length,
    reconnects,
    ignored,
    rows,
    variants,
    server: guard.tally(),
    good: good.report(),
  };
  mergeServer(report.rows, report.server);
  server.stop();
  return report;
}
