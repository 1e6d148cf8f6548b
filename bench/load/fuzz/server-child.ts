// The fuzz target over socket.io, in a process of its own: react-netcode's server with its
// socket.io transport on 127.0.0.1, start() on the real clock, watched by the ServerGuard
// (tick() wrapped, uncaught exceptions and rejections counted as escapes). Speaks a tiny
// IPC protocol: it sends { ready, port }, answers { report } with its tally, ends on { stop }.
// (To be hosted by bench/load's server process once that harness is on main.)
import { createServer } from '../../../src/core/server.ts';
import { createSocketIoServerTransport } from '../../../src/socket-io/server.ts';
import { realTimeScheduler } from '../../../src/transport/scheduler.ts';
import { ServerGuard } from './guard.ts';
import { FUZZ_SERVER_LIMITS } from './loopback.ts';
import { attachFuzzHandlers, fuzzProtocol, fuzzServerOptions, fuzzSystems } from './protocol.ts';

if (typeof process.send !== 'function') {
  console.error('react-netcode: bench/load/fuzz/server-child.ts runs as a child with an IPC channel; fuzzSocketIo() starts it.');
  process.exit(2);
}

const guard = new ServerGuard();
process.on('uncaughtException', (error) => guard.escaped(error));
process.on('unhandledRejection', (error) => guard.escaped(error));

const transport = createSocketIoServerTransport({ host: '127.0.0.1', port: 0 });
const server = createServer({
  protocol: fuzzProtocol,
  systems: fuzzSystems,
  transport: guard.wrap(transport),
  scheduler: realTimeScheduler,
  log: () => {},
  ...fuzzServerOptions(),
  ...FUZZ_SERVER_LIMITS,
});
attachFuzzHandlers(server);
guard.watch(server);
server.start();
const { port } = await transport.ready();
process.send({ type: 'ready', port });

process.on('message', (message: { type: string }) => {
  if (message.type === 'report') process.send!({ type: 'report', tally: guard.tally() });
  else if (message.type === 'stop') {
    server.close('fuzz over');
    setTimeout(() => process.exit(0), 200);
  }
});
process.on('disconnect', () => process.exit(0));
