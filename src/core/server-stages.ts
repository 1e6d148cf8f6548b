// The server's stages, built from its options and wired to each other: the input stage
// (input/server-inputs.ts), the ghosts and their snapshots (server-ghosts.ts), the sessions
// (server-sessions.ts), the arrival stage with its per-peer limits (server-inbox.ts) and the
// message stage (server-messages.ts). NetServer (server.ts) owns them and runs the tick.

import type { BuildIdentity } from './build-check.ts';
import type { Connection } from './connection.ts';
import type { Emitter, Logger } from './emitter.ts';
import { describeError, NetcodeError } from './errors.ts';
import { ServerInputs } from './input/server-inputs.ts';
import type { LogLimiter } from './log-limit.ts';
import type { MessageEncoder } from './messages.ts';
import { DEFAULT_PEER_LIMITS } from './peer-limits.ts';
import type { JoinPayload, Protocol } from './protocol.ts';
import type { Rng } from './rng.ts';
import type { RpcRegistry } from './rpc-dispatch.ts';
import { ServerGhosts } from './server-ghosts.ts';
import { ServerInbox } from './server-inbox.ts';
import { ServerMessages } from './server-messages.ts';
import type { ServerEvents, ServerOptions } from './server-options.ts';
import { Sessions } from './server-sessions.ts';
import type { Tick } from './clock/tick.ts';
import type { Channel, ServerTransport } from './transport.ts';
import { MessageKind } from './wire.ts';

type Conn<P extends Protocol> = Connection<JoinPayload<P>>;

/** What the stages need of the server that owns them. */
export interface StageHost<P extends Protocol> {
  readonly events: Emitter<ServerEvents<P>>;
  readonly log: Logger;
  /** For what peers and app callbacks can trigger at will: a few lines per kind of problem per 10 s. */
  readonly limitedLog: LogLimiter;
  readonly encoder: MessageEncoder;
  readonly rpcs: RpcRegistry<(connection: Conn<P>, payload: never) => void>;
  readonly transport: ServerTransport;
  readonly identity: BuildIdentity;
  readonly worldSeed: number;
  /** Resume tokens' source. */
  readonly tokens: Pick<Rng, 'nextUint32'>;
  /** The tick being simulated, server time (ms) and the accumulator's fraction. */
  tick(): Tick;
  timeMs(): number;
  fraction(): number;
  /** The inbox's clock: the scheduler's, else the last `update(now)`, else server time. */
  now(): number;
  sendRaw(connection: Conn<P>, bytes: Uint8Array, channel: Channel, length?: number): void;
  report(error: NetcodeError, connection?: Conn<P>): void;
}

export interface ServerStages<P extends Protocol> {
  readonly inputs: ServerInputs<P>;
  readonly ghosts: ServerGhosts<P>;
  readonly sessions: Sessions<P>;
  readonly inbox: ServerInbox;
  readonly messages: ServerMessages<P>;
}

/** Every stage, from the options; `send` is the outbox the sessions write through. */
export function createStages<P extends Protocol>(
  options: ServerOptions<P>, host: StageHost<P>, send: Pick<ServerTransport, 'send' | 'disconnect'>,
): ServerStages<P> {
  const inputs = createInputs(options);
  const ghosts = createGhosts(options, host, inputs);
  const sessions = createSessions(options, host, send, inputs, ghosts);
  const inbox = createInbox(options, host, sessions);
  const messages = new ServerMessages<P>({
    protocol: options.protocol, sessions, inputs, ghosts, rpcs: host.rpcs, encoder: host.encoder,
    events: host.events, limitedLog: host.limitedLog, log: host.log, onJoin: options.onJoin,
    tick: host.tick, timeMs: host.timeMs, fraction: host.fraction,
    sendRaw: host.sendRaw, report: host.report,
  });
  return { inputs, ghosts, sessions, inbox, messages };
}

