// The fuzz target as a server mode of the load harness's server process (server-process.ts,
// config { mode: 'fuzz' }): react-netcode's server with the fuzz game, its socket.io transport
// on 127.0.0.1, start() on the real clock (stalls recorded by the harness's timed scheduler),
// limits raised for the fuzzer's reconnects (FUZZ_SERVER_LIMITS), watched by the ServerGuard:
// tick() wrapped, uncaught exceptions and rejections of the process counted as escapes.
// Its report carries the guard's tally in `fuzz`.
import { createServer } from '../../../src/core/server.ts';
import { createSocketIoServerTransport } from '../../../src/socket-io/server.ts';
import { realTimeScheduler } from '../../../src/transport/scheduler.ts';
import type { FuzzServerConfig, ServerReport } from '../ipc.ts';
import { GapRecorder, wallNow } from '../measure.ts';
import { collectWarnings, SocketCounter, timedScheduler, type RunningServer } from '../server-kit.ts';
import { ServerGuard } from './guard.ts';
import { FUZZ_SERVER_LIMITS } from './loopback.ts';
import { attachFuzzHandlers, fuzzProtocol, fuzzServerOptions, fuzzSystems } from './protocol.ts';

export async function startFuzzServer(config: FuzzServerConfig): Promise<RunningServer> {
  const guard = new ServerGuard();
  const escaped = (error: unknown): void => guard.escaped(error);
  process.on('uncaughtException', escaped);
  process.on('unhandledRejection', escaped);
  const io = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
  const loopGaps = new GapRecorder(config.stallFloorMs ?? 8);
  const warnings = collectWarnings();
  const sockets = new SocketCounter(io.io.httpServer);
  const server = createServer({
    protocol: fuzzProtocol,
    systems: fuzzSystems,
    transport: guard.wrap(io),
    scheduler: timedScheduler(realTimeScheduler, loopGaps),
    log: warnings.log,
    ...fuzzServerOptions(),
    ...FUZZ_SERVER_LIMITS,
  });
  attachFuzzHandlers(server);
  guard.watch(server);
  const { port } = await io.ready();
  server.start();
  let markAt = wallNow();
  return {
    port,
    mark() {
      markAt = wallNow();
      sockets.mark();
    },
    quiesce() {},
    report(): ServerReport {
      const stalls = loopGaps.since(markAt);
      return {
        mode: 'fuzz',
        markAt,
        at: wallNow(),
        tickRate: fuzzProtocol.tickRate,
        stalls,
        maxStallMs: stalls.reduce((m, g) => Math.max(m, g.excessMs), 0),
        wire: sockets.sinceMark(),
        warnings: warnings.since(markAt),
        connections: [],
        raw: [],
        fuzz: guard.tally(),
      };
    },
    async stop() {
      server.close('fuzz over');
      await io.io.close();
      process.off('uncaughtException', escaped);
      process.off('unhandledRejection', escaped);
    },
  };
}
