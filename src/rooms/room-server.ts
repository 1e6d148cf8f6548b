// The room server: many rooms (NetServers) in one process, on one transport and one loop.
// Links reach their room through the mux (room-mux.ts) by the seat they present; seats come
// from matchmaking (room-matchmaking.ts) and live in the directory. One loop on the scheduler
// updates every room each turn, in rotating order (room-turn.ts), then sweeps: lapsed unused
// seats, rooms empty past their grace, the process heartbeat. With `workers`, the rooms run in
// worker threads instead (room-workers.ts) and this loop keeps the links, seats and sweep.

import { Emitter, consoleLogger, type Listenable, type Logger } from '../core/emitter.ts';
import { NetcodeError, asNetcodeError } from '../core/errors.ts';
import type { Protocol } from '../core/protocol.ts';
import { deriveSeed } from '../core/rng.ts';
import { ServerLoop } from '../core/server-loop.ts';
import { peerErrorMessage } from '../core/server-stages.ts';
import { MatchmakingError } from './matchmaker.ts';
import { RoomTurn } from './room-turn.ts';
import { WorkerPool, WorkerRoom } from './room-workers.ts';
import type { Scheduler } from '../core/transport.ts';
import { realTimeScheduler } from '../transport/scheduler.ts';
import type { Room, RoomType } from './define-room.ts';
import { settle, type Directory, type MaybePromise, type RoomListing } from './directory.ts';
import { LogLimiter } from '../core/log-limit.ts';
import { LiveRoom, type HostedRoom } from './live-room.ts';
import { MemoryDirectory } from './memory-directory.ts';
import type { CreateOptions, Matchmaker } from './matchmaker.ts';
import type { Seat } from './seat.ts';
import { LocalMatchmaker } from './room-matchmaking.ts';
import { RoomMux, RoomTransport } from './room-mux.ts';
import { RoomSeats } from './room-seats.ts';
import { roomStats, type RoomServerStats } from './room-stats.ts';
import { nonNegative, positive, type RoomServerEvents, type RoomServerOptions } from './room-server-options.ts';

export type { RoomServerEvents, RoomServerOptions } from './room-server-options.ts';

/** Rooms one process runs at most, unless the maxRooms option says otherwise. */
const DEFAULT_MAX_ROOMS = 500;
/** How often the sweep (lapsed seats, empty rooms, heartbeat) runs. */
const SWEEP_MS = 250;
/** The loop sleeps at most this long (so link timeouts are seen without rooms). */
const MAX_SLEEP_MS = 50;

export class RoomServer {
  readonly directory: Directory;
  readonly scheduler: Scheduler;
  readonly processId: string;
  readonly url: string | undefined;
  private readonly emitter = new Emitter<RoomServerEvents>();
  /** Room create and dispose events: listen with `on` (emitting is the room server's). */
  readonly events: Listenable<RoomServerEvents> = this.emitter;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each type has its own protocol
  readonly types = new Map<string, RoomType<any>>();
  readonly log: Logger;
  /** The rooms' logger: `log` through the limiter, by message shape. */
  private readonly roomLog: Logger;
  readonly seatLapseMs: number;
  /** Rooms this process runs at most (the maxRooms option). */
  readonly maxRooms: number;
  /** Rooms being created (their directory entry awaited): counted against maxRooms. */
  private opening = 0;
  readonly random: () => number;
  readonly mux: RoomMux;
  /** Matchmaking in this process: joinOrCreate, create, join, joinByCode, rooms (served over HTTP by serveRooms). */
  readonly matchmaker: Matchmaker;
  /** Draining: no new rooms, rooms locked, disposed as they empty. */
  draining = false;
  private readonly live = new Map<string, HostedRoom>();
  private order: HostedRoom[] = [];
  /** The rooms that run in this thread. */
  private readonly local: RoomTurn<LiveRoom<Protocol>>;
  private readonly pool: WorkerPool | undefined;
  private readonly emptyGraceMs: number;
  private loop: ServerLoop | undefined;
  private nextSweepAt = 0;
  private seeds = 0;
  private readonly unsubscribe: () => void;
  private readonly limited: LogLimiter;
  private nextReapAt = 0;