/** The input stage (the queue holds 128 ticks: no lead beyond capacity − repeat − 2, its default). */
function createInputs<P extends Protocol>(options: ServerOptions<P>): ServerInputs<P> {
  const repeat = options.maxInputRepeatTicks ?? 8;
  const lead = options.maxInputLeadMs;
  if (lead !== undefined && !(lead > 0)) throw new NetcodeError('usage', `react-netcode: maxInputLeadMs must be a number of ms > 0, got ${String(lead)}.`);
  const leadTicks = lead === undefined ? undefined : Math.min(128 - repeat - 2, Math.ceil(lead / options.protocol.stepMs));
  return new ServerInputs(options.protocol, repeat, leadTicks);
}

function createGhosts<P extends Protocol>(options: ServerOptions<P>, host: StageHost<P>, inputs: ServerInputs<P>): ServerGhosts<P> {
  const ghosts = new ServerGhosts(
    options.protocol,
    {
      seed: host.worldSeed,
      ...(options.systems ? { systems: options.systems } : {}),
      ...(options.relevancy ? { relevancy: options.relevancy } : {}),
      ...(options.importance ? { importance: options.importance } : {}),
      ...snapshotBudget(options.snapshotBudgetBytes, options.transport.maxDatagramBytes),
      ...(options.snapshotAckLadder !== undefined ? { snapshotAckLadder: options.snapshotAckLadder } : {}),
      ...(options.maxSpawnsPerOwnerPerTick !== undefined ? { maxSpawnsPerOwnerPerTick: options.maxSpawnsPerOwnerPerTick } : {}),
      warn: (m) => host.limitedLog.log('warn', 'ghosts', m, host.timeMs()),
      onError: (error, connection) => host.report(error, connection as Conn<P> | undefined),
      rawInput: (ghost, tick) => inputs.rawInput(ghost.owner, tick),
      interpolationView: (ghost, tick) => inputs.viewAt(ghost.owner, tick),
    },
    (ghost, tick) => inputs.tickInput(ghost.owner, tick),
  );
  ghosts.currentTick = host.tick();
  return ghosts;
}

/** The sessions, whose opening, suspension and closing reach the inputs, the ghosts and the events. */
function createSessions<P extends Protocol>(
  options: ServerOptions<P>, host: StageHost<P>, send: Pick<ServerTransport, 'send' | 'disconnect'>,
  inputs: ServerInputs<P>, ghosts: ServerGhosts<P>,
): Sessions<P> {
  const limits = {
    maxConnections: options.maxConnections ?? 256,
    resumeGraceMs: options.resumeGraceMs ?? 10_000,
    resumeUnjoined: options.resumeUnjoined === true,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
    silenceTimeoutMs: silenceTimeout(options.silenceTimeoutMs),
    idQuarantineMs: options.idQuarantineMs ?? 5_000,
    identity: host.identity,
  };
  return new Sessions(options.protocol, send, host.encoder, host.tokens, limits, {
    sendWelcome: (c, resumed) =>
      host.sendRaw(c, host.encoder.welcome({
        networkId: c.networkId, resumeToken: c.resumeToken, serverTick: host.tick(), resumed, worldSeed: host.worldSeed,
        systemsHash: host.identity.systemsHash, buildId: host.identity.buildId,
      }), 'reliable'),
    opened: (c, resumed) => {
      if (!resumed) inputs.open(c.networkId);
      if (resumed) {
        // A client that was joining when its link dropped may not have heard the Joined: say it again after the Welcome.
        if (c.inGame) host.sendRaw(c, host.encoder.joined(), 'reliable');
        inputs.setSuspended(c.networkId, false);
        inputs.setPaused(c.networkId, false); // a paused client says so again after the Welcome
        c.paused = false;
        if (c.inGame) ghosts.attach(c);
        host.events.emit('resume', c);
      } else host.events.emit('connect', c);
    },
    suspended: (c, reason) => {
      inputs.setSuspended(c.networkId, true);
      ghosts.detach(c);
      host.events.emit('suspend', c, reason);
    },
    closed: (c, reason) => {
      ghosts.detach(c);
      ghosts.destroyOwnedBy(c.networkId);
      host.events.emit('leave', c, reason);
      inputs.close(c.networkId); // after: a leave listener can still read the connection's inputStats
    },
    silent: (c, reason) =>
      host.limitedLog.log('warn', 'silent client', `react-netcode: networkId ${c.networkId} (peer ${c.peer}): ${describeError(reason)}; closed its link, it may resume within resumeGraceMs.`, host.timeMs()),
    refused: (peer, reason) =>
      host.limitedLog.log('warn', 'refused handshake', `react-netcode: refused the handshake of peer ${peer}: ${describeError(reason)}`, host.timeMs()),
  }, host.log);
}

