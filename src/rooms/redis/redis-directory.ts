// The room directory in Redis, shared by every process of a cluster: rooms, seats and process
// heartbeats in Redis keys, every change made by one Lua script (scripts.ts) so claims are
// atomic across processes, and the change feed on Redis pub/sub (lobbies of every process see
// every room). A process whose heartbeat lapses (killed, partitioned) has its rooms reaped by
// the others within the heartbeat TTL. Redis restarting or unreachable rejects the calls made
// meanwhile (the room server logs and goes on); the client reconnects by itself.

import type {
  ClaimQuery, ClaimRefusal, ClaimResult, Directory, ProcessRecord, RoomChange, RoomListing, RoomQuery, SeatRecord,
} from '../directory.ts';
import { consoleLogger } from '../../core/emitter.ts';
import { RespClient, type RespValue } from './resp.ts';
import * as S from './scripts.ts';

export interface RedisDirectoryOptions {
  /** redis://host:port (e.g. process.env.REDIS_URL). */
  url: string;
  /** Key prefix, so several games can share one Redis (default 'rn:'). */
  prefix?: string;
  /** The clock the room server's times are on (default performance.now(), the real scheduler's). */
  now?: () => number;
  /** A process that does not renew its heartbeat within this long is dead: its rooms are reaped (default 5000 ms). */
  heartbeatTtlMs?: number;
  /** Told about connection problems (default: console.warn). */
  onError?: (message: string) => void;
  /** Called when the connection to Redis came back (the room server re-registers). */
  onReconnect?: () => void;
}

type Wire = Record<string, unknown>;

/**
 * A heartbeat (renewed every 250 ms) older than this (ms; at most half the TTL) marks its process late: matchmaking's
 * search and the placement of new rooms pass it by, as it may have died and not been reaped yet (TTL + up to 1 s).
 */
const LATE_MS = 1500;

export class RedisDirectory implements Directory {
  readonly prefix: string;
  readonly heartbeatTtlMs: number;
  /** A process whose heartbeat is older than this (ms) gets no new players or rooms: it may be dead and not yet reaped. */
  private readonly lateMs: number;
  private readonly client: RespClient;
  private readonly subscriber: RespClient;
  private readonly listeners = new Set<(change: RoomChange) => void>();
  private readonly now: () => number;

  constructor(options: RedisDirectoryOptions) {
    this.prefix = options.prefix ?? 'rn:';
    this.heartbeatTtlMs = options.heartbeatTtlMs ?? 5000;
    this.lateMs = Math.min(LATE_MS, this.heartbeatTtlMs / 2);
    this.now = options.now ?? (() => performance.now());
    const onError = options.onError ?? ((m: string) => consoleLogger('warn', m));
    this.client = new RespClient(options.url, { onError, ...(options.onReconnect ? { onReconnect: options.onReconnect } : {}) });
    this.subscriber = new RespClient(options.url, { onError });
    this.subscriber.subscribe(`${this.prefix}changes`, (message) => {
      let change: RoomChange;
      try {
        const raw = JSON.parse(message) as { version: number; kind: RoomChange['kind']; room: Wire };
        change = { version: raw.version, kind: raw.kind, room: toListing(raw.room) };
      } catch {
        return;
      }
      for (const listener of [...this.listeners]) listener(change);
    });
  }

  /** Whether the command connection is up. */
  get connected(): boolean {
    return this.client.connected;
  }

  close(): void {
    this.client.close();
    this.subscriber.close();
  }

  private run(script: string, ...args: (string | number)[]): Promise<RespValue> {
    return this.client.command(['EVAL', script, 0, this.prefix, ...args]);
  }

  /** A claim's answer, with Redis times turned into this process's clock. */
  private result(reply: RespValue): ClaimResult {
    const raw = JSON.parse(String(reply)) as { refused?: ClaimRefusal; seat?: Wire; room?: Wire; existing?: boolean; now?: number };
    if (raw.refused !== undefined) return { refused: raw.refused };
    return { seat: this.toSeat(raw.seat!, raw.now!), room: toListing(raw.room!), existing: raw.existing === true };
  }

  private toSeat(s: Wire, redisNow: number): SeatRecord {
    return {
      token: String(s.token), requestId: String(s.requestId), roomId: String(s.roomId), used: s.used === true,
      expiresAt: this.now() + (Number(s.expiresAt) - redisNow),
    };
  }

  async claim(q: ClaimQuery): Promise<ClaimResult> {
    const reply = await this.run(S.CLAIM, q.requestId, q.token, q.expiresAt - this.now(), q.roomId ?? '', q.code ?? '', q.type ?? '', JSON.stringify(q.filter ?? {}), this.heartbeatTtlMs - this.lateMs);
    return this.result(reply);
  }

  async addRoom(room: RoomListing, first: Omit<ClaimQuery, 'roomId' | 'code' | 'type' | 'filter'>): Promise<ClaimResult> {
    return this.result(await this.run(S.ADD_ROOM, JSON.stringify(room), first.requestId, first.token, first.expiresAt - this.now()));
  }

  /** Register a room again after Redis lost it (a restart without persistence), with the seats its connections hold. */
  async restoreRoom(room: RoomListing, held: ReadonlyArray<readonly [token: string, requestId: string]>): Promise<void> {
    await this.run(S.RESTORE_ROOM, JSON.stringify(room), JSON.stringify(held.length === 0 ? [] : held));
  }

