// The entry point of a room worker (room-workers.ts starts it): imports the app's module of room
// types, builds the rooms the room server places here, and runs them on this thread's own loop,
// one turn over all of them at a time (room-turn.ts). Their links' messages arrive in batches
// from the main thread; what they send goes back the same way (worker-wire.ts).

import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { asNetcodeError } from '../core/errors.ts';
import type { Logger } from '../core/emitter.ts';
import type { Protocol } from '../core/protocol.ts';
import { ServerLoop } from '../core/server-loop.ts';
import type { Channel, PeerId, ServerTransport } from '../core/transport.ts';
import { realTimeScheduler } from '../transport/scheduler.ts';
import type { RoomType } from './define-room.ts';
import { LiveRoom } from './live-room.ts';
import { RoomTransport } from './room-mux.ts';
import { statsOfRoom } from './room-stats.ts';
import { RoomTurn } from './room-turn.ts';
import { Batcher, readBatch, STATS_MS, type Batch, type FromWorker, type ToWorker } from './worker-wire.ts';

/** The loop sleeps at most this long. */
const MAX_SLEEP_MS = 50;

const port = parentPort!;
const { module: href, types: wanted } = workerData as { module: string; types: readonly string[] };
const out = new Batcher<FromWorker>((batch, transfer) => port.postMessage(batch, transfer));
const log: Logger = (level, message) => out.op({ t: 'log', level, message });

/** Room types among a module's exports: each defineRoom value, and those in exported arrays. */
export function roomTypesOf(exports: Record<string, unknown>): Map<string, RoomType<Protocol>> {
  const found = new Map<string, RoomType<Protocol>>();
  const add = (v: unknown): void => {
    if (isRoomType(v) && !found.has(v.name)) found.set(v.name, v);
  };
  for (const value of Object.values(exports)) {
    if (Array.isArray(value)) value.forEach(add);
    else add(value);
  }
  return found;
}

function isRoomType(v: unknown): v is RoomType<Protocol> {
  if (typeof v !== 'object' || v === null) return false;
  const t = v as Partial<RoomType<Protocol>>;
  return typeof t.name === 'string' && typeof t.maxClients === 'number' && typeof t.definition === 'object' && t.definition !== null;
}

class WorkerHost {
  private readonly rooms = new Map<string, LiveRoom<Protocol>>();
  private readonly peerRoom = new Map<PeerId, LiveRoom<Protocol>>();
  private readonly tokens = new Map<PeerId, string>();
  private readonly turn = new RoomTurn<LiveRoom<Protocol>>((room, error) =>
    log('error', `react-netcode: room ${room.id} failed to update: ${asNetcodeError(error, 'updating a room').message}`));
  private readonly loop: ServerLoop;
  private readonly outbox: ServerTransport = {
    listen: () => {},
    send: (peer, data, channel) => out.message(peer, data, channel),
    disconnect: (peer, reason) => out.op({ t: 'disconnect', peer, reason }),
    close: () => {},
  };
  private busyMs = 0;
  private messagesIn = 0;
  private batchesIn = 0;
  private reportedAt = realTimeScheduler.now();

  constructor(private readonly types: Map<string, RoomType<Protocol>>) {
    this.loop = new ServerLoop(realTimeScheduler, (now) => this.update(now), () => this.turn.msUntilNext(MAX_SLEEP_MS), (error) =>
      log('error', asNetcodeError(error, 'running a room worker loop').message));
  }

  start(): void {
    port.on('message', (batch: Batch<ToWorker>) => this.onBatch(batch));
    this.loop.start();
  }

  private update(now: number): void {
    this.turn.run(now);
    const end = realTimeScheduler.now();
    this.busyMs += end - now;
    if (end - this.reportedAt >= STATS_MS) this.report(end);
  }

  private report(now: number): void {
    const elapsed = now - this.reportedAt;
    const busy = Math.min(1, this.busyMs / elapsed);
    this.reportedAt = now;
    this.busyMs = 0;
    out.op({
      t: 'stats',
      rooms: [...this.rooms.values()].map(statsOfRoom),
      worker: {
        busy, messagesIn: this.messagesIn, messagesOut: out.messages, batchesIn: this.batchesIn, batchesOut: out.batches,
        heapUsedBytes: getHeapStatistics().used_heap_size,
      },
    });
  }

