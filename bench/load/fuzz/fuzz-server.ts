// The fuzz target as a server mode of the load harness's server process (server-process.ts,
// config { mode: 'fuzz' }): the fuzz game's server (game-server.ts) with its limits raised for
// the fuzzer's reconnects (FUZZ_SERVER_LIMITS), watched by the ServerGuard: tick() wrapped,
// uncaught exceptions and rejections of the process counted as escapes. Its report carries
// the guard's tally in `fuzz`.
import type { FuzzServerConfig } from '../ipc.ts';
import type { RunningServer } from '../server-kit.ts';
import { startGameServer } from './game-server.ts';
import { ServerGuard } from './guard.ts';
import { FUZZ_SERVER_LIMITS } from './loopback.ts';

export async function startFuzzServer(config: FuzzServerConfig): Promise<RunningServer> {
  const guard = new ServerGuard();
  const escaped = (error: unknown): void => guard.escaped(error);
  process.on('uncaughtException', escaped);
  process.on('unhandledRejection', escaped);
  const game = await startGameServer({ stallFloorMs: config.stallFloorMs, wrap: (io) => guard.wrap(io), server: FUZZ_SERVER_LIMITS, before: (server) => guard.watch(server) });
  return {
    port: game.port,
    mark: () => game.mark(),
    quiesce() {},
    report: () => ({ ...game.report('fuzz'), fuzz: guard.tally() }),
    async stop() {
      await game.stop();
      process.off('uncaughtException', escaped);
      process.off('unhandledRejection', escaped);
    },
  };
}
