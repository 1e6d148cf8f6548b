// Transport benchmark: round-trip time through the socket.io transports against a
// bare socket.io echo, and the per-message cost of the in-memory loopback network.
// Run through bench/run.ts; prints a table and, last, one `BENCH {json}` line.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Server } from 'socket.io';
import { io as ioClient } from 'socket.io-client';
import type { ClientTransport } from '../src/core/transport.ts';
import { createSocketIoClientTransport, createSocketIoServerTransport } from '../src/socket-io/index.ts';
import { LoopbackNetwork } from '../src/transport/loopback.ts';

const ROUND_TRIPS = 2000;
const WARM_UP = 200;
const LOOPBACK_MESSAGES = 100_000;
const LOOPBACK_BATCH = 100;
const HEAP_MESSAGES = 5000;
const HEAP_REPEATS = 5;

type Result = { case: string; system: string } & Record<string, number | string | null>;

function bytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + 7) & 0xff;
  return out;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** A round trip: resolves when the echo of one message is back. */
type RoundTrip = (payload: Uint8Array) => Promise<void>;

async function netcodeEcho(): Promise<{ roundTrip: RoundTrip; close: () => Promise<void> }> {
  const server = createSocketIoServerTransport({ port: 0, host: '127.0.0.1' });
  server.listen({ onConnect() {}, onDisconnect() {}, onMessage: (peer, data) => server.send(peer, data, 'reliable') });
  const { port } = await server.ready();
  const client: ClientTransport = createSocketIoClientTransport(`http://127.0.0.1:${port}`);
  let pending: (() => void) | null = null;
  await new Promise<void>((resolve, reject) =>
    client.connect({ onOpen: resolve, onMessage: () => pending?.(), onClose: (reason) => reject(new Error(`react-netcode: bench client closed: ${reason}`)) }),
  );
  return {
    roundTrip: (payload) => new Promise<void>((resolve) => { pending = resolve; client.send(payload, 'reliable'); }),
    close: async () => { client.close('bench over'); server.close(); await server.io.close(); },
  };
}

async function rawEcho(): Promise<{ roundTrip: RoundTrip; close: () => Promise<void> }> {
  const http = createServer();
  const io = new Server(http, { path: '/raw', serveClient: false });
  io.on('connection', (socket) => socket.on('r', (data: unknown) => socket.emit('r', data)));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const socket = ioClient(`http://127.0.0.1:${port}`, { path: '/raw', transports: ['websocket'], reconnection: false, forceNew: true });
  let pending: (() => void) | null = null;
  socket.on('r', () => pending?.());
  await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('connect_error', reject); });
  return {
    roundTrip: (payload) => new Promise<void>((resolve) => { pending = resolve; socket.emit('r', payload); }),
    close: async () => { socket.disconnect(); await io.close(); },
  };
}

/** Round trips alternate between the two systems so that both see the same machine conditions. */
async function roundTrips(size: number): Promise<Result[]> {
  const netcode = await netcodeEcho();
  const raw = await rawEcho();
  const payload = bytes(size);
  const samples = { netcode: [] as number[], raw: [] as number[] };
  try {
    for (let i = 0; i < WARM_UP + ROUND_TRIPS; i++) {
      let t0 = performance.now();
      await netcode.roundTrip(payload);
      const a = performance.now() - t0;
      t0 = performance.now();
      await raw.roundTrip(payload);
      const b = performance.now() - t0;
      if (i >= WARM_UP) { samples.netcode.push(a); samples.raw.push(b); }
    }
  } finally {
    await netcode.close();
    await raw.close();
  }
  const stats = (s: number[]) => { const sorted = [...s].sort((x, y) => x - y); return { median: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) }; };
  const n = stats(samples.netcode);
  const r = stats(samples.raw);
  const name = `socket.io round trip ${size}B`;
  return [
    { case: name, system: 'react-netcode', rttMsMedian: round(n.median, 4), rttMsP99: round(n.p99, 4), overheadPct: round(((n.median - r.median) / r.median) * 100, 1) },
    { case: name, system: 'raw socket.io', rttMsMedian: round(r.median, 4), rttMsP99: round(r.p99, 4) },
  ];
}

/** A connected loopback pair whose server handler only counts. */
function loopbackPair(): { send: (count: number, batch: number) => void; received: () => number } {
  const net = new LoopbackNetwork();
  let received = 0;
  net.server.listen({ onConnect() {}, onDisconnect() {}, onMessage: () => { received++; } });
  const client = net.createClient();
  client.connect({ onOpen() {}, onMessage() {}, onClose() {} });
  net.deliver();
  net.deliver();
  const payload = bytes(64);
  return {
    send(count, batch) {
      for (let sent = 0; sent < count; sent += batch) {
        for (let i = 0; i < batch; i++) client.send(payload, 'reliable');
        net.deliver();
      }
    },
    received: () => received,
  };
}

function loopback(batch: number): Result {
  const pair = loopbackPair();
  pair.send(10_000, batch); // warm-up
  const t0 = process.hrtime.bigint();
  pair.send(LOOPBACK_MESSAGES, batch);
  const ns = Number(process.hrtime.bigint() - t0);
  if (pair.received() !== 10_000 + LOOPBACK_MESSAGES) throw new Error(`react-netcode: loopback delivered ${pair.received()} messages`);
  // Heap: a gc, then a short run. A scavenge inside a run can only lower its delta, so keep the largest.
  const gc = (globalThis as { gc?: () => void }).gc;
  let heap: number | null = null;
  let arrayBuffers: number | null = null;
  if (typeof gc === 'function') {
    for (let r = 0; r < HEAP_REPEATS; r++) {
      gc();
      const before = process.memoryUsage();
      pair.send(HEAP_MESSAGES, batch);
      const after = process.memoryUsage();
      heap = Math.max(heap ?? 0, (after.heapUsed - before.heapUsed) / HEAP_MESSAGES);
      arrayBuffers = Math.max(arrayBuffers ?? 0, (after.arrayBuffers - before.arrayBuffers) / HEAP_MESSAGES);
    }
  }
  return {
    case: batch === 1 ? 'loopback 64B, deliver() per message' : 'loopback 64B',
    system: 'react-netcode',
    nsPerMessage: round(ns / LOOPBACK_MESSAGES, 1),
    heapBytesPerMessage: heap === null ? null : round(heap, 1),
    arrayBufferBytesPerMessage: arrayBuffers === null ? null : round(arrayBuffers, 1),
    batch,
  };
}

export async function run(): Promise<void> {
  const started = performance.now();
  const results: Result[] = [...(await roundTrips(64)), ...(await roundTrips(1024)), loopback(LOOPBACK_BATCH), loopback(1)];
  console.table(results.map(({ case: name, system, ...metrics }) => ({ case: name, system, ...metrics })));
  console.log(`socket.io: ${ROUND_TRIPS} sequential round trips per case after ${WARM_UP} warm-up, 127.0.0.1, the two systems interleaved.`);
  console.log(`loopback: ${LOOPBACK_MESSAGES} messages client->server (send + deliver + handler), deliver() after every ${LOOPBACK_BATCH} sends unless noted.`);
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') console.log('heap figures: null, global.gc is unavailable (run through bench/run.ts or with --expose-gc).');
  else console.log(`heap figures: largest heapUsed/arrayBuffers delta over ${HEAP_REPEATS} runs of ${HEAP_MESSAGES} messages, each after a forced gc.`);
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'transport', results })}`);
}