  constructor(private readonly options: RoomServerOptions) {
    this.directory = options.directory ?? new MemoryDirectory();
    this.scheduler = options.scheduler ?? realTimeScheduler;
    this.log = options.log ?? consoleLogger;
    this.limited = new LogLimiter(this.log);
    // What the rooms log goes through this process's limiter by shape: rooms that all fall behind at once (an
    // overloaded process) say so a few times, not once each.
    this.roomLog = this.limited.byShape('room', this.log, () => this.scheduler.now());
    this.random = options.random ?? secureUint32;
    this.processId = options.processId ?? `p${hex(this.random())}`;
    this.url = options.url;
    this.seatLapseMs = positive(options.seatLapseMs ?? 30_000, 'seatLapseMs');
    this.emptyGraceMs = nonNegative(options.emptyGraceMs ?? 30_000, 'emptyGraceMs');
    this.maxRooms = options.maxRooms ?? DEFAULT_MAX_ROOMS;
    if (!(Number.isInteger(this.maxRooms) && this.maxRooms > 0)) throw new NetcodeError('usage', `react-netcode: maxRooms must be an integer > 0, got ${String(options.maxRooms)}.`);
    for (const type of options.rooms) {
      if (this.types.has(type.name)) throw new NetcodeError('usage', `react-netcode: room type "${type.name}" is given twice; give each type one defineRoom.`);
      this.types.set(type.name, type);
    }
    const seats = new RoomSeats({
      directory: this.directory, scheduler: this.scheduler, processId: this.processId, url: this.url, seatLapseMs: this.seatLapseMs,
      room: (id) => this.live.get(id),
      holds: (token) => this.order.some((room) => room.holds(token)),
      fire: (v, what) => this.fire(v, what),
    });
    this.mux = new RoomMux(options.transport, seats, {
      now: () => this.scheduler.now(),
      seatTimeoutMs: positive(options.seatTimeoutMs ?? 10_000, 'seatTimeoutMs'),
      maxPendingPeers: positive(options.maxPendingPeers ?? 64, 'maxPendingPeers'),
      peerError: (peer, reason) => this.limited.log('warn', 'protocol error', peerErrorMessage(reason, `peer ${peer}`, false), this.scheduler.now()),
    });
    this.local = new RoomTurn((room, error, now) =>
      this.limited.log('error', 'room update', `react-netcode: room ${room.id} failed to update: ${asNetcodeError(error, 'updating a room').message}`, now));
    this.pool = this.workerPool(options);
    this.unsubscribe = this.directory.subscribe((change) => {
      const room = this.live.get(change.room.roomId);
      if (room === undefined || change.kind === 'remove') return;
      room.clients = change.room.clients;
      room.locked = change.room.locked;
      if (room instanceof WorkerRoom) room.synced();
    });
    this.matchmaker = new LocalMatchmaker(this);
    this.mux.listen();
  }

  private workerPool(options: RoomServerOptions): WorkerPool | undefined {
    const workers = options.workers;
    if (workers === undefined || workers === 0) return undefined;
    if (typeof workers !== 'object') {
      throw new NetcodeError('usage', "react-netcode: workers takes the count and the module that exports the room types, which every worker imports: workers: { count: 2, module: new URL('./rooms.ts', import.meta.url) }.");
    }
    return new WorkerPool(workers, {
      real: options.transport,
      log: this.roomLog,
      tokenOf: (peer) => this.mux.tokenOf(peer),
      evict: (peer, reason) => this.mux.evict(peer, reason),
      lost: (rooms, reason) => rooms.forEach((room) => this.forget(room, reason)),
      lock: (id, locked) => this.fire(this.directory.setLocked(id, locked), 'lock'),
      release: (token) => this.fire(this.directory.releaseSeat(token), 'release'),
    }, options.rooms);
  }

  /**
   * Resolves once the rooms can run: at once, or with `workers` once every worker has loaded
   * the module of room types; rejects with what is wrong when one could not.
   */
  ready(): Promise<void> {
    return this.pool?.ready() ?? Promise.resolve();
  }

  /** Before a room is created: throws `unavailable` when no worker can take it (matchmaking). */
  /**
   * Hold a place for a room about to open (released by the returned function once it opened or failed), or refuse:
   * checked and taken at once, so creates that run concurrently (each awaits the directory) never exceed maxRooms.
   */
  reserveRoom(): () => void {
    if (this.live.size + this.opening >= this.maxRooms) {
      throw new MatchmakingError('unavailable', `react-netcode: process ${this.processId} runs ${this.live.size + this.opening} rooms, its maxRooms, and takes no new one; join a room that runs, or add a process (or raise maxRooms).`);
    }
    this.opening++;
    let held = true;
    return () => {
      if (held) this.opening--;
      held = false;
    };
  }

  async canOpenRoom(): Promise<void> {
    if (this.pool === undefined) return;
    try {
      await this.pool.ready();
    } catch (error) {
      throw new MatchmakingError('unavailable', (error as Error).message);
    }
    const why = this.pool.unavailable;
    if (why !== undefined) throw new MatchmakingError('unavailable', why);
  }


  /** The rooms running in this process, in creation order (of every type: see roomsOf for one type's, typed). */
  get rooms(): readonly Room[] {
    return this.order;
  }

  /** The running rooms of one type (a defineRoom given in `rooms`), in creation order, typed by its protocol. */
  roomsOf<P extends Protocol>(type: RoomType<P>): readonly Room<P>[] {
    this.runs(type);
    return this.order.filter((room) => room.type === type.name) as unknown as readonly Room<P>[];
  }

