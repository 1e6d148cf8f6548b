// Rooms in worker threads (RoomServerOptions.workers). The main thread keeps the one transport,
// the seats, the mux, matchmaking and the directory; each room runs on one worker, the least
// loaded when it was created, which builds it from the app's module of room types and ticks its
// rooms on its own loop (worker-host.ts). A link's messages cross to its room's worker and the
// room's messages cross back in batches (worker-wire.ts). A worker that dies takes its rooms
// with it: they leave the directory, their players are told, and a new worker takes the slot.

import type { Worker as NodeWorker } from 'node:worker_threads';
import type { Logger } from '../core/emitter.ts';
import type { Protocol } from '../core/protocol.ts';
import { NetcodeError } from '../core/errors.ts';
import type { PeerId, ServerTransport } from '../core/transport.ts';
import type { RoomType } from './define-room.ts';
import type { RoomListing } from './directory.ts';
import { ListedRoom, type HostedRoom } from './live-room.ts';
import type { RoomLink } from './room-mux.ts';
import type { RoomStats, WorkerStats } from './room-stats.ts';
import { Batcher, readBatch, type Batch, type FromWorker, type ToWorker, type WorkerReport } from './worker-wire.ts';

export interface RoomWorkersOptions {
  /** Worker threads to run rooms in (1 … 64). */
  count: number;
  /**
   * The module that exports the room types (each `defineRoom(...)`, or an array of them), which
   * every worker imports to build its rooms: `new URL('./rooms.ts', import.meta.url)`, a file URL,
   * an absolute path, or a path relative to the working directory.
   */
  module: string | URL;
  /**
   * Node options of the worker threads (default: the main thread's `process.execArgv`). A .ts module
   * (an app run with tsx) is loaded through tsx's loader, registered in each worker.
   */
  execArgv?: string[];
}

/** What the pool needs of its room server. */
export interface PoolHost {
  readonly real: ServerTransport;
  readonly log: Logger;
  tokenOf(peer: PeerId): string | undefined;
  /** Take a link from its room with a close reason (RoomMux.evict). */
  evict(peer: PeerId, reason: string): void;
  /** A worker died: these rooms are gone (directory, events). */
  lost(rooms: readonly WorkerRoom[], reason: string): void;
  lock(roomId: string, locked: boolean): void;
  release(token: string): void;
}


/** Replacement workers a slot gets, at most, after crashes that came within this long of each other … */
const RESPAWN_WINDOW_MS = 10_000;
/** … and then no more (a module that crashes at once would loop). */
const MAX_QUICK_RESPAWNS = 3;
/** A stopping worker that has not exited by then is terminated. */
const STOP_GRACE_MS = 2000;

class Slot {
  readonly rooms = new Map<string, WorkerRoom>();
  readonly out: Batcher<ToWorker>;
  state: 'loading' | 'ready' | 'dead' = 'loading';
  report: WorkerReport | undefined;
  crashes = 0;
  quickCrashes = 0;
  lastCrashAt = -Infinity;
  error: string | undefined;

  constructor(readonly index: number, readonly worker: NodeWorker) {
    this.out = new Batcher((batch, transfer) => worker.postMessage(batch, transfer));
  }

  get clients(): number {
    let n = 0;
    for (const room of this.rooms.values()) n += room.clients;
    return n;
  }
}

/** The room server's view of a room that runs in a worker. */
export class WorkerRoom extends ListedRoom implements HostedRoom {
  readonly peers = new Set<PeerId>();
  readonly held = new Set<string>();
  last: RoomStats | undefined;
  readonly link: RoomLink;

  constructor(listing: RoomListing, readonly emptyGraceMs: number, readonly slot: Slot, private readonly pool: WorkerPool) {
    super(listing);
    this.link = {
      connect: (peer) => pool.connect(this, peer),
      deliver: (peer, data, channel) => slot.out.message(peer, data, channel),
      lost: (peer, reason) => pool.lost(this, peer, reason),
      violation: (peer, reason) => {
        if (this.peers.has(peer)) slot.out.op({ t: 'violation', peer, reason });
      },
    };
  }

  get server(): never {
    throw new NetcodeError('usage', `react-netcode: room ${this.id} runs in a worker thread (the workers option); its NetServer lives there: reach it from the room type's callbacks (onCreate, onJoin …) in the workers' module.`);
  }

  lock(): void {
    this.pool.host.lock(this.id, true);
  }

  unlock(): void {
    this.pool.host.lock(this.id, false);
  }

  holdsAny(): boolean {
    return this.held.size > 0;
  }

  holds(token: string): boolean {
    return this.held.has(token);
  }

  heldTokens(): string[] {
    return [...this.held];
  }

  shut(reason: string): void {
    for (const peer of [...this.peers]) {
      this.pool.detach(this, peer);
      this.pool.host.evict(peer, reason); // told here at once; what the worker still sends them is dropped
    }
    this.slot.rooms.delete(this.id);
    this.slot.out.op({ t: 'close', roomId: this.id, reason });
  }

