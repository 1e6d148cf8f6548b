// The flood bench's server as a server mode of the load harness's server process
// (server-process.ts, config { mode: 'flood', limitsOff }): the fuzz game's server
// (fuzz/game-server.ts) with the default limits, or with the handshake limits off. Measured from the mark: every tick()'s duration, RSS (after a
// forced GC at the mark, then sampled every 100 ms), the most pending peers and open file
// descriptors; its report carries them in `flood`.
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startGameServer } from '../fuzz/game-server.ts';
import type { FloodServerConfig, ServerReport } from '../ipc.ts';
import { percentile } from '../measure.ts';
import type { RunningServer } from '../server-kit.ts';

/** What the flood bench reads from the server process over its window. */
export interface FloodFigures {
  ticks: number;
  tickP50Ms: number;
  tickP99Ms: number;
  tickMaxMs: number;
  rssMarkMB: number;
  rssMaxMB: number;
  rssEndMB: number;
  /** Heap in use after a forced GC at the mark and at the report: what the window left retained. */
  heapMarkMB: number;
  heapEndMB: number;
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
  let times: number[] = [];
  const game = await startGameServer({
    stallFloorMs: config.stallFloorMs,
    server: config.limitsOff ? { maxPendingPeers: Infinity, maxHandshakesPerSecond: Infinity, maxConnections: 65_000 } : {},
    before: (server) => {
      const tick = server.tick.bind(server);
      server.tick = () => {
        const t0 = performance.now();
        tick();
        times.push(performance.now() - t0);
      };
    },
  });
  const { server, io } = game;
  const fds = (): number => readdirSync('/proc/self/fd').length;
  const window = { rssMark: 0, rssMax: 0, heapMark: 0, pendingMax: 0, fdMax: 0 };
  const sampler = setInterval(() => {
    window.rssMax = Math.max(window.rssMax, process.memoryUsage().rss);
    window.pendingMax = Math.max(window.pendingMax, server.pendingPeers);
    window.fdMax = Math.max(window.fdMax, fds());
  }, 100);
  return {
    port: game.port,
    mark() {
      gc();
      times = [];
      game.mark();
      const { rss, heapUsed } = process.memoryUsage();
      Object.assign(window, { rssMark: rss, rssMax: rss, heapMark: heapUsed, pendingMax: server.pendingPeers, fdMax: fds() });
    },
    quiesce() {},
    report(): ServerReport {
      const sorted = [...times].sort((a, b) => a - b);
      const rssEnd = process.memoryUsage().rss;
      gc();
      const flood: FloodFigures = {
        ticks: times.length,
        tickP50Ms: percentile(sorted, 0.5),
        tickP99Ms: percentile(sorted, 0.99),
        tickMaxMs: sorted.at(-1) ?? Number.NaN,
        rssMarkMB: window.rssMark / 2 ** 20,
        rssMaxMB: window.rssMax / 2 ** 20,
        rssEndMB: rssEnd / 2 ** 20,
        heapMarkMB: window.heapMark / 2 ** 20,
        heapEndMB: process.memoryUsage().heapUsed / 2 ** 20,
        pendingMax: window.pendingMax,
        fdMax: window.fdMax,
        engineClients: io.io.engine.clientsCount,
        refusedPeers: server.limitTotals.refusedPeers,
      };
      return { ...game.report('flood'), flood };
    },
    async stop() {
      clearInterval(sampler);
      await game.stop();
    },
  };
}
