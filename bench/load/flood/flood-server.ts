// The flood bench's server as a server mode of the load harness's server process
// (server-process.ts, config { mode: 'flood', limitsOff }): react-netcode's server with the
// fuzz game on its socket.io transport, start() on the real clock, with the default limits or
// with the handshake limits off. Measured from the mark: every tick()'s duration, RSS (after a
// forced GC at the mark, then sampled every 100 ms), the most pending peers and open file
// descriptors; its report carries them in `flood`.
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createServer } from '../../../src/core/server.ts';
import { createSocketIoServerTransport } from '../../../src/socket-io/server.ts';
import { realTimeScheduler } from '../../../src/transport/scheduler.ts';
import { attachFuzzHandlers, fuzzProtocol, fuzzServerOptions, fuzzSystems } from '../fuzz/protocol.ts';
import type { FloodServerConfig, ServerReport } from '../ipc.ts';
import { GapRecorder, percentile, wallNow } from '../measure.ts';
import { collectWarnings, SocketCounter, timedScheduler, type RunningServer } from '../server-kit.ts';

/** What the flood bench reads from the server process over its window. */
export interface FloodFigures {
  ticks: number;
  tickP50Ms: number;
  tickP99Ms: number;
  tickMaxMs: number;
  rssMarkMB: number;
  rssMaxMB: number;
  rssEndMB: number;
  pendingMax: number;
  fdMax: number;
  engineClients: number;
  refusedPeers: number;
}

/** A forced GC without --expose-gc on the command line (the harness spawns the process). */
function gcFunction(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

export async function startFloodServer(config: FloodServerConfig): Promise<RunningServer> {
  const gc = gcFunction();
  const io = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
  const loopGaps = new GapRecorder(config.stallFloorMs ?? 8);
  const warnings = collectWarnings();
  const sockets = new SocketCounter(io.io.httpServer);
  const server = createServer({
    protocol: fuzzProtocol,
    systems: fuzzSystems,
    transport: io,
    scheduler: timedScheduler(realTimeScheduler, loopGaps),
    log: warnings.log,
    ...fuzzServerOptions(),
    ...(config.limitsOff ? { maxPendingPeers: Infinity, maxHandshakesPerSecond: Infinity, maxConnections: 65_000 } : {}),
  });
  attachFuzzHandlers(server);
  let times: number[] = [];
  const tick = server.tick.bind(server);
  server.tick = () => {
    const t0 = performance.now();
    tick();
    times.push(performance.now() - t0);
  };
  const fds = (): number => readdirSync('/proc/self/fd').length;
  const window = { markAt: wallNow(), rssMark: 0, rssMax: 0, pendingMax: 0, fdMax: 0 };
  const sampler = setInterval(() => {
    window.rssMax = Math.max(window.rssMax, process.memoryUsage().rss);
    window.pendingMax = Math.max(window.pendingMax, server.pendingPeers);
    window.fdMax = Math.max(window.fdMax, fds());
  }, 100);
  const { port } = await io.ready();
  server.start();
  return {
    port,
    mark() {
      gc();
      times = [];
      sockets.mark();
      Object.assign(window, { markAt: wallNow(), rssMark: process.memoryUsage().rss, rssMax: process.memoryUsage().rss, pendingMax: server.pendingPeers, fdMax: fds() });
    },
    quiesce() {},
    report(): ServerReport {
      const sorted = [...times].sort((a, b) => a - b);
      const stalls = loopGaps.since(window.markAt);
      const flood: FloodFigures = {
        ticks: times.length,
        tickP50Ms: percentile(sorted, 0.5),
        tickP99Ms: percentile(sorted, 0.99),
        tickMaxMs: sorted.at(-1) ?? Number.NaN,
        rssMarkMB: window.rssMark / 2 ** 20,
        rssMaxMB: window.rssMax / 2 ** 20,
        rssEndMB: process.memoryUsage().rss / 2 ** 20,
        pendingMax: window.pendingMax,
        fdMax: window.fdMax,
        engineClients: io.io.engine.clientsCount,
        refusedPeers: server.limitTotals.refusedPeers,
      };
      return {
        mode: 'flood',
        markAt: window.markAt,
        at: wallNow(),
        tickRate: fuzzProtocol.tickRate,
        stalls,
        maxStallMs: stalls.reduce((m, g) => Math.max(m, g.excessMs), 0),
        wire: sockets.sinceMark(),
        warnings: warnings.since(window.markAt),
        connections: [],
        raw: [],
        flood,
      };
    },
    async stop() {
      clearInterval(sampler);
      server.close('bench over');
      await io.io.close();
    },
  };
}