  /** The running room with this id; with its `type`, typed by that type's protocol (undefined when the room is of another type). */
  room(roomId: string): Room | undefined;
  room<P extends Protocol>(roomId: string, type: RoomType<P>): Room<P> | undefined;
  room<P extends Protocol>(roomId: string, type?: RoomType<P>): Room | Room<P> | undefined {
    if (type === undefined) return this.live.get(roomId);
    this.runs(type);
    const room = this.live.get(roomId);
    return room?.type === type.name ? (room as unknown as Room<P>) : undefined;
  }

  /** A typed view is only true of the very room type this server was given (a same-named one may differ). */
  private runs(type: { readonly name: string }): void {
    if (this.types.get(type.name) === type) return;
    throw new NetcodeError('usage', `react-netcode: room type "${type.name}" is not one this room server was given; pass the defineRoom(...) value from its rooms option.`);
  }

  /** Run every room and the sweep on the scheduler: one loop, rooms in rotating order. */
  start(): this {
    this.loop ??= new ServerLoop(
      this.scheduler,
      (now) => this.update(now),
      () => this.msUntilNextTurn(),
      (error) => this.limited.log('error', 'loop', asNetcodeError(error, 'running the room server loop').message, this.scheduler.now()),
    );
    this.loop.start();
    return this;
  }

  stop(): void {
    this.loop?.stop();
  }

  /**
   * One turn at monotonic time `now`: every room runs its due ticks (each NetServer's own
   * fixed-step accumulator on this one clock, so rooms never drift apart), in an order that
   * rotates each turn; then the sweep. Tests call it by hand on a virtual clock.
   */
  update(now: number): void {
    this.mux.expire(now);
    this.local.run(now);
    if (now >= this.nextSweepAt) {
      this.nextSweepAt = now + SWEEP_MS;
      this.sweep(now);
      this.limited.flush(now); // counts of what the limiter left out, when their window is over
    }
  }

  private msUntilNextTurn(): number {
    return this.local.msUntilNext(MAX_SLEEP_MS);
  }

  private sweep(now: number): void {
    settle(this.directory.expireSeats(now), () => {
      for (const room of [...this.order]) {
        if (room.clients > 0 || room.holdsAny()) room.emptySince = undefined;
        else room.emptySince ??= now;
        const grace = this.draining ? 0 : room.emptyGraceMs;
        if (room.emptySince !== undefined && now - room.emptySince >= grace) this.dispose(room, 'empty');
      }
    }, (e) => this.directoryFailed(e, 'sweep'));
    let clients = 0;
    for (const room of this.order) clients += room.clients;
    const base = { processId: this.processId, rooms: this.order.length, clients, draining: this.draining, heartbeatAt: now };
    const record = this.url === undefined ? base : { ...base, url: this.url };
    const d = this.directory;
    if (d.heartbeat === undefined) return this.fire(d.registerProcess(record), 'heartbeat');
    settle(d.heartbeat(record), (fresh) => fresh && this.restore(), (e) => this.directoryFailed(e, 'heartbeat'));
    if (d.reap !== undefined && now >= this.nextReapAt) {
      this.nextReapAt = now + 1000;
      this.fire(d.reap(), 'reap');
    }
  }

  /** The directory lost this process (a Redis restart): register its rooms again, with the seats their players hold. */
  private restore(): void {
    const restoreRoom = this.directory.restoreRoom?.bind(this.directory);
    if (restoreRoom === undefined) return;
    for (const room of this.order) {
      const held = room.heldTokens().map((t) => [t, `restored-${t}`] as const);
      const listing: RoomListing = {
        roomId: room.id, type: room.type, processId: this.processId, ...(this.url === undefined ? {} : { url: this.url }),
        metadata: room.metadata, clients: held.length, maxClients: room.maxClients, private: room.private,
        ...(room.code === undefined ? {} : { code: room.code }), locked: room.locked, createdAt: room.createdAt,
      };
      this.fire(restoreRoom(listing, held), 'restore');
    }
  }

  /** Directory work nobody waits on: a failure is logged (rate-limited), never thrown. */
  private fire(value: MaybePromise<unknown>, what: string): void {
    settle(value, () => {}, (e) => this.directoryFailed(e, what));
  }

  private directoryFailed(error: unknown, what: string): void {
    const message = (error instanceof Error ? error.message.replace(/^react-netcode: /, '') : String(error)).replace(/[.;\s]+$/, '');
    this.limited.log('warn', 'directory', `react-netcode: the room directory failed (${what}): ${message}; the rooms go on, and it is retried.`, this.scheduler.now());
  }

