// A server-side Connection: one client that completed the handshake. It carries
// the networkId (NFE NetworkId), whether it is in game (NetworkStreamInGame), the
// join payload, app data, traffic counters and, once closed, the reason.

import type { PeerId } from './transport.ts';

/** `suspended`: the link dropped; the connection (its networkId and ghosts) waits `resumeGraceMs` for the client to resume. */
export type ConnectionState = 'connected' | 'in-game' | 'suspended' | 'closed';

export interface ConnectionStats {
  messagesIn: number;
  bytesIn: number;
  messagesOut: number;
  bytesOut: number;
  /** RPCs dropped because the connection was not in game yet. */
  droppedRpcs: number;
  /** RPCs refused because a value broke its field's declared bounds (min/max, maxLength). */
  refusedRpcs: number;
  /** Transport messages dropped on arrival for exceeding maxMessagesPerSecond / maxBytesPerSecond. */
  droppedMessages: number;
}

export class Connection<JoinData = unknown> {
  state: ConnectionState = 'connected';
  closeReason: string | undefined;
  /** The payload the client joined with (after `onJoin` accepted it). */
  joinPayload: JoinData | undefined;
  /** Free slot for the app's per-connection data (player name, team …). */
  data: Record<string, unknown> = {};
  readonly stats: ConnectionStats = {
    messagesIn: 0,
    bytesIn: 0,
    messagesOut: 0,
    bytesOut: 0,
    droppedRpcs: 0,
    refusedRpcs: 0,
    droppedMessages: 0,
  };
  /** Where this client showed interpolated ghosts when it sent its newest input (for lag compensation). */
  interpolationTick = 0;
  interpolationFraction = 0;
  /** @internal a join decision is pending (async onJoin) */
  joining = false;
  /** @internal server time (ms) after which a closing link is forcibly dropped */
  lingerUntil = 0;
  /** @internal server time (ms) the link dropped, while suspended */
  suspendedAt = 0;
  /** @internal server time (ms) this client was last heard from (a message; its handshake, resume or join): the silence check */
  heardAt = 0;
  /** @internal the state to return to on resume */
  resumeState: 'connected' | 'in-game' = 'connected';

  constructor(
    readonly networkId: number,
    /** The transport's PeerId of the current link (a resume brings a new one): what `conditionServer`'s `setOptions` and `link` take. */
    public peer: PeerId,
    /** Secret a client presents to resume this connection after a drop. */
    readonly resumeToken: number,
  ) {}

  get inGame(): boolean {
    return this.state === 'in-game';
  }

  /** True when this connection has the given networkId (NFE GhostOwner check). */
  is(networkId: number): boolean {
    return this.networkId === networkId;
  }
}
