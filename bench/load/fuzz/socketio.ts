// The fuzzer over real socket.io on 127.0.0.1, the server in its own process (the load
// harness's server process in fuzz mode: fuzz-server.ts). Fuzzing connections run concurrently, each a loop: connect, reach the
// state drawn for it (pending, connected, in game) with valid messages, then rounds of
// generated packets, each followed by a probe Ping whose Pong says it was handled; a
// round ends when every probe came back or the connection closed, so each close is
// attributed to its packet. A well-behaved client plays alongside on a 60 Hz frame loop.
import { performance } from 'node:perf_hooks';
import { Rng } from '../../../src/core/rng.ts';
import { MessageKind } from '../../../src/core/wire.ts';
import { createSocketIoClientTransport } from '../../../src/socket-io/client.ts';
import { ServerProcess } from '../server-control.ts';
import { FuzzGenerator } from './generate.ts';
import { GoodClient } from './good-client.ts';
import { PROBE_BASE, Round, tallyRound, type FuzzRunOptions } from './loopback.ts';
import { FuzzPeer } from './peer.ts';
import { fuzzProtocol } from './protocol.ts';
import { emptyRows, emptyVariants, mergeServer, type FuzzReport } from './report.ts';

/** Longest wait for a reply (the machine may be loaded: 3× the usual). */
const WAIT_MS = 5000;

/** Wait until `done()` or the peer closes or `ms` pass (each change of the peer re-checks). */
async function until(peer: FuzzPeer, done: () => boolean, ms = WAIT_MS): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!done() && !peer.closed) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await peer.changeOrTimeout(left);
  }
  return done();
}

export async function fuzzSocketIo(options: FuzzRunOptions): Promise<FuzzReport> {
  const started = performance.now();
  const child = ServerProcess.spawn({ timeoutMs: 60_000 });
  const port = await child.start({ mode: 'fuzz' });
  const url = `http://127.0.0.1:${port}`;
  const generator = new FuzzGenerator(fuzzProtocol, options.seed);
  const rng = new Rng(options.seed ^ 0x5eed);
  const rows = emptyRows();
  const variants = emptyVariants();
  const burst = options.burst ?? 6;
  const stats = { handled: 0, ignored: 0, reconnects: 0, stamp: 0, stuck: 0 };
  const good = new GoodClient(createSocketIoClientTransport(url), (bytes) => generator.capture(bytes), () => performance.now());
  const frames = setInterval(() => good.frame(performance.now()), 1000 / 60);
  try {
    const joinBy = performance.now() + 20_000;
    while (!good.inGame && performance.now() < joinBy) await new Promise((r) => setTimeout(r, 20));
    if (!good.inGame) throw new Error('react-netcode: the fuzzer’s well-behaved client could not join the socket.io server.');

    const worker = async (): Promise<void> => {
      const round = new Round();
      while (stats.handled < options.packets) {
        const peer = new FuzzPeer(createSocketIoClientTransport(url), fuzzProtocol);
        stats.reconnects++;
        const target = rng.chance(0.15) ? 'pending' : rng.chance(0.2) ? 'connected' : 'in-game';
        await until(peer, () => peer.open);
        if (target !== 'pending' && peer.open) {
          peer.hello();
          await until(peer, () => peer.state !== 'pending');
        }
        if (target === 'in-game' && peer.state === 'connected') {
          peer.clearReplies();
          peer.send(generator.valid(MessageKind.Join, peer), 'reliable');
          await until(peer, () => peer.state === 'in-game' || peer.replies > 0);
        }
        while (!peer.closed && peer.open && stats.handled < options.packets) {
          round.clear();
          peer.clearReplies();
          const pending = peer.state === 'pending';
          for (let k = 0; k < (pending ? 1 : burst); k++) {
            const packet = generator.next(peer);
            peer.send(packet.bytes, packet.channel);
            round.packets.push(packet);
            if (pending) round.stamps.push(-1);
            else {
              const s = (PROBE_BASE | (stats.stamp++ & 0x0fff_ffff)) >>> 0;
              peer.ping(s);
              round.stamps.push(s);
            }
          }
          // Before the handshake every message is answered; after it, the probes are.
          const done = pending ? () => peer.replies > 0 : () => round.stamps.every((s) => peer.echoes.has(s));
          if (!(await until(peer, done)) && !peer.closed) {
            stats.stuck++; // no answer in time: counted, and the connection replaced
            break;
          }
          const handled = tallyRound(round, peer.closed, peer.echoes, rows, variants);
          stats.handled += handled;
          stats.ignored += round.packets.length - handled;
        }
        if (!peer.closed) peer.close();
      }
    };
    await Promise.all(Array.from({ length: options.connections ?? 32 }, worker));
    await new Promise((r) => setTimeout(r, 500)); // the good client sees the ticks after the last packets
    const server = (await child.report()).fuzz!;
    const report: FuzzReport = {
      transport: 'socket.io',
      seed: options.seed,
      packets: stats.handled,
      seconds: (performance.now() - started) / 1000,
      connections: options.connections ?? 32,
      reconnects: stats.reconnects,
      ignored: stats.ignored,
      rows,
      variants,
      server,
      good: good.report(),
    };
    if (stats.stuck > 0) report.good.stateErrors.push(`${stats.stuck} fuzz rounds got no answer within ${WAIT_MS} ms`);
    mergeServer(report.rows, report.server);
    return report;
  } finally {
    clearInterval(frames);
    good.client.leave('fuzz over');
    await child.exit();
  }
}
