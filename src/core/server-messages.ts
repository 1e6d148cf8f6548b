// The server's message stage: one transport message from a peer — a lone message or a Batch —
// decoded and handled by kind (Hello, Input, Ping, SnapshotAck, Join, Rpc, Close). A malformed
// message closes that connection only, saying why; a failure of ours it triggers is reported and
// contained the same way. NetServer's receive stage calls `onMessage` for each queued message.

import { BitReader } from './bits.ts';
import type { Tick } from './clock/tick.ts';
import type { Connection } from './connection.ts';
import type { Emitter, Logger } from './emitter.ts';
import { asNetcodeError, describeError, HandlerError, NetcodeError, WireError, isNetcodeError } from './errors.ts';
import type { ServerInputs } from './input/server-inputs.ts';
import type { LogLimiter } from './log-limit.ts';
import { type MessageEncoder, type Pong, readKind, readPing } from './messages.ts';
import { forEachMessage } from './outbox.ts';
import { boundsProblem } from './payload.ts';
import type { JoinPayload, Protocol } from './protocol.ts';
import type { RpcRegistry } from './rpc-dispatch.ts';
import type { ServerGhosts } from './server-ghosts.ts';
import type { ServerEvents, ServerOptions } from './server-options.ts';
import type { JoinDecision, Sessions } from './server-sessions.ts';
import { decodeAck } from './snapshot/index.ts';
import type { Channel, PeerId } from './transport.ts';
import { MAX_MESSAGE_BYTES, MESSAGE_KIND_NAMES, MessageKind, RELIABLE_ONLY_KINDS } from './wire.ts';

type Conn<P extends Protocol> = Connection<JoinPayload<P>>;

/** What the message stage uses of its NetServer. */
export interface MessageContext<P extends Protocol> {
  readonly protocol: P;
  readonly sessions: Sessions<P>;
  readonly inputs: ServerInputs<P>;
  readonly ghosts: ServerGhosts<P>;
  readonly rpcs: RpcRegistry<(connection: Conn<P>, payload: never) => void>;
  readonly encoder: MessageEncoder;
  readonly events: Emitter<ServerEvents<P>>;
  readonly limitedLog: LogLimiter;
  readonly log: Logger;
  readonly onJoin: ServerOptions<P>['onJoin'];
  /** The tick being simulated, the server's time (ms) and the accumulator's fraction toward the next tick. */
  tick(): Tick;
  timeMs(): number;
  fraction(): number;
  /** `length`: the first bytes of `bytes` only (a writer's buffer, copied at once); default all. */
  sendRaw(connection: Conn<P>, bytes: Uint8Array, channel: Channel, length?: number): void;
  report(error: NetcodeError, connection?: Conn<P>): void;
}

export class ServerMessages<P extends Protocol> {
  private readonly reader = new BitReader();
  private readonly pong: Pong = { echoMs: 0, serverTick: 0, serverFraction: 0, inputMarginTicks: 0, inputsLate: 0, inputsMissing: 0 };

  constructor(private readonly x: MessageContext<P>) {}

  /** One transport message: a lone message or a Batch, whose parts are handled in order. */
  onMessage(peer: PeerId, data: Uint8Array, channel: Channel): void {
    try {
      if (data.byteLength > MAX_MESSAGE_BYTES) throw new NetcodeError('wire/too-large', `react-netcode: message of ${data.byteLength} bytes exceeds ${MAX_MESSAGE_BYTES}.`);
      this.batchPeer = peer;
      this.batchChannel = channel;
      forEachMessage(data, this.onPart);
    } catch (error) {
      const connection = this.x.sessions.byPeer.get(peer);
      if (connection?.state === 'closed' || this.x.sessions.isRefused(peer)) return;
      let reason: string;
      if (isNetcodeError(error)) reason = `react-netcode: protocol error from client: ${describeError(error)}`;
      else {
        // Not a malformed message we recognised: a bug of ours it triggered. Contained all the same.
        this.x.report(asNetcodeError(error, `handling a message of peer ${peer}`), connection);
        reason = 'react-netcode: the server failed to handle a message from this client (an internal error, reported on the server)';
      }
      this.x.limitedLog.log('warn', 'protocol error', `react-netcode: ${describeError(reason).replace(/\.$/, '')} (peer ${peer}${connection ? `, networkId ${connection.networkId}` : ''}); closing that connection only.`, this.x.timeMs());
      if (connection) this.x.sessions.close(connection, reason, true, this.x.timeMs());
      else this.x.sessions.refuse(peer, reason, this.x.timeMs());
    }
  }

