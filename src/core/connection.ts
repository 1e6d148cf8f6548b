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
  #state: ConnectionState = 'connected';
  #closeReason: string | undefined;
  #joinPayload: JoinData | undefined;
  #interpolationTick = 0;
  #interpolationFraction = 0;
  #peer: PeerId;
  #resumeToken: number;
  #paused = false;
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
  /** @internal a join decision is pending (async onJoin) */
  joining = false;
  /** @internal server time (ms) after which a closing link is forcibly dropped */
  lingerUntil = 0;
  /** @internal server time (ms) the link dropped, while suspended */
  suspendedAt = 0;
  /** @internal server time (ms) this client was last heard from (a message; its handshake, resume or join): the silence check */
  heardAt = 0;
  /** @internal closed by the server with a reason for its client (a kick, the server's close): a resume is refused with it */
  kicked = false;
  /** @internal the state to return to on resume */
  resumeState: 'connected' | 'in-game' = 'connected';

  constructor(
    readonly networkId: number,
    peer: PeerId,
    resumeToken: number,
  ) {
    this.#peer = peer;
    this.#resumeToken = resumeToken;
  }

  // Read-only to the app: the server's session code sets these (the setters are left out of the published types).

  /** Where it is in its lifecycle: connected, in game, suspended (its link dropped, within the resume grace) or closed. */
  get state(): ConnectionState {
    return this.#state;
  }
  /** @internal */
  set state(state: ConnectionState) {
    this.#state = state;
  }

  /**
   * Whether its client said it is paused (`client.setPaused(true)`: the React provider does while the page is hidden):
   * it runs no frames and sends no inputs, so its player stands still, and the server counts no missing inputs for it.
   */
  get paused(): boolean {
    return this.#paused;
  }
  /** @internal */
  set paused(paused: boolean) {
    this.#paused = paused;
  }

  /** Why it closed (when `state` is 'closed'). */
  get closeReason(): string | undefined {
    return this.#closeReason;
  }
  /** @internal */
  set closeReason(reason: string | undefined) {
    this.#closeReason = reason;
  }

  /** The payload the client joined with (after `onJoin` accepted it). */
  get joinPayload(): JoinData | undefined {
    return this.#joinPayload;
  }
  /** @internal */
  set joinPayload(payload: JoinData | undefined) {
    this.#joinPayload = payload;
  }

  /** The interpolation tick this client showed when it sent its newest input (lag compensation). */
  get interpolationTick(): number {
    return this.#interpolationTick;
  }
  /** @internal */
  set interpolationTick(tick: number) {
    this.#interpolationTick = tick;
  }

  /** The fraction, [0, 1), with `interpolationTick`. */
  get interpolationFraction(): number {
    return this.#interpolationFraction;
  }
  /** @internal */
  set interpolationFraction(fraction: number) {
    this.#interpolationFraction = fraction;
  }

  /** The transport's PeerId of the current link (a resume brings a new one): what `conditionServer`'s `setOptions` and `link` take. */
  get peer(): PeerId {
    return this.#peer;
  }
  /** @internal */
  set peer(peer: PeerId) {
    this.#peer = peer;
  }

  /** @internal The secret a client presents to resume this connection after a drop (sent in its Welcome only). */
  get resumeToken(): number {
    return this.#resumeToken;
  }

  get inGame(): boolean {
    return this.state === 'in-game';
  }

  /** True when this connection has the given networkId (NFE GhostOwner check). */
  is(networkId: number): boolean {
    return this.networkId === networkId;
  }
}
