// Load harness, server process side: the baseline. A bare socket.io server (same
// path, WebSocket only, plain `emit`) that emits a `downBytes` payload to every client
// `downHz` times a second from a fixed-step loop, and counts what clients emit to it.
// Each payload starts with a u32 sequence number, so loss and reordering are seen
// exactly; raw-clients.ts is the other side. No netcode: what socket.io itself gives.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import type { RawPeerReport, RawServerConfig, ServerReport } from './ipc.ts';
import { GapRecorder, wallNow } from './measure.ts';
import { SocketCounter, type RunningServer } from './server-kit.ts';

export const RAW_PATH = '/raw';

/** A payload of `bytes` bytes (at least 4) starting with `seq` (u32 LE); the rest is filler. */
export function rawPayload(bytes: number, seq: number): Uint8Array {
  const out = new Uint8Array(Math.max(4, bytes));
  new DataView(out.buffer).setUint32(0, seq >>> 0, true);
  for (let i = 4; i < out.length; i++) out[i] = (i * 31) & 0xff;
  return out;
}

/** The sequence number of a received payload (Node delivers a Buffer), or undefined if it is not one. */
export function rawSeq(data: unknown): number | undefined {
  if (!ArrayBuffer.isView(data) || data.byteLength < 4) return undefined;
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true);
}

interface Peer {
  socket: Socket;
  client: string;
  received: number;
  sent: number;
  bytesIn: number;
  bytesOut: number;
}
type Counts = Omit<Peer, 'socket' | 'client'>;

export async function startRawServer(config: RawServerConfig): Promise<RunningServer> {
  if (!(config.downHz > 0) || !(config.downBytes >= 4)) throw new Error(`react-netcode: raw server needs downHz > 0 and downBytes >= 4 (got ${config.downHz}, ${config.downBytes}).`);
  const http = createServer();
  const io = new Server(http, { path: RAW_PATH, serveClient: false, transports: ['websocket'] });
  const sockets = new SocketCounter(http);
  const peers: Peer[] = [];
  io.on('connection', (socket) => {
    const peer: Peer = { socket, client: String((socket.handshake.auth as { client?: unknown }).client ?? socket.id), received: 0, sent: 0, bytesIn: 0, bytesOut: 0 };
    peers.push(peer);
    socket.on('u', (data: unknown) => {
      if (rawSeq(data) === undefined) return;
      peer.received++;
      peer.bytesIn += (data as Uint8Array).byteLength;
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  const periodMs = 1000 / config.downHz;
  const gaps = new GapRecorder(config.stallFloorMs ?? 8);
  let sending = true;
  let due = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const loop = (): void => {
    const now = performance.now();
    for (let n = 0; due <= now && n < 8; n++, due += periodMs) {
      for (const p of peers) {
        if (!sending || !p.socket.connected) continue;
        p.socket.emit('u', rawPayload(config.downBytes, p.sent));
        p.sent++;
        p.bytesOut += config.downBytes;
      }
    }
    if (due <= now) due = now + periodMs; // more than 8 periods behind: skip, as the netcode loop clamps its catch-up
    const delay = Math.max(1, due - performance.now());
    gaps.note(wallNow(), delay);
    timer = setTimeout(loop, delay);
  };
  loop();

  let markAt = wallNow();
  let base = new Map<Peer, Counts>();
  return {
    port,
    mark() {
      markAt = wallNow();
      sockets.mark();
      base = new Map(peers.map((p) => [p, { received: p.received, sent: p.sent, bytesIn: p.bytesIn, bytesOut: p.bytesOut }]));
    },
    quiesce() {
      sending = false;
    },
    report(): ServerReport {
      const stalls = gaps.since(markAt);
      const raw = peers.map((p): RawPeerReport => {
        const b = base.get(p);
        return {
          client: p.client,
          receivedTotal: p.received,
          sentTotal: p.sent,
          received: p.received - (b?.received ?? 0),
          sent: p.sent - (b?.sent ?? 0),
          bytesIn: p.bytesIn - (b?.bytesIn ?? 0),
          bytesOut: p.bytesOut - (b?.bytesOut ?? 0),
        };
      });
      return { mode: 'raw', markAt, at: wallNow(), tickRate: config.downHz, stalls, maxStallMs: stalls.reduce((m, g) => Math.max(m, g.excessMs), 0), wire: sockets.sinceMark(), warnings: [], connections: [], raw };
    },
    async stop() {
      clearTimeout(timer);
      await io.close();
    },
  };
}
