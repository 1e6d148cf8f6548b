// Load harness: the baseline's clients and its run. Bare socket.io-client sockets,
// each on its own FrameLoop, emit one `upBytes` payload per frame with plain `emit`
// (as react-netcode's client writes once per frame) while raw-server.ts emits
// `downBytes` payloads `downHz` times a second to each. Same phases as scenario.ts:
// connect → warm-up → mark → active → both sides stop sending → drain → reports.
// Loss is exact: every payload carries a sequence number and both sides count.
import { io, type Socket } from 'socket.io-client';
import { FrameLoop } from './frame-loop.ts';
import type { ServerReport } from './ipc.ts';
import { round, sleep, wallNow } from './measure.ts';
import { RAW_PATH, rawPayload, rawSeq } from './raw-server.ts';
import type { ServerProcess } from './server-control.ts';

export interface RawScenario {
  clients: number;
  fps: number;
  /** Bytes per client frame (one emit per frame) and per server emit; server emits per second per client. */
  upBytes: number;
  downBytes: number;
  downHz: number;
  activeMs: number;
  /** After every client connected, before the mark (ms, default 500). */
  warmupMs?: number;
  /** After both sides stopped sending, before the reports (ms, default 500). */
  drainMs?: number;
}

export interface RawClientResult {
  name: string;
  /** Payloads lost each way: sent by one side and never counted by the other (whole run). */
  upLost: number;
  downLost: number;
  upSent: number;
  downSent: number;
  upBytesPerSec: number;
  downBytesPerSec: number;
  framesPerSec: number;
  maxStallMs: number;
}

class RawClient {
  readonly socket: Socket;
  readonly loop: FrameLoop;
  sending = true;
  sent = 0;
  received = 0;
  bytesOut = 0;
  bytesIn = 0;
  base = { sent: 0, received: 0, bytesOut: 0, bytesIn: 0, frames: 0, at: 0 };

  constructor(
    url: string,
    readonly name: string,
    fps: number,
    private readonly upBytes: number,
    seed: number,
  ) {
    this.socket = io(url, { path: RAW_PATH, transports: ['websocket'], reconnection: false, forceNew: true, auth: { client: name } });
    this.socket.on('u', (data: unknown) => {
      if (rawSeq(data) === undefined) return;
      this.received++;
      this.bytesIn += (data as Uint8Array).byteLength;
    });
    this.loop = new FrameLoop({ fps, seed });
  }

  start(): void {
    this.loop.start(() => {
      if (!this.sending || !this.socket.connected) return;
      this.socket.emit('u', rawPayload(this.upBytes, this.sent));
      this.sent++;
      this.bytesOut += this.upBytes;
    });
  }

  mark(): void {
    this.base = { sent: this.sent, received: this.received, bytesOut: this.bytesOut, bytesIn: this.bytesIn, frames: this.loop.frames, at: wallNow() };
  }

  stop(): void {
    this.loop.stop();
    this.socket.disconnect();
  }
}

export async function runRawScenario(server: ServerProcess, s: RawScenario): Promise<{ server: ServerReport; clients: RawClientResult[] }> {
  const port = await server.start({ mode: 'raw', downBytes: s.downBytes, downHz: s.downHz });
  const clients: RawClient[] = [];
  try {
    for (let i = 0; i < s.clients; i++) clients.push(new RawClient(`http://127.0.0.1:${port}`, `raw${i}@${s.fps}fps`, s.fps, s.upBytes, i + 1));
    await Promise.all(
      clients.map(
        (c) =>
          new Promise<void>((resolve, reject) => {
            c.socket.once('connect', () => resolve());
            c.socket.once('connect_error', (e: Error) => reject(new Error(`react-netcode: raw client ${c.name} could not connect: ${e.message}`)));
          }),
      ),
    );
    for (const c of clients) c.start();
    await sleep(s.warmupMs ?? 500);
    await server.mark();
    for (const c of clients) c.mark();
    await sleep(s.activeMs);
    for (const c of clients) c.sending = false;
    await server.quiesce();
    const stoppedAt = wallNow();
    const framesAtStop = clients.map((c) => c.loop.frames);
    await sleep(s.drainMs ?? 500);
    const report = await server.report();
    const results = clients.map((c, i): RawClientResult => {
      const peer = report.raw.find((p) => p.client === c.name);
      if (!peer) throw new Error(`react-netcode: the raw server reports no client ${c.name}; did it disconnect?`);
      const seconds = (stoppedAt - c.base.at) / 1000;
      return {
        name: c.name,
        upLost: c.sent - peer.receivedTotal,
        downLost: peer.sentTotal - c.received,
        upSent: c.sent,
        downSent: peer.sentTotal,
        upBytesPerSec: round((c.bytesOut - c.base.bytesOut) / seconds, 0),
        downBytesPerSec: round((c.bytesIn - c.base.bytesIn) / seconds, 0),
        framesPerSec: round((framesAtStop[i]! - c.base.frames) / seconds, 1),
        maxStallMs: c.loop.gaps.maxExcessMs,
      };
    });
    return { server: report, clients: results };
  } finally {
    for (const c of clients) c.stop();
    await server.stop();
  }
}
