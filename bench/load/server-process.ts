// Load harness: the server process. Started by server-control.ts as
// `node --import tsx bench/load/server-process.ts` with an IPC channel; runs one server
// at a time (react-netcode's, the raw socket.io baseline, the fuzz target or the flood
// bench's server) and answers the requests
// of ipc.ts. It has the machine's cores to itself as much as any process here, so its
// loop and its measurements are not slowed by the clients' frame loops.
import { startCcuServer } from './ccu/ccu-server.ts';
import { startFloodServer } from './flood/flood-server.ts';
import { startFuzzServer } from './fuzz/fuzz-server.ts';
import { startNetcodeServer } from './netcode-server.ts';
import type { Reply, Request } from './ipc.ts';
import { startRawServer } from './raw-server.ts';
import type { RunningServer } from './server-kit.ts';

if (typeof process.send !== 'function') {
  console.error('react-netcode: bench/load/server-process.ts runs as a child with an IPC channel; start it through spawnServerProcess() (bench/load/server-control.ts).');
  process.exit(2);
}

let running: RunningServer | undefined;

async function handle(request: Request): Promise<unknown> {
  switch (request.type) {
    case 'start': {
      if (running) throw new Error('react-netcode: a server is already running in this process; send stop first.');
      const config = request.config;
      running =
        config.mode === 'netcode' ? await startNetcodeServer(config)
        : config.mode === 'raw' ? await startRawServer(config)
        : config.mode === 'fuzz' ? await startFuzzServer(config)
        : config.mode === 'ccu' ? await startCcuServer(config)
        : await startFloodServer(config);
      return { port: running.port, endpoints: running.endpoints };
    }
    case 'stop': {
      const r = running;
      running = undefined;
      await r?.stop();
      return null;
    }
    case 'exit':
      setImmediate(() => process.exit(0));
      return null;
    default: {
      if (!running) throw new Error(`react-netcode: '${request.type}' needs a running server; send start first.`);
      if (request.type === 'mark') running.mark();
      else if (request.type === 'quiesce') running.quiesce();
      else return running.report();
      return null;
    }
  }
}

// Requests run one at a time, in order.
let queue: Promise<void> = Promise.resolve();
process.on('message', (message: { id: number; request: Request }) => {
  queue = queue.then(async () => {
    let reply: Reply;
    try {
      reply = { id: message.id, ok: true, value: await handle(message.request) };
    } catch (error) {
      reply = { id: message.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
    process.send!(reply);
  });
});
// The harness went away: nothing more to serve.
process.on('disconnect', () => process.exit(0));