  private batchPeer: PeerId = 0;
  private batchChannel: Channel = 'reliable';
  private readonly onPart = (data: Uint8Array): void => this.handle(this.batchPeer, data, this.batchChannel);

  /** One message (throws NetcodeError when it is malformed: the caller closes the connection). */
  private handle(peer: PeerId, data: Uint8Array, channel: Channel): void {
    const connection = this.x.sessions.byPeer.get(peer);
    if (connection?.state === 'closed') return;
    if (!connection && this.x.sessions.isRefused(peer)) return; // told why; dropped after the linger
    const kind = readKind(this.reader, data);
    if (kind === MessageKind.Signal && channel === 'reliable') return; // a transport's own (WebRTC on a plain server): never the engine's
    if (channel === 'unreliable' && RELIABLE_ONLY_KINDS.has(kind)) {
      throw new WireError('wire/bad-value', `react-netcode: ${kindName(kind)} came on the unreliable channel; it may only be sent reliably.`);
    }
    if (!connection) {
      if (kind === MessageKind.Seat) {
        throw new WireError('wire/unknown-message', 'react-netcode: a seat came to a server that is no room server; connect to the URL the matchmaker gave, served by serveRooms.');
      }
      // A client leaving while it connects: no protocol error.
      if (kind === MessageKind.Close) return this.x.sessions.leftBeforeHandshake(peer);
      if (kind !== MessageKind.Hello) throw new WireError('wire/unknown-message', `react-netcode: expected Hello, got ${kindName(kind)} before the handshake.`);
      this.x.sessions.hello(peer, this.reader, this.x.timeMs());
      return;
    }
    connection.stats.messagesIn++;
    connection.stats.bytesIn += data.byteLength;
    connection.heardAt = this.x.timeMs(); // the silence check (server-sessions.ts)
    if (kind === MessageKind.Hello) {
      throw new WireError('wire/bad-value', `react-netcode: a second Hello on a link whose handshake is done (networkId ${connection.networkId}); a client says Hello once per link.`);
    } else if (kind === MessageKind.Input) {
      this.onInput(connection);
    } else if (kind === MessageKind.Ping) {
      const echoMs = readPing(this.reader);
      const stats = this.x.inputs.stats(connection.networkId);
      const pong = this.pong; // one object for every Pong (the encoder reads it at once)
      pong.echoMs = echoMs;
      pong.serverTick = this.x.tick();
      pong.serverFraction = this.x.fraction();
      pong.inputMarginTicks = this.x.inputs.margin(connection.networkId);
      pong.inputsLate = stats?.late ?? 0;
      pong.inputsMissing = stats?.missing ?? 0;
      const w = this.x.encoder.pongInto(pong); // copied once, into the outbox
      this.x.sendRaw(connection, w.buffer(), 'unreliable', w.byteLength);
    } else if (kind === MessageKind.SnapshotAck) {
      const { tick, mask } = decodeAck(this.reader);
      this.reader.expectEnd();
      this.x.ghosts.ack(connection, tick, mask);
    } else if (kind === MessageKind.Join) this.onJoinMessage(connection);
    else if (kind === MessageKind.Rpc) this.onRpcMessage(connection);
    else if (kind === MessageKind.Pause) {
      const paused = this.reader.readBool();
      this.reader.expectEnd();
      connection.paused = paused;
      this.x.inputs.setPaused(connection.networkId, paused);
    }
    else if (kind === MessageKind.Close) this.x.sessions.close(connection, this.closeReason(), false, this.x.timeMs());
    else throw new WireError('wire/unknown-message', `react-netcode: ${kindName(kind)} is not one a client may send.`);
  }

