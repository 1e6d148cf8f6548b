// Flood bench, server process: react-netcode's server (the fuzz game, socket.io transport on
// 127.0.0.1, start() on the real clock) with the limits of the case — the defaults, or off.
// IPC: it sends { ready, port }; { mark } starts the measured window; { report } answers with
// tick times (every tick() timed), RSS, open file descriptors, pending peers and the limits'
// totals; { stop } ends it.
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createServer } from '../../../src/core/server.ts';
import { createSocketIoServerTransport } from '../../../src/socket-io/server.ts';
import { realTimeScheduler } from '../../../src/transport/scheduler.ts';
import { attachFuzzHandlers, fuzzProtocol, fuzzServerOptions, fuzzSystems } from '../fuzz/protocol.ts';

if (typeof process.send !== 'function') {
  console.error('react-netcode: bench/load/flood/server.ts runs as a child with an IPC channel; bench/flood.bench.ts starts it.');
  process.exit(2);
}

const limitsOff = process.argv.includes('--limits-off');
const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
const server = createServer({
  protocol: fuzzProtocol,
  systems: fuzzSystems,
  transport,
  scheduler: realTimeScheduler,
  log: () => {},
  ...fuzzServerOptions(),
  ...(limitsOff ? { maxPendingPeers: Infinity, maxHandshakesPerSecond: Infinity, maxConnections: 65_000 } : {}),
});
attachFuzzHandlers(server);

// Every tick timed, and the RSS sampled every 100 ms, within the window.
let times: number[] = [];
let rssMark = 0;
let rssMax = 0;
let pendingMax = 0;
let fdMax = 0;
const tick = server.tick.bind(server);
server.tick = () => {
  const t0 = performance.now();
  tick();
  times.push(performance.now() - t0);
};
const fds = (): number => readdirSync('/proc/self/fd').length;
const sampler = setInterval(() => {
  rssMax = Math.max(rssMax, process.memoryUsage().rss);
  pendingMax = Math.max(pendingMax, server.pendingPeers);
  fdMax = Math.max(fdMax, fds());
}, 100);
server.start();
const { port } = await transport.ready();
process.send({ type: 'ready', port });

function quantile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

process.on('message', (m: { type: string }) => {
  if (m.type === 'mark') {
    times = [];
    global.gc?.();
    rssMark = rssMax = process.memoryUsage().rss;
    pendingMax = server.pendingPeers;
    fdMax = fds();
    process.send!({ type: 'marked' });
  } else if (m.type === 'report') {
    const sorted = [...times].sort((a, b) => a - b);
    process.send!({
      type: 'report',
      ticks: times.length,
      tickP50Ms: quantile(sorted, 0.5),
      tickP99Ms: quantile(sorted, 0.99),
      tickMaxMs: sorted.at(-1) ?? NaN,
      rssMarkMB: rssMark / 2 ** 20,
      rssMaxMB: rssMax / 2 ** 20,
      rssEndMB: process.memoryUsage().rss / 2 ** 20,
      pendingMax,
      fdMax,
      engineClients: transport.io.engine.clientsCount,
      limits: server.limitTotals,
      overruns: server.stats.overruns,
    });
  } else if (m.type === 'stop') {
    clearInterval(sampler);
    server.close('bench over');
    setTimeout(() => process.exit(0), 200);
  }
});
process.on('disconnect', () => process.exit(0));