  /** The directory changed its seats or lock: the worker's copy follows. */
  synced(): void {
    this.slot.out.op({ t: 'seats', roomId: this.id, clients: this.clients, locked: this.locked });
  }

  stats(): RoomStats {
    const base = this.last ?? {
      roomId: this.id, type: this.type, clients: 0, maxClients: this.maxClients, connections: 0, inGame: 0, ghosts: 0,
      ticks: 0, tickMeanMs: 0, tickP99Ms: 0, droppedTicks: 0,
    };
    return { ...base, clients: this.clients };
  }
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly peerRoom = new Map<PeerId, WorkerRoom>();
  private readonly moduleHref: string;
  private readonly readyPromise: Promise<void>;
  private settleReady!: { resolve: () => void; reject: (error: Error) => void };
  private failure: NetcodeError | undefined;
  private closing = false;

  constructor(
    readonly options: RoomWorkersOptions,
    readonly host: PoolHost,
    private readonly types: readonly { readonly name: string }[],
  ) {
    if (!Number.isInteger(options.count) || options.count < 1 || options.count > 64) {
      throw new NetcodeError('usage', `react-netcode: workers.count must be an integer from 1 to 64, got ${String(options.count)}.`);
    }
    this.moduleHref = moduleHref(options.module);
    this.readyPromise = new Promise((resolve, reject) => (this.settleReady = { resolve, reject }));
    this.readyPromise.catch(() => {}); // reported through ready() and the log
    for (let i = 0; i < options.count; i++) this.slots.push(this.spawn(i, 0));
  }

  /** Resolves once every worker has loaded the module; rejects with why one could not. */
  ready(): Promise<void> {
    return this.readyPromise;
  }

  /** Why no room can be placed now, or undefined. */
  get unavailable(): string | undefined {
    if (this.failure !== undefined) return this.failure.message;
    return this.slots.some((s) => s.state !== 'dead') ? undefined : 'react-netcode: every room worker has stopped; restart the process.';
  }

  /** Open a room on the least loaded ready worker (fewest seats, then fewest rooms). */
  open(type: RoomType<Protocol>, listing: RoomListing, seed: number, emptyGraceMs: number): WorkerRoom {
    let best: Slot | undefined;
    const load = (s: Slot): number => s.clients * 1e6 + s.rooms.size;
    for (const s of this.slots) if (s.state === 'ready' && (best === undefined || load(s) < load(best))) best = s;
    best ??= this.slots.find((s) => s.state === 'loading');
    if (best === undefined) throw new NetcodeError('usage', this.unavailable ?? 'react-netcode: no room worker is running.');
    const grace = type.definition.emptyGraceMs ?? emptyGraceMs;
    const room = new WorkerRoom(listing, grace, best, this);
    best.rooms.set(room.id, room);
    best.out.op({ t: 'open', listing, seed, emptyGraceMs: grace });
    return room;
  }

  connect(room: WorkerRoom, peer: PeerId): void {
    const token = this.host.tokenOf(peer) ?? '';
    room.peers.add(peer);
    this.peerRoom.set(peer, room);
    room.slot.out.op({ t: 'connect', roomId: room.id, peer, token });
  }

  lost(room: WorkerRoom, peer: PeerId, reason: string): void {
    if (this.detach(room, peer)) room.slot.out.op({ t: 'lost', peer, reason });
  }

  /** Stop routing `peer` to and from `room`; false if it was not. */
  detach(room: WorkerRoom, peer: PeerId): boolean {
    if (!room.peers.delete(peer)) return false;
    this.peerRoom.delete(peer);
    return true;
  }

  stats(): WorkerStats[] {
    return this.slots.map((s) => {
      const r = s.report;
      return {
        index: s.index, rooms: s.rooms.size, clients: s.clients, busy: r?.busy ?? 0,
        messagesIn: r?.messagesIn ?? 0, messagesOut: r?.messagesOut ?? 0, batchesIn: r?.batchesIn ?? 0, batchesOut: r?.batchesOut ?? 0,
        heapUsedBytes: r?.heapUsedBytes ?? 0, crashes: s.crashes,
      };
    });
  }

  /** Stop every worker: each closes the rooms it still runs, then exits (terminated after 2 s). */
  close(): void {
    this.closing = true;
    for (const s of this.slots) {
      s.out.op({ t: 'stop' });
      s.out.flush();
      const timer = setTimeout(() => void s.worker.terminate(), STOP_GRACE_MS);
      timer.unref();
      s.worker.once('exit', () => clearTimeout(timer));
    }
  }

  private spawn(index: number, crashes: number): Slot {
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    const self = import.meta.url;
    const entry = new URL(self.endsWith('.ts') ? './worker-host.ts' : './worker-host.js', self);
    const worker = new Worker(bootstrap(entry.href, this.moduleHref), {
      eval: true,
      workerData: { module: this.moduleHref, types: this.types.map((t) => t.name) },
      ...(this.options.execArgv ? { execArgv: this.options.execArgv } : {}),
    });
    const slot = new Slot(index, worker);
    slot.crashes = crashes;
    worker.on('message', (batch: Batch<FromWorker>) => this.onBatch(slot, batch));
    worker.on('error', (error) => (slot.error = error instanceof Error ? error.message : String(error)));
    worker.on('exit', (code) => this.exited(slot, code));
    return slot;
  }

