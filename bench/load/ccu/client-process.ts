// CCU bench, the client process: many headless clients of one system in one Node process (pinned
// to the other core by the load tool), answering the requests of server-process.ts's protocol
// (numbered request, reply of the same id): `start` (connect and join every client, resolve
// when all are in their room), `mark`, `report` (counters since the mark, frames per second,
// this process's CPU), `stop`, `exit`. Clients are spread over PHASES frame loops at 30 fps,
// started a fraction of a frame apart, so inputs reach the server spread over the frame.
import { performance } from 'node:perf_hooks';
import { seatedTransport } from '../../../src/rooms/index.ts';
import { FrameLoop } from '../frame-loop.ts';
import { InputScript } from '../game.ts';
import { loadLibrary } from '../library.ts';
import { sleep } from '../measure.ts';
import { makeArenaGame } from './arena.ts';
import { ColyseusLoadClient } from './colyseus-client.ts';
import { LeanNetcodeClient, type ClientCounters, type LoadClient } from './lean-client.ts';
import type { CcuSystem, Endpoint } from './rooms.ts';

if (typeof process.send !== 'function') {
  console.error('react-netcode: bench/load/ccu/client-process.ts runs as a child with an IPC channel; the load tool (bench/load/ccu/load.ts) starts it.');
  process.exit(2);
}

const PHASES = 8;
const CONNECT_BATCH = 25;
const CONNECT_PAUSE_MS = 50;

export interface ClientStart {
  type: 'start';
  system: CcuSystem;
  endpoints: readonly Endpoint[];
  clients: number;
  players: number;
  fps: number;
  /** Longest wait for every client to be in its room (ms). */
  joinTimeoutMs: number;
}

export interface ClientReport {
  clients: number;
  inRoom: number;
  closed: string[];
  totals: ClientCounters;
  seconds: number;
  framesPerSecPerClient: number;
  cpuPct: number;
}

let clients: { client: LoadClient; script: InputScript }[] = [];
const loops: FrameLoop[] = [];
let base = { totals: zero(), at: 0, cpu: process.cpuUsage() };

function zero(): ClientCounters {
  return { frames: 0, inputsSent: 0, updates: 0, bytesUp: 0, bytesDown: 0 };
}

function totals(): ClientCounters {
  const t = zero();
  for (const { client: c } of clients) for (const k of Object.keys(t) as (keyof ClientCounters)[]) t[k] += c.counters[k];
  return t;
}

async function start(r: ClientStart): Promise<null> {
  const lib = await loadLibrary();
  const game = makeArenaGame(lib.core);
  for (let i = 0; i < r.clients; i++) {
    const endpoint = r.endpoints[Math.min(r.endpoints.length - 1, Math.floor(i / r.players))]!;
    const name = `load${i}`;
    let client: LoadClient;
    if (r.system === 'colyseus') client = new ColyseusLoadClient(endpoint, name);
    else {
      const seat = endpoint.seats?.[i % r.players];
      const inner = lib.socketIo.createSocketIoClientTransport(endpoint.url);
      const lean = new LeanNetcodeClient(seat === undefined ? inner : seatedTransport(inner, seat), game, name, () => performance.now());
      lean.connect();
      client = lean;
    }
    clients.push({ client, script: new InputScript(1000 + i) });
    if (i % CONNECT_BATCH === CONNECT_BATCH - 1) await sleep(CONNECT_PAUSE_MS); // a ramp, not a thundering herd
  }
  const groups: (typeof clients)[] = Array.from({ length: PHASES }, () => []);
  clients.forEach((c, i) => groups[i % PHASES]!.push(c));
  groups.forEach((group, g) => {
    const loop = new FrameLoop({ fps: r.fps, seed: g + 1 });
    loops.push(loop);
    setTimeout(() => loop.start((now) => frame(group, now)), (g * 1000) / r.fps / PHASES);
  });
  const end = performance.now() + r.joinTimeoutMs;
  while (clients.some((c) => !c.client.inRoom)) {
    const closed = clients.find((c) => c.client.closedReason !== undefined);
    if (closed) throw new Error(`react-netcode: a load client was closed before it joined: ${closed.client.closedReason}`);
    if (performance.now() > end) throw new Error(`react-netcode: ${clients.filter((c) => !c.client.inRoom).length} of ${clients.length} load clients not in a room after ${r.joinTimeoutMs} ms; is the server overloaded?`);
    await sleep(50);
  }
  for (const c of clients) c.script.active = true;
  return null;
}

function frame(group: typeof clients, now: number): void {
  for (const { client, script } of group) {
    script.apply(now, client);
    client.frame();
  }
}

function report(): ClientReport {
  const t = totals();
  const seconds = (performance.now() - base.at) / 1000;
  const d = zero();
  for (const k of Object.keys(d) as (keyof ClientCounters)[]) d[k] = t[k] - base.totals[k];
  const cpu = process.cpuUsage(base.cpu);
  return {
    clients: clients.length,
    inRoom: clients.filter((c) => c.client.inRoom).length,
    closed: clients.flatMap((c) => (c.client.closedReason !== undefined ? [c.client.closedReason] : [])).slice(0, 5),
    totals: d,
    seconds,
    framesPerSecPerClient: d.frames / seconds / Math.max(1, clients.length),
    cpuPct: ((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100,
  };
}

async function handle(request: { type: string }): Promise<unknown> {
  switch (request.type) {
    case 'start':
      return start(request as ClientStart);
    case 'mark':
      base = { totals: totals(), at: performance.now(), cpu: process.cpuUsage() };
      return null;
    case 'report':
      return report();
    case 'stop':
      for (const l of loops.splice(0)) l.stop();
      for (const c of clients) c.client.close();
      clients = [];
      return null;
    case 'exit':
      setImmediate(() => process.exit(0));
      return null;
    default:
      throw new Error(`react-netcode: the load client process has no request '${request.type}'.`);
  }
}

let queue: Promise<void> = Promise.resolve();
process.on('message', (message: { id: number; request: { type: string } }) => {
  queue = queue.then(async () => {
    try {
      process.send!({ id: message.id, ok: true, value: await handle(message.request) });
    } catch (error) {
      process.send!({ id: message.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
});
process.on('disconnect', () => process.exit(0));