/** The arrival stage and its per-peer limits (peer-limits.ts), from the options. */
function createInbox<P extends Protocol>(options: ServerOptions<P>, host: StageHost<P>, sessions: Sessions<P>): ServerInbox {
  const d = DEFAULT_PEER_LIMITS;
  const warnLimited = (key: string, message: string): void => host.limitedLog.log('warn', key, message, host.timeMs());
  return new ServerInbox(
    {
      messagesPerSecond: positive(options.maxMessagesPerSecond ?? d.messagesPerSecond, 'maxMessagesPerSecond'),
      bytesPerSecond: positive(options.maxBytesPerSecond ?? d.bytesPerSecond, 'maxBytesPerSecond'),
      persistMs: positive(options.rateLimitGraceMs ?? d.persistMs, 'rateLimitGraceMs'),
      maxPending: positive(options.maxPendingPeers ?? d.maxPending, 'maxPendingPeers'),
      handshakesPerSecond: positive(options.maxHandshakesPerSecond ?? d.handshakesPerSecond, 'maxHandshakesPerSecond'),
    },
    {
      now: host.now,
      pendingPeers: () => sessions.pendingPeers,
      refuse: (peer, reason) => {
        warnLimited('refused peer', `react-netcode: refused peer ${peer} before its handshake: ${describeError(reason)}`);
        host.transport.send(peer, host.encoder.reason(MessageKind.Refuse, reason), 'reliable');
        host.transport.disconnect(peer, reason);
      },
      dropped: (peer) => {
        const connection = sessions.byPeer.get(peer);
        if (connection) connection.stats.droppedMessages++;
      },
      turnedAway: (reason) => warnLimited('refused peer', `react-netcode: turned a new connection away before it opened: ${describeError(reason)}`),
      peerError: (peer, reason) => {
        const networkId = sessions.byPeer.get(peer)?.networkId;
        const who = `peer ${peer}${networkId !== undefined ? `, networkId ${networkId}` : ''}`;
        warnLimited('protocol error', peerErrorMessage(reason, who, networkId !== undefined));
      },
    },
  );
}

/** The server's silenceTimeoutMs, checked: >= 0 (0 turns the check off; default 8000, as the client's). */
function silenceTimeout(value: number | undefined): number {
  const ms = value ?? 8000;
  if (!(ms >= 0)) throw new NetcodeError('usage', `react-netcode: the server's silenceTimeoutMs must be a number of ms >= 0 (0 turns the check off, the default is 8000), got ${String(value)}.`);
  return ms;
}

/** A limit option, checked: > 0 (Infinity turns the limit off). */
function positive(value: number, name: string): number {
  if (!(value > 0)) throw new NetcodeError('usage', `react-netcode: ${name} must be a number > 0 (Infinity turns the limit off), got ${String(value)}.`);
  return value;
}

/** The snapshot budget: the app's, else the default (1200) capped to the transport's datagram size (WebRTC: 1100). */
function snapshotBudget(budget: number | undefined, maxDatagramBytes: number | undefined): { snapshotBudgetBytes?: number } {
  if (budget !== undefined) return { snapshotBudgetBytes: budget };
  return maxDatagramBytes !== undefined && maxDatagramBytes < 1200 ? { snapshotBudgetBytes: maxDatagramBytes } : {};
}

/**
 * The log line of a connection the transport closed for what it sent (`who`: "peer 3, networkId 2"); rooms log it too.
 * `session`: the link had a session, which ends with it (no resume).
 */
export function peerErrorMessage(reason: string, who: string, session: boolean): string {
  const ends = session ? 'that connection and its session (no resume)' : 'that connection only';
  return `react-netcode: protocol error from client: ${describeError(reason).replace(/\.$/, '')} (${who}); the transport closed ${ends}.`;
}
