// How TCP suffers loss, as a decorator over a server transport (socket.io): every message,
// on both channels, is one segment; a lost segment arrives one retransmission timeout late
// and everything after it waits behind it (head-of-line blocking). RTO = max(200 ms,
// SRTT + 4·RTTVAR) (RFC 6298 with Linux's 200 ms floor); on a LAN SRTT + 4·RTTVAR is far
// below 200 ms, so RTO = 200 ms. Applied per peer and direction, seeded.
import { createRng } from '../../src/core/rng.ts';
import type { Channel, PeerId, ServerTransport, ServerTransportHandler } from '../../src/core/transport.ts';

export interface TcpLossOptions {
  loss: number;
  seed: number;
  srttMs?: number;
  rttvarMs?: number;
}

/** In-order delivery with a per-segment loss that costs one RTO. */
class Lane {
  private last = 0;
  constructor(private readonly rto: number, private readonly chance: () => boolean) {}
  /** Run `deliver` when this segment arrives: after the previous one, one RTO late if lost. */
  push(deliver: () => void): void {
    const now = performance.now();
    const at = Math.max(this.last, now + (this.chance() ? this.rto : 0));
    this.last = at;
    if (at <= now) deliver();
    else setTimeout(deliver, at - now);
  }
}

export function tcpLoss(inner: ServerTransport, options: TcpLossOptions): ServerTransport {
  const rto = Math.max(200, (options.srttMs ?? 0.2) + 4 * (options.rttvarMs ?? 0.1));
  const lanes = new Map<PeerId, { up: Lane; down: Lane }>();
  const lane = (peer: PeerId): { up: Lane; down: Lane } => {
    let l = lanes.get(peer);
    if (l === undefined) {
      const rng = createRng((options.seed * 7919 + peer) >>> 0);
      const chance = (): boolean => rng.chance(options.loss);
      lanes.set(peer, (l = { up: new Lane(rto, chance), down: new Lane(rto, chance) }));
    }
    return l;
  };
  return {
    ...inner,
    listen(handler: ServerTransportHandler): void {
      inner.listen({
        ...(handler.canConnect ? { canConnect: (n: number) => handler.canConnect!(n) } : {}),
        onConnect: (peer) => handler.onConnect(peer),
        onMessage: (peer, data, channel) => lane(peer).up.push(() => lanes.has(peer) && handler.onMessage(peer, data, channel)),
        onDisconnect: (peer, reason) => {
          lanes.delete(peer);
          handler.onDisconnect(peer, reason);
        },
      });
    },
    send(peer: PeerId, data: Uint8Array, channel: Channel): void {
      lane(peer).down.push(() => lanes.has(peer) && inner.send(peer, data, channel));
    },
    disconnect: (peer, reason) => inner.disconnect(peer, reason),
    close: () => inner.close(),
    peerStats: (peer) => inner.peerStats?.(peer),
  };
}
