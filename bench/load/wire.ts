// Load harness: what crosses a transport, seen from outside the engines. The probes
// wrap a client or server transport (any version of the library: they read only the
// framing of src/core/wire.ts — message kind bytes, Batch entries, the snapshot's
// tick) and count writes, messages and bytes each way, and which snapshot ticks were
// handed to the transport for a peer (server) or delivered by it (client). Counting
// at the transport makes loss visible whatever the engines themselves report.
import { forEachMessage } from '../../src/core/outbox.ts';
import type { ClientTransport, PeerId, ServerTransport } from '../../src/core/transport.ts';
import { MessageKind, SNAPSHOT_PREFIX_BYTES } from '../../src/core/wire.ts';
import { wallNow } from './measure.ts';

/** Traffic one way: transport writes, the messages they carried (Batch entries count one each) and payload bytes. */
export interface Traffic {
  writes: number;
  messages: number;
  bytes: number;
}

export const emptyTraffic = (): Traffic => ({ writes: 0, messages: 0, bytes: 0 });

export function trafficDelta(after: Traffic, before: Traffic | undefined): Traffic {
  return { writes: after.writes - (before?.writes ?? 0), messages: after.messages - (before?.messages ?? 0), bytes: after.bytes - (before?.bytes ?? 0) };
}

/** The tick of a Snapshot message (u32 little-endian after the kind byte and CRC), else undefined. */
export function snapshotTick(message: Uint8Array): number | undefined {
  if (message[0] !== MessageKind.Snapshot || message.byteLength < SNAPSHOT_PREFIX_BYTES + 4) return undefined;
  const at = SNAPSHOT_PREFIX_BYTES;
  return (message[at]! | (message[at + 1]! << 8) | (message[at + 2]! << 16) | (message[at + 3]! << 24)) >>> 0;
}

/** Count one write and call `onSnapshot` with the tick of each snapshot it carries. */
function count(traffic: Traffic, data: Uint8Array, onSnapshot: (tick: number) => void): void {
  traffic.writes++;
  traffic.bytes += data.byteLength;
  try {
    forEachMessage(data, (message) => {
      traffic.messages++;
      const tick = snapshotTick(message);
      if (tick !== undefined) onSnapshot(tick);
    });
  } catch {
    traffic.messages++; // malformed framing: the engine will reject it; count it as one message
  }
}

/** What a client's transport carried, each way. */
export interface ClientProbe {
  readonly out: Traffic;
  readonly in: Traffic;
  /** Snapshot ticks delivered to the client, in arrival order. */
  readonly snapshotTicks: number[];
}

/** Wrap a client transport; the returned transport is the one to give the client. */
export function probeClientTransport(inner: ClientTransport): { transport: ClientTransport; probe: ClientProbe } {
  const probe: ClientProbe = { out: emptyTraffic(), in: emptyTraffic(), snapshotTicks: [] };
  const onSnapshot = (tick: number): void => void probe.snapshotTicks.push(tick);
  const transport: ClientTransport = {
    connect: (handler) =>
      inner.connect({
        onOpen: () => handler.onOpen(),
        onMessage: (data, channel) => {
          count(probe.in, data, onSnapshot);
          handler.onMessage(data, channel);
        },
        onClose: (reason) => handler.onClose(reason),
      }),
    send: (data, channel) => {
      count(probe.out, data, () => {});
      inner.send(data, channel);
    },
    close: (reason) => inner.close(reason),
  };
  if (inner.stats) Object.defineProperty(transport, 'stats', { get: () => inner.stats, enumerable: true });
  return { transport, probe };
}

/** What the server's transport carried for one peer. */
export interface PeerProbe {
  readonly out: Traffic;
  readonly in: Traffic;
  /** Snapshot ticks handed to the transport for this peer, with the wallNow() of the write. */
  readonly snapshots: { tick: number; at: number }[];
}

/** Wrap a server transport; `peers` fills as peers send or are sent to. */
export function probeServerTransport(inner: ServerTransport): { transport: ServerTransport; peers: Map<PeerId, PeerProbe> } {
  const peers = new Map<PeerId, PeerProbe>();
  const peer = (id: PeerId): PeerProbe => {
    let p = peers.get(id);
    if (p === undefined) peers.set(id, (p = { out: emptyTraffic(), in: emptyTraffic(), snapshots: [] }));
    return p;
  };
  const transport: ServerTransport = {
    listen: (handler) =>
      inner.listen({
        onConnect: (id) => handler.onConnect(id),
        onMessage: (id, data, channel) => {
          count(peer(id).in, data, () => {});
          handler.onMessage(id, data, channel);
        },
        onDisconnect: (id, reason) => handler.onDisconnect(id, reason),
      }),
    send: (id, data, channel) => {
      const p = peer(id);
      count(p.out, data, (tick) => p.snapshots.push({ tick, at: wallNow() }));
      inner.send(id, data, channel);
    },
    disconnect: (id, reason) => inner.disconnect(id, reason),
    close: () => inner.close(),
    peerStats: (id) => inner.peerStats?.(id),
  };
  return { transport, peers };
}