  /**
   * Where a new room goes: undefined for this process, else the url of the least loaded live,
   * non-draining process of the cluster (fewest seats, then fewest rooms; this one on a tie).
   */
  async placeNewRoom(): Promise<string | undefined> {
    if (this.options.forwardCreate === undefined || this.directory.heartbeat === undefined) return undefined;
    const procs = await this.directory.processes();
    const load = (p: { clients: number; rooms: number }): number => p.clients * 1e6 + p.rooms;
    const self = procs.find((p) => p.processId === this.processId);
    let best = this.draining ? undefined : self;
    for (const p of procs) if (!p.draining && p.url !== undefined && (best === undefined || load(p) < load(best))) best = p;
    return best === undefined || best.processId === this.processId ? undefined : best.url;
  }

  /** Create the room on the process at `url` (placeNewRoom chose it). */
  forwardCreate(url: string, type: string, options: CreateOptions): Promise<Seat> {
    return this.options.forwardCreate!(url, type, options);
  }

  /** Build and register the room of a listing the directory accepted (room-matchmaking.ts): here, or on a worker. */
  openRoom(type: RoomType<Protocol>, listing: RoomListing): Room {
    const seed = deriveSeed(this.random(), this.seeds++);
    if (this.pool !== undefined) {
      const remote = this.pool.open(type, listing, seed, this.emptyGraceMs);
      this.live.set(remote.id, remote);
      this.order = [...this.order, remote];
      this.emitter.emit('create', remote);
      return remote;
    }
    const room = new LiveRoom(type, listing, new RoomTransport(this.options.transport), this.scheduler, {
      seed,
      randomUint32: this.random,
      emptyGraceMs: this.emptyGraceMs,
      log: this.roomLog,
    }, {
      tokenOf: (peer) => this.mux.tokenOf(peer),
      lock: (id, locked) => this.fire(this.directory.setLocked(id, locked), 'lock'),
      release: (token) => this.fire(this.directory.releaseSeat(token), 'release'),
      log: this.roomLog,
    });
    this.live.set(room.id, room);
    this.order = [...this.order, room];
    this.local.add(room);
    room.call('onCreate', () => type.definition.onCreate?.(room));
    this.emitter.emit('create', room);
    return room;
  }

  /** Close a room: its players are told `reason`, its seats leave the directory. */
  dispose(room: Room, reason: string): void {
    const live = this.live.get(room.id);
    if (live === undefined) return;
    this.live.delete(room.id);
    this.order = this.order.filter((r) => r !== live);
    if (live instanceof LiveRoom) this.local.remove(live);
    live.shut(reason === 'empty' ? 'react-netcode: the room was closed; matchmake again to play on.' : reason);
    this.fire(this.directory.removeRoom(room.id), 'remove');
    this.emitter.emit('dispose', live, reason);
  }

  /** A room whose worker died: it leaves the directory (its players were told by the pool). */
  private forget(room: HostedRoom, reason: string): void {
    if (!this.live.delete(room.id)) return;
    this.order = this.order.filter((r) => r !== room);
    this.fire(this.directory.removeRoom(room.id), 'remove');
    this.emitter.emit('dispose', room, reason);
  }

  /** Per-room and per-process figures (room-stats.ts; `metricsText` renders them for Prometheus). */
  stats(): RoomServerStats {
    return roomStats(this, this.order.map((r) => r.stats()), this.pool?.stats() ?? []);
  }

  /**
   * Drain before exit (SIGTERM): take no new rooms, lock the running ones (no new players), let
   * each end and be disposed as it empties, and after `maxWaitMs` (default 10 min) close the rest.
   * Resolves once no room is left; the loop must be running (start) or update() called.
   */
  drain(options: { maxWaitMs?: number; reason?: string } = {}): Promise<void> {
    this.draining = true;
    for (const room of this.order) room.lock();
    const maxWaitMs = nonNegative(options.maxWaitMs ?? 600_000, 'maxWaitMs');
    const reason = options.reason ?? 'react-netcode: the server is restarting; matchmake again to play on.';
    return new Promise((resolve) => {
      const timer = this.scheduler.setTimeout(() => {
        for (const room of [...this.order]) this.dispose(room, reason);
      }, maxWaitMs);
      const check = (): void => {
        if (this.order.length > 0) return;
        off();
        this.scheduler.clearTimeout(timer);
        resolve();
      };
      const off = this.events.on('dispose', check);
      check();
    });
  }

  /** Stop the loop, close every room (players are told `reason`) and the transport. */
  close(reason = 'react-netcode: the server is shutting down; matchmake again to play on.'): void {
    this.stop();
    for (const room of [...this.order]) this.dispose(room, reason);
    this.unsubscribe();
    this.pool?.close();
    this.mux.close();
  }
}

function secureUint32(): number {
  return globalThis.crypto.getRandomValues(new Uint32Array(1))[0]!;
}

export function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}
