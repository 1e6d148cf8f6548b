// CCU bench, the transport alone: CPU time per message of the socket.io transports, this
// checkout's against another's (`--root`), in one process, in rounds taken in turn. Each round
// every one of C clients sends an input-sized message (unreliable) and the server sends each
// client a snapshot-sized one (unreliable) and, every other round, a Pong-sized one; the round
// ends when all have arrived. CPU time (process.cpuUsage: both halves, they share the process)
// rather than wall time, so a loaded machine slows it without changing what it measures much.
//
//   npx tsx bench/load/ccu/transport-cost.ts --root /tmp/old-checkout [--clients 16] [--rounds 2000]
import { parseArgs } from 'node:util';
import { loadLibrary, type Library } from '../library.ts';

const { values } = parseArgs({ options: { root: { type: 'string' }, clients: { type: 'string', default: '16' }, rounds: { type: 'string', default: '2000' }, passes: { type: 'string', default: '3' } } });
const clients = Number(values.clients);
const rounds = Number(values.rounds);

interface Rig {
  round(withPong: boolean): Promise<void>;
  close(): Promise<void>;
}

async function rig(lib: Library): Promise<Rig> {
  const server = lib.socketIo.createSocketIoServerTransport({ port: 0, host: '127.0.0.1' });
  const peers: number[] = [];
  let atServer = 0;
  let atClients = 0;
  let wake: (() => void) | undefined;
  const check = (need: () => boolean): void => {
    if (need()) wake?.();
  };
  let needServer = 0;
  let needClients = 0;
  const done = (): boolean => atServer >= needServer && atClients >= needClients;
  server.listen({ onConnect: (p) => void peers.push(p), onMessage: () => { atServer++; check(done); }, onDisconnect: () => {} });
  const { port } = await server.ready();
  const links = Array.from({ length: clients }, () => lib.socketIo.createSocketIoClientTransport(`http://127.0.0.1:${port}`, { retry: false }));
  let open = 0;
  for (const l of links) l.connect({ onOpen: () => void open++, onMessage: () => { atClients++; check(done); }, onClose: () => {} });
  while (open < clients || peers.length < clients) await new Promise((r) => setTimeout(r, 5));
  const input = new Uint8Array(40).fill(7);
  const snapshot = new Uint8Array(260).fill(9);
  const pong = new Uint8Array(14).fill(3);
  // First contact both ways (frames switch on after the server's first message).
  for (const p of peers) server.send(p, pong, 'reliable');
  while (atClients < clients) await new Promise((r) => setTimeout(r, 5));
  return {
    async round(withPong) {
      needServer = atServer + clients;
      needClients = atClients + clients * (withPong ? 2 : 1);
      const arrived = new Promise<void>((r) => (wake = r));
      for (const l of links) l.send(input, 'unreliable');
      for (const p of peers) {
        server.send(p, snapshot, 'unreliable');
        if (withPong) server.send(p, pong, 'unreliable');
      }
      if (!done()) await arrived;
    },
    async close() {
      for (const l of links) l.close('done');
      server.close();
      await server.io.close();
    },
  };
}

async function pass(r: Rig): Promise<number> {
  const cpu = process.cpuUsage();
  for (let i = 0; i < rounds; i++) await r.round(i % 2 === 0);
  const used = process.cpuUsage(cpu);
  const messages = rounds * clients * 2.5;
  return (used.user + used.system) / messages;
}

const libs: [string, Library][] = [['this checkout', await loadLibrary()]];
if (values.root !== undefined) libs.push([values.root, await loadLibrary(values.root)]);
const rigs = await Promise.all(libs.map(async ([name, lib]) => [name, await rig(lib)] as const));
const results = new Map<string, number[]>();
for (let p = 0; p < Number(values.passes); p++) {
  for (const [name, r] of p % 2 === 0 ? rigs : [...rigs].reverse()) {
    const us = await pass(r);
    results.set(name, [...(results.get(name) ?? []), us]);
  }
}
for (const [, r] of rigs) await r.close();
for (const [name, xs] of results) console.log(`${name}: CPU µs per message (both halves) ${xs.map((x) => x.toFixed(1)).join(', ')}`);
process.exit(0);
