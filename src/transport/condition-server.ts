// conditionServer: the server-side counterpart of conditionClient. It wraps any
// ServerTransport (socket.io, the loopback) so that every peer's link gets its own
// pair of seeded LinkConditioners: what a peer sends is delayed / lost before the
// server engine sees it (`up`), what the server sends it before the inner
// transport writes it (`down`). A latency on the server then applies to every
// client, whatever page or process it runs in.

import { NetcodeError } from '../core/errors.ts';
import { deriveSeed } from '../core/rng.ts';
import type { PeerId, Scheduler, ServerTransport, ServerTransportHandler, TransportStats } from '../core/transport.ts';
import { LinkConditioner, type LinkOptions } from './conditioner.ts';
import { DelayLine } from './delay-line.ts';

/** The conditions of one peer's link: `up` = client → server, `down` = server → client. */
export interface PeerLinkOptions {
  up?: LinkOptions;
  down?: LinkOptions;
}

export interface ServerConditionerOptions extends PeerLinkOptions {
  /** Each peer's conditioners are seeded from this seed and the PeerId. */
  seed: number;
  /**
   * Conditions of one peer, asked once when it connects; a direction it leaves out (or
   * `undefined` for the whole peer) takes `up` / `down`.
   */
  forPeer?: (peer: PeerId) => PeerLinkOptions | undefined;
}

export interface ConditionedServerTransport extends ServerTransport {
  /**
   * Live change: with `peer`, that peer's link only; without, the defaults for peers
   * that connect later and every connected peer's link. An omitted direction is left as is.
   */
  setOptions(options: PeerLinkOptions, peer?: PeerId): void;
  /** The conditioners of a connected peer (their `stats`), undefined for an unknown peer. */
  link(peer: PeerId): { readonly up: LinkConditioner; readonly down: LinkConditioner } | undefined;
}

/**
 * open: both ways; closing: the server disconnected it (reported), what it sent still
 * arrives, then the inner link is closed; leaving: the peer went away, what it sent
 * still arrives, then the server is told.
 */
interface Peer {
  state: 'open' | 'closing' | 'leaving';
  readonly up: LinkConditioner;
  readonly down: LinkConditioner;
  readonly upLine: DelayLine;
  readonly downLine: DelayLine;
}

/**
 * Wrap a server transport. Channel semantics are those of `conditionClient`: reliable
 * packets are delayed in order and never dropped, unreliable ones may be lost,
 * duplicated or reordered as the options say. onConnect passes straight through.
 * Closing is graceful, as on the loopback and TCP: after `disconnect(peer)` (or `close()`)
 * the server is told at once, what it sent before still reaches the peer, then the inner
 * transport closes the link; when a peer goes away, what it sent before still reaches
 * the server, then `onDisconnect` follows.
 */
export function conditionServer(inner: ServerTransport, options: ServerConditionerOptions, scheduler: Scheduler): ConditionedServerTransport {
  const defaults: { up: LinkOptions; down: LinkOptions } = { up: options.up ?? {}, down: options.down ?? {} };
  new LinkConditioner(defaults.up, 0); // validate now: a bad option fails at the call, not at the first connection
  new LinkConditioner(defaults.down, 0);
  const peers = new Map<PeerId, Peer>();
  let handler: ServerTransportHandler | null = null;
  let closed = false;
  let innerClosed = false;

  /** After close(): the inner transport closes once every peer's link has drained and closed. */
  const closeInnerWhenDrained = (): void => {
    if (!closed || innerClosed || peers.size > 0) return;
    innerClosed = true;
    inner.close();
  };

  const disconnect = (id: PeerId, reason: string): void => {
    const p = peers.get(id);
    if (p === undefined || p.state === 'closing') return;
    p.upLine.cancel(); // the server stops hearing it at once, as with the inner transport
    if (p.state === 'leaving') {
      peers.delete(id); // already gone underneath: the server learns it now, with its own reason
      p.downLine.cancel();
    } else {
      p.state = 'closing';
      p.downLine.drain(() => {
        if (peers.get(id) === p) inner.disconnect(id, reason); // its onDisconnect forgets the peer
      });
    }
    handler?.onDisconnect(id, reason);
    closeInnerWhenDrained();
  };

  return {
    listen(next) {
      if (handler !== null) throw new NetcodeError('usage', 'react-netcode: listen() called twice on a conditioned server transport.');
      if (closed) throw new NetcodeError('usage', 'react-netcode: listen() after close(); create a new transport.');
      handler = next;
      const h = next;
      inner.listen({
        onConnect(id) {
          if (closed) {
            inner.disconnect(id, 'server closed');
            return;
          }
          const own = options.forPeer?.(id);
          const peer: Peer = {
            state: 'open',
            up: new LinkConditioner(own?.up ?? defaults.up, deriveSeed(options.seed, 3, id)),
            down: new LinkConditioner(own?.down ?? defaults.down, deriveSeed(options.seed, 4, id)),
            upLine: new DelayLine(scheduler, (data, channel) => {
              const p = peers.get(id);
              if (p !== undefined && p.state !== 'closing') h.onMessage(id, data, channel);
            }),
            downLine: new DelayLine(scheduler, (data, channel) => {
              if (peers.get(id)?.state !== 'leaving') inner.send(id, data, channel);
            }),
          };
          peers.set(id, peer);
          h.onConnect(id);
        },
        onMessage(id, data, channel) {
          const p = peers.get(id);
          if (p === undefined || p.state !== 'open') return;
          const times = p.up.schedule(scheduler.now(), channel);
          for (let i = 0; i < times.length; i++) p.upLine.push(times[i] as number, i === 0 ? data : data.slice(), channel);
        },
        onDisconnect(id, reason) {
          const p = peers.get(id);
          if (p === undefined || p.state === 'leaving') return;
          p.downLine.cancel(); // nothing more can reach it
          if (p.state === 'closing') {
            peers.delete(id); // we closed it and have reported it already
            p.upLine.cancel();
            closeInnerWhenDrained();
            return;
          }
          p.state = 'leaving';
          p.upLine.drain(() => {
            if (peers.get(id) !== p) return;
            peers.delete(id);
            h.onDisconnect(id, reason);
          });
        },
      });
    },
    send(id, data, channel) {
      const p = peers.get(id);
      if (p === undefined || p.state !== 'open') return;
      const times = p.down.schedule(scheduler.now(), channel);
      if (times.length === 0) return;
      const copy = data.slice(); // the caller may reuse `data` before the delayed send
      for (const at of times) p.downLine.push(at, copy, channel);
    },
    disconnect,
    close() {
      if (closed) return;
      closed = true;
      for (const [id, p] of [...peers]) if (p.state !== 'closing') disconnect(id, 'server closed');
      closeInnerWhenDrained();
    },
    setOptions(next, id) {
      if (id !== undefined) {
        const p = peers.get(id);
        if (next.up !== undefined) p?.up.setOptions(next.up);
        if (next.down !== undefined) p?.down.setOptions(next.down);
        return;
      }
      if (next.up !== undefined) defaults.up = next.up;
      if (next.down !== undefined) defaults.down = next.down;
      for (const p of peers.values()) {
        if (next.up !== undefined) p.up.setOptions(next.up);
        if (next.down !== undefined) p.down.setOptions(next.down);
      }
    },
    link(id) {
      const p = peers.get(id);
      return p === undefined ? undefined : { up: p.up, down: p.down };
    },
    peerStats: (id): TransportStats | undefined => inner.peerStats?.(id),
  };
}
