// What the fuzz and flood server modes share: react-netcode's server playing the fuzz game on
// its socket.io transport (127.0.0.1), start() on the real clock through the harness's timed
// scheduler (loop stalls), its sockets' TCP bytes and its warnings collected, and the fields
// of a report every mode has (the window, stalls, bytes, warnings).
import { NetServer, type ServerOptions } from '../../../src/core/server.ts';
import type { ServerTransport } from '../../../src/core/transport.ts';
import { createSocketIoServerTransport, type SocketIoServerTransport } from '../../../src/socket-io/server.ts';
import { realTimeScheduler } from '../../../src/transport/scheduler.ts';
import type { ServerConfig, ServerReport } from '../ipc.ts';
import { GapRecorder, wallNow } from '../measure.ts';
import { collectWarnings, SocketCounter, timedScheduler } from '../server-kit.ts';
import { attachFuzzHandlers, fuzzProtocol, fuzzServerOptions, fuzzSystems, type FuzzProtocol } from './protocol.ts';

export interface GameServer {
  readonly server: NetServer<FuzzProtocol>;
  readonly io: SocketIoServerTransport;
  readonly port: number;
  /** Start a window (report fields count from here). */
  mark(): void;
  /** The fields every mode's report has, for the window since `mark()`. */
  report(mode: ServerConfig['mode']): ServerReport;
  stop(): Promise<void>;
}

export async function startGameServer(options: {
  stallFloorMs?: number | undefined;
  /** The transport the server sees (e.g. the fuzz guard's wrapper). */
  wrap?: (io: ServerTransport) => ServerTransport;
  /** Extra server options (limits). */
  server?: Partial<ServerOptions<FuzzProtocol>>;
  /** Called with the server before start() (wrap tick, watch events). */
  before?: (server: NetServer<FuzzProtocol>) => void;
}): Promise<GameServer> {
  const io = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
  const loopGaps = new GapRecorder(options.stallFloorMs ?? 8);
  const warnings = collectWarnings();
  const sockets = new SocketCounter(io.io.httpServer);
  const server = new NetServer({
    protocol: fuzzProtocol,
    systems: fuzzSystems,
    transport: options.wrap ? options.wrap(io) : io,
    scheduler: timedScheduler(realTimeScheduler, loopGaps),
    log: warnings.log,
    ...fuzzServerOptions(),
    ...options.server,
  });
  attachFuzzHandlers(server);
  options.before?.(server);
  const { port } = await io.ready();
  server.start();
  let markAt = wallNow();
  return {
    server,
    io,
    port,
    mark() {
      markAt = wallNow();
      sockets.mark();
    },
    report(mode) {
      const stalls = loopGaps.since(markAt);
      return {
        mode,
        markAt,
        at: wallNow(),
        tickRate: fuzzProtocol.tickRate,
        stalls,
        maxStallMs: stalls.reduce((m, g) => Math.max(m, g.excessMs), 0),
        wire: sockets.sinceMark(),
        warnings: warnings.since(markAt),
        connections: [],
        raw: [],
      };
    },
    async stop() {
      server.close('run over');
      await io.io.close();
    },
  };
}