  private onBatch(batch: Batch<ToWorker>): void {
    const start = realTimeScheduler.now();
    this.batchesIn++;
    const deliver = (peer: PeerId, data: Uint8Array, channel: Channel): void =>
      this.peerRoom.get(peer)?.transport.deliver(peer, data, channel);
    this.messagesIn += readBatch(batch, deliver, (op) => this.onOp(op));
    this.busyMs += realTimeScheduler.now() - start;
  }

  private onOp(op: ToWorker): void {
    switch (op.t) {
      case 'open':
        return this.open(op);
      case 'connect': {
        const room = this.rooms.get(op.roomId);
        if (room === undefined) return out.op({ t: 'disconnect', peer: op.peer, reason: `react-netcode: room ${op.roomId} is closed; matchmake again to play on.` });
        this.tokens.set(op.peer, op.token);
        this.peerRoom.set(op.peer, room);
        return room.transport.connect(op.peer);
      }
      case 'lost': {
        const room = this.peerRoom.get(op.peer);
        this.peerRoom.delete(op.peer);
        room?.transport.lost(op.peer, op.reason);
        this.tokens.delete(op.peer);
        return;
      }
      case 'violation':
        return this.peerRoom.get(op.peer)?.transport.violation(op.peer, op.reason);
      case 'seats': {
        const room = this.rooms.get(op.roomId);
        if (room === undefined) return;
        room.clients = op.clients;
        room.locked = op.locked;
        return;
      }
      case 'close':
        return this.close(op.roomId, op.reason);
      case 'stop':
        for (const id of [...this.rooms.keys()]) this.close(id, 'react-netcode: the server is shutting down; matchmake again to play on.');
        this.loop.stop();
        out.flush();
        port.close();
    }
  }

  private open(op: Extract<ToWorker, { t: 'open' }>): void {
    const type = this.types.get(op.listing.type);
    if (type === undefined) return log('error', `react-netcode: room type "${op.listing.type}" is not exported by the workers' module ${href}.`);
    const room: LiveRoom<Protocol> = new LiveRoom(type, op.listing, new RoomTransport(this.outbox), realTimeScheduler, {
      seed: op.seed, emptyGraceMs: op.emptyGraceMs, log,
    }, {
      tokenOf: (peer) => this.tokens.get(peer),
      hold: (token) => out.op({ t: 'hold', roomId: room.id, token }),
      release: (token) => out.op({ t: 'release', roomId: room.id, token }),
      lock: (roomId, locked) => out.op({ t: 'lock', roomId, locked }),
      log,
    });
    this.rooms.set(room.id, room);
    this.turn.add(room);
    room.call('onCreate', () => type.definition.onCreate?.(room));
  }

  private close(roomId: string, reason: string): void {
    const room = this.rooms.get(roomId);
    if (room === undefined) return;
    this.rooms.delete(roomId);
    this.turn.remove(room);
    room.shut(reason);
    for (const [peer, r] of this.peerRoom) {
      if (r !== room) continue;
      this.peerRoom.delete(peer);
      this.tokens.delete(peer);
    }
  }
}

async function load(): Promise<Map<string, RoomType<Protocol>> | string> {
  let exports: Record<string, unknown>;
  try {
    exports = (await import(href)) as Record<string, unknown>;
  } catch (error) {
    const why = (error instanceof Error ? error.message : String(error)).replace(/^react-netcode: /, '');
    return `react-netcode: a room worker could not import the module of room types ${href} (${why}); set workers.module to the file that exports your defineRoom types, e.g. new URL('./rooms.ts', import.meta.url).`;
  }
  const types = roomTypesOf(exports);
  const missing = wanted.filter((name) => !types.has(name));
  if (missing.length > 0) {
    const names = missing.map((n) => `"${n}"`).join(', ');
    return `react-netcode: room type ${names} is not exported by the workers' module ${href}; export each defineRoom the room server is given from that module (the workers build their rooms from it).`;
  }
  return types;
}

const loaded = await load();
if (typeof loaded === 'string') {
  out.op({ t: 'fatal', message: loaded });
  out.flush();
  port.close();
} else {
  new WorkerHost(loaded).start();
  out.op({ t: 'ready', types: [...loaded.keys()] });
}