  private onInput(connection: Conn<P>): void {
    const got = this.x.inputs.receive(connection, this.reader, this.x.tick());
    if (!got) return;
    if (got.ackTick !== 0 || got.ackMask !== 0) this.x.ghosts.ack(connection, got.ackTick, got.ackMask);
    if (got.newest && this.x.protocol.replicateInputs) {
      let last = this.x.ghosts.lastInputs.get(connection.networkId);
      if (!last) this.x.ghosts.lastInputs.set(connection.networkId, (last = this.x.protocol.input.defaults() as Record<string, unknown>));
      this.x.protocol.input.copy(got.newest as never, last as never);
    }
  }

  private closeReason(): string {
    try {
      return this.reader.readString(256);
    } catch {
      return 'client left';
    }
  }

  private onJoinMessage(connection: Conn<P>): void {
    const payload = this.x.protocol.join.read(this.reader) as JoinPayload<P>;
    this.reader.expectEnd();
    if (connection.joining) return;
    // In game already: its client did not hear the Joined (the link dropped, or went half-open, just after it): again.
    if (connection.inGame) return this.x.sendRaw(connection, this.x.encoder.joined(), 'reliable');
    // Decoded means well-formed; the declared bounds (min/max, maxLength) are checked here, before onJoin.
    const problem = boundsProblem(this.x.protocol.join, payload);
    if (problem !== null) {
      this.x.sendRaw(connection, this.x.encoder.reason(MessageKind.JoinRefused, `react-netcode: join payload refused: ${problem}`), 'reliable');
      return;
    }
    let decision: JoinDecision | Promise<JoinDecision>;
    try {
      decision = this.x.onJoin ? this.x.onJoin(connection, payload) : true;
    } catch (error) {
      this.x.report(new HandlerError('onJoin', this.x.tick(), error), connection);
      decision = { reject: 'join failed on the server' };
    }
    if (!(decision instanceof Promise)) return this.applyJoin(connection, payload, decision);
    connection.joining = true;
    decision.then(
      (d) => this.applyJoin(connection, payload, d),
      (error: unknown) => {
        this.x.report(new HandlerError('onJoin (its promise)', this.x.tick(), error), connection);
        this.applyJoin(connection, payload, { reject: 'join failed on the server' });
      },
    );
  }

  private applyJoin(connection: Conn<P>, payload: JoinPayload<P>, decision: JoinDecision): void {
    connection.joining = false;
    if (connection.state !== 'connected') return;
    if (decision === false || (typeof decision === 'object' && decision !== null)) {
      const reason = typeof decision === 'object' && decision !== null ? decision.reject : 'join refused';
      this.x.sendRaw(connection, this.x.encoder.reason(MessageKind.JoinRefused, reason), 'reliable');
      return;
    }
    connection.state = 'in-game';
    connection.heardAt = this.x.timeMs(); // an onJoin that took long is no silence of the client
    connection.joinPayload = payload;
    this.x.sendRaw(connection, this.x.encoder.joined(), 'reliable');
    this.x.ghosts.attach(connection);
    this.x.events.emit('join', connection);
  }

  private onRpcMessage(connection: Conn<P>): void {
    const { entry, payload } = this.x.rpcs.decode(this.reader);
    if (!connection.inGame) {
      connection.stats.droppedRpcs++;
      return;
    }
    const problem = boundsProblem(entry.codec, payload);
    if (problem !== null) {
      connection.stats.refusedRpcs++;
      this.x.limitedLog.log('warn', 'refused RPC', `react-netcode: refused RPC "${entry.name}" from networkId ${connection.networkId}: ${problem} (a client built from this protocol never sends it).`, this.x.timeMs());
      return;
    }
    this.x.rpcs.dispatch(entry, [connection, payload as never], (m) => this.x.log('error', m), (e) => this.x.report(e, connection), this.x.tick());
  }
}

/** "message kind Join (4)", or "unknown message kind 200". */
function kindName(kind: number): string {
  const name = MESSAGE_KIND_NAMES[kind];
  return name === undefined ? `unknown message kind ${kind}` : `message kind ${name} (${kind})`;
}