  private onBatch(slot: Slot, batch: Batch<FromWorker>): void {
    const real = this.host.real;
    readBatch(batch, (peer, data, channel) => {
      if (this.peerRoom.get(peer)?.slot === slot) real.send(peer, data, channel);
    }, (op) => this.onOp(slot, op));
  }

  private onOp(slot: Slot, op: FromWorker): void {
    switch (op.t) {
      case 'ready':
        slot.state = 'ready';
        if (this.slots.every((s) => s.state === 'ready' || s.index === slot.index)) this.settleReady.resolve();
        return;
      case 'fatal':
        this.failure ??= new NetcodeError('usage', op.message);
        this.host.log('error', op.message);
        this.settleReady.reject(this.failure);
        return;
      case 'disconnect':
        if (this.peerRoom.get(op.peer)?.slot === slot) this.host.real.disconnect(op.peer, op.reason);
        return;
      case 'hold':
        slot.rooms.get(op.roomId)?.held.add(op.token);
        return;
      case 'release':
        slot.rooms.get(op.roomId)?.held.delete(op.token);
        this.host.release(op.token);
        return;
      case 'lock':
        this.host.lock(op.roomId, op.locked);
        return;
      case 'log':
        this.host.log(op.level, op.message);
        return;
      case 'stats':
        slot.report = op.worker;
        for (const s of op.rooms) {
          const room = slot.rooms.get(s.roomId);
          if (room !== undefined) room.last = s;
        }
    }
  }

  private exited(slot: Slot, code: number): void {
    const wasReady = slot.state === 'ready';
    slot.state = 'dead';
    for (const room of slot.rooms.values()) for (const peer of room.peers) this.peerRoom.delete(peer);
    if (this.closing) return;
    const why = slot.error ?? `exit code ${code}`;
    if (!wasReady && this.failure === undefined) {
      this.failure = new NetcodeError('usage', why.startsWith('react-netcode:') ? why : `react-netcode: room worker ${slot.index} stopped while loading (${why}).`);
      this.host.log('error', this.failure.message);
      this.settleReady.reject(this.failure);
    }
    this.host.log('error', `react-netcode: room worker ${slot.index} stopped (${why}); its ${slot.rooms.size} room(s) are closed and their players told to matchmake again.`);
    const rooms = [...slot.rooms.values()];
    for (const room of rooms) {
      const reason = `react-netcode: the worker thread running room ${room.id} stopped (${why}); matchmake again to play on.`;
      for (const peer of room.peers) this.host.evict(peer, reason);
      room.peers.clear();
    }
    slot.rooms.clear();
    this.host.lost(rooms, `worker ${slot.index} stopped: ${why}`);
    if (!wasReady || this.failure !== undefined) return;
    const now = performance.now();
    const quick = now - slot.lastCrashAt < RESPAWN_WINDOW_MS ? slot.quickCrashes + 1 : 0;
    if (quick >= MAX_QUICK_RESPAWNS) return void this.host.log('error', `react-netcode: room worker ${slot.index} crashed ${quick + 1} times within ${RESPAWN_WINDOW_MS} ms; it is not restarted.`);
    const next = this.spawn(slot.index, slot.crashes + 1);
    next.quickCrashes = quick;
    next.lastCrashAt = now;
    this.slots[slot.index] = next;
  }
}

const TYPESCRIPT = /\.[mc]?tsx?$/;

/**
 * The worker's script: import the entry (worker-host). When the entry or the module is TypeScript
 * (the app runs under tsx), register tsx's loader in the worker first: a loader the main thread
 * got from `--import` does not reach worker threads on Node 20.
 */
function bootstrap(entry: string, module: string): string {
  const ts = TYPESCRIPT.test(entry) || TYPESCRIPT.test(module.split('?')[0]!);
  const missing = `the room workers load TypeScript (${module}) and need tsx for it: install tsx, or give workers.module a compiled .js file.`;
  const register = `let api; try { api = await import('tsx/esm/api'); } catch { throw new Error("react-netcode: " + ${JSON.stringify(missing)}); } api.register();`;
  return `(async () => { ${ts ? register : ''} await import(${JSON.stringify(entry)}); })();`;
}

/** The module's URL, as the worker imports it. */
function moduleHref(module: string | URL): string {
  if (module instanceof URL) return module.href;
  if (typeof module !== 'string' || module.length === 0) {
    throw new NetcodeError('usage', "react-netcode: workers.module must name the module that exports your room types, e.g. new URL('./rooms.ts', import.meta.url).");
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(module) && !/^[a-z]:[\\/]/i.test(module)) return module; // a URL (file:, data:, node:)
  const { isAbsolute, resolve } = process.getBuiltinModule('node:path');
  const { pathToFileURL } = process.getBuiltinModule('node:url');
  if (isAbsolute(module) || module.startsWith('.')) return pathToFileURL(resolve(module)).href;
  return module; // a package specifier, resolved from the worker
}

