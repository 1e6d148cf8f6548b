// Types of the server engine's options and events (see server.ts).

import type { Connection } from './connection.ts';
import type { Logger } from './emitter.ts';
import type { NetcodeError } from './errors.ts';
import type { JoinPayload, Protocol } from './protocol.ts';
import type { Relevancy } from './server-ghosts.ts';
import type { JoinDecision } from './server-sessions.ts';
import type { SystemDef } from './system.ts';
import type { Tick } from './clock/tick.ts';
import type { Scheduler, ServerTransport } from './transport.ts';
import type { Ghost } from './world.ts';

export interface ServerOptions<P extends Protocol> {
  protocol: P;
  transport: ServerTransport;
  /**
   * Shared and server systems, in execution order (see docs/ghosts.md). The names and order of the
   * shared ones are fingerprinted and compared at the handshake: a client with other shared systems is refused.
   */
  systems?: readonly SystemDef<P>[];
  /**
   * The app's build id (e.g. a git commit or a version, at most 64 characters; default none). A client
   * must say the same one (the client's `buildId`), or it is refused with "reload the page". Changes
   * inside a system's code are caught only this way: the systems fingerprint covers names and order.
   */
  buildId?: string;
  /** Clock and timers for `start()`; tests drive `tick()`/`update(now)` instead. */
  scheduler?: Scheduler;
  /** Decide whether a connection may join (auth token check, name rules). */
  onJoin?: (connection: Connection<JoinPayload<P>>, payload: JoinPayload<P>) => JoinDecision | Promise<JoinDecision>;
  /** Which ghosts a connection receives (default: all). Leaving relevance despawns on that client only. */
  relevancy?: Relevancy<P>;
  /** Importance of a ghost for the snapshot priority accumulator (default 1). */
  importance?: (ghost: Ghost<P>) => number;
  /** Snapshot byte budget per connection (default 1200, about one MTU; capped to the transport's `maxDatagramBytes` when it has one). */
  snapshotBudgetBytes?: number;
  /**
   * Ages (in snapshots) at which a connection's acks count as baselines, so that clients with different
   * round trips share snapshot encodes (default [1, 2, 5]; false: every ack counts at once). docs/ghosts.md, "Ack ladder".
   */
  snapshotAckLadder?: readonly number[] | false;
  /** Most simultaneous connections (default 256). Extra clients are refused with "server full". */
  maxConnections?: number;
  /** How long a dropped client may resume with its token (default 10,000 ms); 0 disables resume. */
  resumeGraceMs?: number;
  /**
   * Keep a connection that has not joined for a resume when its link drops, as one in game is (default false: it is
   * closed, and its client's resume gets a fresh session — so a host that says Hello and drops holds no place of
   * maxConnections). Rooms set it: there every connection holds a seat, which the seat check already limits.
   */
  resumeUnjoined?: boolean;
  /** Extra quarantine of a released networkId beyond the grace (default 5,000 ms). */
  idQuarantineMs?: number;
  /** A peer that has not said Hello after this long is dropped (default 10,000 ms). */
  handshakeTimeoutMs?: number;
  /**
   * Nothing from a client in game for this long (ms) — a frozen page, a proxy holding its bytes, a dead NAT
   * mapping — counts as a dropped link: the server closes it and the connection is suspended for
   * `resumeGraceMs`, so the client can resume (default 8000; 0: never). In game a client sends inputs every
   * tick and Pings every 100 ms (a paused one, a hidden page, still Pings as snapshots arrive), so silence is
   * abnormal; before the join nothing need come (a lobby) and nothing is checked. docs/connections.md.
   */
  silenceTimeoutMs?: number;
  /**
   * Limits on what one peer may cost (docs/security.md), counted as the transport delivers:
   * messages (a Batch's parts count one each) and bytes per second, each a bucket holding one
   * second's worth. Excess is dropped and counted (`limitStats`); a peer still over a limit
   * after `rateLimitGraceMs` is closed. Defaults: 1000 messages/s, 256 KiB/s, 2000 ms — a 240 Hz
   * client sends ~250 messages and ~30 KB a second. Infinity turns a limit off.
   */
  maxMessagesPerSecond?: number;
  maxBytesPerSecond?: number;
  rateLimitGraceMs?: number;
  /** Most peers awaiting their Hello at once (default 64); more are refused at once (before accepting, on socket.io). */
  maxPendingPeers?: number;
  /** Most new peers per second (a bucket of one second's worth; default 100); more are refused likewise. */
  maxHandshakesPerSecond?: number;
  /**
   * After a stall (a GC pause, a busy host) the server catches up the ticks it owes, 8 per loop
   * turn, up to this many (default 2 × tickRate: 2 s, what the input queues hold ahead). The inputs
   * clients sent for those ticks are already queued, so nothing is mispredicted. Beyond it the extra time is dropped (an overrun,
   * logged): tick numbers stay contiguous and clients resync their clocks.
   */
  maxCatchUpTicks?: number;
  /** First tick number (default 0; tests start near 2^32 to exercise the wrap). */
  startTick?: Tick;
  /** Seed for server randomness (resume tokens, unless `randomUint32` is given) and the world's `ctx.rng`. */
  seed?: number;
  /**
   * Source of resume tokens (a uint32 per connection). A client that guesses a suspended
   * connection's token takes it over, so production servers need an unpredictable source: the
   * `createServer` of 'react-netcode' passes one (Web Crypto's getRandomValues). Without it the
   * seeded RNG is used (deterministic: tests, the Stepper).
   */
  randomUint32?: () => number;
  /** Most ghosts one owner's input may spawn per tick (default 5); extra ctx.spawn calls are refused and logged. */
  maxSpawnsPerOwnerPerTick?: number;
  /** After a connection's newest input, repeat it for at most this many ticks, then use a neutral input (default 8). */
  maxInputRepeatTicks?: number;
  /**
   * Inputs for ticks this far (ms) or more ahead of the server's tick are dropped and counted as
   * `early`. Default and most: the input queue's window, 118 ticks (≈ 2 s at 60 Hz) — what the
   * catch-up after a server stall needs, since clients keep sending for the ticks it owes. A
   * client's lead is otherwise RTT/2 + slack: lower it (e.g. 1000) if no stall needs more.
   */
  maxInputLeadMs?: number;
  log?: Logger;
}

export type ServerEvents<P extends Protocol> = {
  /** Handshake done: the connection has a networkId. */
  connect: (connection: Connection<JoinPayload<P>>) => void;
  /** The join was accepted: the connection is in game. */
  join: (connection: Connection<JoinPayload<P>>) => void;
  /** The link dropped; the connection waits `resumeGraceMs` for the client to come back. */
  suspend: (connection: Connection<JoinPayload<P>>, reason: string) => void;
  /** A suspended connection came back: same networkId, ghosts kept, snapshots restart from scratch. */
  resume: (connection: Connection<JoinPayload<P>>) => void;
  /** The connection is gone for good; its ghosts were destroyed. */
  leave: (connection: Connection<JoinPayload<P>>, reason: string) => void;
  /** After each simulated tick. */
  tick: (tick: Tick) => void;
  /**
   * Something failed and was contained; the server went on (docs/security.md, "Containment"):
   * a system threw (SystemError: that system was skipped for the tick), an app callback threw
   * (HandlerError: an RPC handler, onJoin, relevancy, importance), a ghost held a value its
   * field cannot send (reset to the default), or react-netcode itself failed ('internal').
   * `connection` is the one it concerns, when there is one. Also logged, rate-limited.
   */
  error: (error: NetcodeError, connection: Connection<JoinPayload<P>> | undefined) => void;
};