  async setLocked(roomId: string, locked: boolean): Promise<void> {
    await this.run(S.SET_LOCKED, roomId, locked ? '1' : '0');
  }

  async removeRoom(roomId: string): Promise<readonly SeatRecord[]> {
    const raw = JSON.parse(String(await this.run(S.REMOVE_ROOM, roomId))) as { seats: Wire[] | Wire; now: number };
    return (Array.isArray(raw.seats) ? raw.seats : []).map((s) => this.toSeat(s, raw.now));
  }

  async seat(token: string): Promise<SeatRecord | undefined> {
    const [reply, time] = await Promise.all([this.client.command(['HGETALL', `${this.prefix}seat:${token}`]), this.client.command(['TIME'])]);
    if (!Array.isArray(reply) || reply.length === 0) return undefined;
    const s: Wire = { token };
    for (let i = 0; i + 1 < reply.length; i += 2) s[String(reply[i])] = reply[i + 1];
    s.used = s.used === '1';
    const t = time as string[];
    return this.toSeat(s, Number(t[0]) * 1000 + Math.floor(Number(t[1]) / 1000));
  }

  async markUsed(token: string, used: boolean, expiresAt: number): Promise<void> {
    await this.run(S.MARK_USED, token, used ? '1' : '0', Math.max(0, expiresAt - this.now()));
  }

  async releaseSeat(token: string): Promise<void> {
    await this.run(S.RELEASE, token);
  }

  async expireSeats(): Promise<readonly SeatRecord[]> {
    const raw = JSON.parse(String(await this.run(S.EXPIRE))) as { seats: Wire[] | Wire; now: number };
    return (Array.isArray(raw.seats) ? raw.seats : []).map((s) => this.toSeat(s, raw.now));
  }

  async rooms(query: RoomQuery = {}): Promise<readonly RoomListing[]> {
    const [rooms, clients] = await Promise.all([this.client.command(['HGETALL', `${this.prefix}rooms`]), this.client.command(['HGETALL', `${this.prefix}clients`])]);
    const counts = new Map<string, number>();
    if (Array.isArray(clients)) for (let i = 0; i + 1 < clients.length; i += 2) counts.set(String(clients[i]), Number(clients[i + 1]));
    const out: Array<RoomListing & { seq: number }> = [];
    if (!Array.isArray(rooms)) return out;
    for (let i = 0; i + 1 < rooms.length; i += 2) {
      const raw = JSON.parse(String(rooms[i + 1])) as Wire;
      const room = toListing({ ...raw, clients: counts.get(String(rooms[i])) ?? 0 });
      if (query.type !== undefined && room.type !== query.type) continue;
      if (room.private && query.includePrivate !== true) continue;
      out.push({ ...room, seq: Number(raw.seq ?? 0) });
    }
    return out.sort((a, b) => a.seq - b.seq).map(({ seq: _seq, ...room }) => room);
  }

  async room(roomId: string): Promise<RoomListing | undefined> {
    const [raw, clients] = await Promise.all([this.client.command(['HGET', `${this.prefix}rooms`, roomId]), this.client.command(['HGET', `${this.prefix}clients`, roomId])]);
    return typeof raw === 'string' ? toListing({ ...(JSON.parse(raw) as Wire), clients: Number(clients ?? 0) }) : undefined;
  }

  async version(): Promise<number> {
    return Number((await this.client.command(['GET', `${this.prefix}version`])) ?? 0);
  }

  subscribe(listener: (change: RoomChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Renew this process's heartbeat (TTL heartbeatTtlMs); true when it was not registered (new, or it had lapsed). */
  async heartbeat(record: ProcessRecord): Promise<boolean> {
    return (await this.run(S.HEARTBEAT, record.processId, JSON.stringify(record), this.heartbeatTtlMs)) === 1;
  }

  async registerProcess(record: ProcessRecord): Promise<void> {
    await this.heartbeat(record);
  }

  /** The processes whose heartbeat is on time (renewed within `lateMs`): a late one may be dead, not yet reaped. */
  async processes(): Promise<readonly ProcessRecord[]> {
    const ids = await this.client.command(['SMEMBERS', `${this.prefix}procs`]);
    if (!Array.isArray(ids) || ids.length === 0) return [];
    const keys = ids.map((id) => `${this.prefix}proc:${String(id)}`);
    const [records, ...left] = await Promise.all([this.client.command(['MGET', ...keys]), ...keys.map((k) => this.client.command(['PTTL', k]))]);
    const floor = this.heartbeatTtlMs - this.lateMs;
    const out: ProcessRecord[] = [];
    if (Array.isArray(records)) records.forEach((r, i) => typeof r === 'string' && Number(left[i]) >= floor && out.push(JSON.parse(r) as ProcessRecord));
    return out;
  }

  /** Remove the rooms of processes whose heartbeat lapsed; returns their ids. */
  async reap(): Promise<readonly string[]> {
    const removed = JSON.parse(String(await this.run(S.REAP))) as unknown;
    return Array.isArray(removed) ? removed.map(String) : [];
  }
}

function toListing(raw: Wire): RoomListing {
  const { seq: _seq, ...room } = raw;
  const metadata = room.metadata;
  return { ...(room as unknown as RoomListing), metadata: metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata) ? (metadata as RoomListing['metadata']) : {} };
}
