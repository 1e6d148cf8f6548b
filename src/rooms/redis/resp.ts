// A minimal Redis client (RESP2 over TCP) for the Redis directory: commands answered in order,
// a separate subscriber connection for pub/sub, and reconnection with a growing delay when
// Redis restarts or is briefly unreachable — commands sent meanwhile fail at once (the caller
// retries), subscriptions are renewed on reconnect. Nothing here throws at the process.

import { connect, type Socket } from 'node:net';
import { NetcodeError } from '../../core/errors.ts';

/** A Redis error reply (`-ERR …`), as a value: the caller decides what to raise. */
export class RespError {
  constructor(readonly message: string) {}
}

export type RespValue = string | number | null | RespValue[] | RespError;

/** Parse one RESP2 value from `buf` at `pos`; undefined when it is not all there yet. */
export function parseResp(buf: Buffer, pos: number): { value: RespValue; end: number } | undefined {
  if (pos >= buf.length) return undefined;
  const line = buf.indexOf('\r\n', pos);
  if (line < 0) return undefined;
  const head = buf.toString('utf8', pos + 1, line);
  const type = String.fromCharCode(buf[pos]!);
  if (type === '+') return { value: head, end: line + 2 };
  if (type === '-') return { value: new RespError(head), end: line + 2 };
  if (type === ':') return { value: Number(head), end: line + 2 };
  if (type === '$') {
    const n = Number(head);
    if (n < 0) return { value: null, end: line + 2 };
    if (buf.length < line + 2 + n + 2) return undefined;
    return { value: buf.toString('utf8', line + 2, line + 2 + n), end: line + 2 + n + 2 };
  }
  if (type === '*') {
    const n = Number(head);
    if (n < 0) return { value: null, end: line + 2 };
    const items: RespValue[] = [];
    let at = line + 2;
    for (let i = 0; i < n; i++) {
      const item = parseResp(buf, at);
      if (item === undefined) return undefined;
      items.push(item.value);
      at = item.end;
    }
    return { value: items, end: at };
  }
  throw new NetcodeError('transport', `react-netcode: unexpected RESP type byte ${buf[pos]} from Redis; check that REDIS_URL points at a Redis server.`);
}

function encode(args: readonly (string | number)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const a of args) {
    const b = Buffer.from(String(a), 'utf8');
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

export interface RespClientOptions {
  /** Told of connection problems (not thrown): the client reconnects by itself. */
  onError?: (message: string) => void;
  /** Called after every (re)connection, e.g. to re-register (default none). */
  onReconnect?: () => void;
}

/** How long a closing client waits for the replies of what it sent before it drops the connection. */
const QUIT_WAIT_MS = 2000;

export class RespClient {
  private socket: Socket | undefined;
  private ready = false;
  private closed = false;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly waiting: Array<{ resolve: (v: RespValue) => void; reject: (e: Error) => void }> = [];
  private readonly channels = new Map<string, (message: string) => void>();
  private delayMs = 100;
  /** Commands sent before the first connection opened, written once it does. */
  private early: Buffer[] = [];
  private connectedOnce = false;
  /** An outage was reported (once, until the connection is back). */
  private down = false;
  private readonly host: string;
  private readonly port: number;

  constructor(url: string, private readonly options: RespClientOptions = {}) {
    const u = new URL(url);
    if (u.protocol !== 'redis:') throw new NetcodeError('usage', `react-netcode: REDIS_URL must be redis://host:port, got ${url}.`);
    this.host = u.hostname || '127.0.0.1';
    this.port = Number(u.port || 6379);
    this.open();
  }

  get connected(): boolean {
    return this.ready;
  }

  /** Send one command; resolves with its reply (a Redis error reply rejects). Fails at once while disconnected. */
  command(args: readonly (string | number)[]): Promise<RespValue> {
    if (this.closed) return Promise.reject(new NetcodeError('transport', 'react-netcode: the Redis client is closed.'));
    if (!this.ready && !this.connectedOnce) {
      // The first connection is still opening: wait for it (a failure to open rejects these).
      return new Promise((resolve, reject) => {
        this.waiting.push({ resolve, reject });
        this.early.push(encode(args));
      });
    }
    if (!this.ready || this.socket === undefined) {
      return Promise.reject(new NetcodeError('transport', `react-netcode: Redis at ${this.host}:${this.port} is unreachable (reconnecting); retry shortly.`));
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.socket!.write(encode(args));
    });
  }

  /** Subscribe this connection to `channel` (a client that subscribes is used for nothing else). */
  subscribe(channel: string, onMessage: (message: string) => void): void {
    this.channels.set(channel, onMessage);
    if (this.ready) this.socket!.write(encode(['SUBSCRIBE', channel]));
  }

  /**
   * Close the connection. Commands already sent still get their replies (a QUIT is queued after them; Redis answers
   * it and closes), so work issued just before, such as a closing room server's last removals, is not lost.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const socket = this.socket;
    if (socket !== undefined && this.ready && this.waiting.length > 0 && this.channels.size === 0) {
      this.waiting.push({ resolve: () => {}, reject: () => {} });
      socket.write(encode(['QUIT']));
      setTimeout(() => socket.destroy(), QUIT_WAIT_MS).unref();
      return;
    }
    socket?.destroy();
    this.fail('react-netcode: the Redis client was closed.');
  }

  private open(): void {
    const socket = connect({ host: this.host, port: this.port });
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('connect', () => {
      this.ready = true;
      this.delayMs = 100;
      for (const channel of this.channels.keys()) socket.write(encode(['SUBSCRIBE', channel]));
      for (const command of this.early.splice(0)) socket.write(command);
      if (this.down) this.options.onError?.(`react-netcode: Redis at ${this.host}:${this.port} is reachable again.`);
      this.down = false;
      if (this.connectedOnce) this.options.onReconnect?.();
      this.connectedOnce = true;
    });
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (e) => {
      if (this.down || this.closed) return; // one line per outage, not one per attempt
      this.down = true;
      this.options.onError?.(`react-netcode: Redis connection error (${e.message}); reconnecting (said again when it is back).`);
    });
    socket.on('close', () => {
      this.ready = false;
      this.buffer = Buffer.alloc(0);
      this.early = [];
      this.fail(`react-netcode: the connection to Redis at ${this.host}:${this.port} closed; retry shortly.`);
      if (this.closed) return;
      const delay = this.delayMs;
      this.delayMs = Math.min(2000, this.delayMs * 2);
      setTimeout(() => this.closed || this.open(), delay).unref();
    });
  }

  private fail(message: string): void {
    for (const w of this.waiting.splice(0)) w.reject(new NetcodeError('transport', message));
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    let pos = 0;
    for (;;) {
      const parsed = parseResp(this.buffer, pos);
      if (parsed === undefined) break;
      pos = parsed.end;
      this.reply(parsed.value);
    }
    this.buffer = pos === this.buffer.length ? Buffer.alloc(0) : this.buffer.subarray(pos);
  }

  private reply(value: RespValue): void {
    if (this.channels.size > 0 && Array.isArray(value)) {
      if (value[0] === 'message' && typeof value[1] === 'string' && typeof value[2] === 'string') this.channels.get(value[1])?.(value[2]);
      return; // subscribe confirmations
    }
    const w = this.waiting.shift();
    if (w === undefined) return;
    if (value instanceof RespError) w.reject(new NetcodeError('transport', `react-netcode: Redis answered an error: ${value.message}`));
    else w.resolve(value);
  }
}
