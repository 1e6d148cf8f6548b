// The client engine's connection layer: opens the transport, says Hello with the
// protocol hash, receives its networkId, joins the game (GoInGame) and exchanges
// typed RPCs. Status changes are UI-rate events; prediction and snapshots hook
// into `update(now)` (see the prediction docs).

import { BitReader } from './bits.ts';
import { Emitter, consoleLogger, type Logger } from './emitter.ts';
import { NetcodeError, isNetcodeError } from './errors.ts';
import { MessageEncoder, readKind, readReason, readWelcome } from './messages.ts';
import type { JoinPayload, Protocol, RpcNames, RpcPayload } from './protocol.ts';
import { RpcRegistry } from './rpc-dispatch.ts';
import type { Channel, ClientTransport } from './transport.ts';
import { MAX_MESSAGE_BYTES, MessageKind, WIRE_VERSION } from './wire.ts';

/**
 * idle → connecting → connected → joining → in-game → closed.
 * `connected`: handshake done, networkId known, not in game (also after a refused join).
 */
export type ClientStatus = 'idle' | 'connecting' | 'connected' | 'joining' | 'in-game' | 'closed';

export interface ClientState {
  status: ClientStatus;
  networkId: number | undefined;
  /** Why the connection closed (set when status is 'closed'). */
  closeReason: string | undefined;
  /** Why the last join was refused, if it was. */
  joinError: string | undefined;
}

export interface ClientOptions<P extends Protocol> {
  protocol: P;
  transport: ClientTransport;
  log?: Logger;
}

export type ClientEvents = {
  /** Any change of `state` (status, networkId, reasons). */
  status: (state: Readonly<ClientState>) => void;
};

type Inbound = { kind: 'open' } | { kind: 'message'; data: Uint8Array; channel: Channel } | { kind: 'close'; reason: string };

export class NetClient<P extends Protocol> {
  readonly protocol: P;
  readonly events: Emitter<ClientEvents>;
  private readonly transport: ClientTransport;
  private readonly encoder = new MessageEncoder();
  private readonly reader = new BitReader();
  private readonly rpcs: RpcRegistry<(payload: never) => void>;
  private readonly log: Logger;
  private inbox: Inbound[] = [];
  private generation = 0;
  private current: ClientState = { status: 'idle', networkId: undefined, closeReason: undefined, joinError: undefined };
  /** Server tick announced in the Welcome (clock sync refines it). */
  welcomeTick = 0;
  resumeToken = 0;

  constructor(options: ClientOptions<P>) {
    this.protocol = options.protocol;
    this.transport = options.transport;
    this.log = options.log ?? consoleLogger;
    this.events = new Emitter((e) => this.log('error', `react-netcode: a client event listener threw: ${String(e)}`));
    this.rpcs = new RpcRegistry(options.protocol, 'toClient');
  }

  get state(): Readonly<ClientState> {
    return this.current;
  }

  get status(): ClientStatus {
    return this.current.status;
  }

  get networkId(): number | undefined {
    return this.current.networkId;
  }

  /** Open the connection and start the handshake. Allowed when idle or closed. */
  connect(): void {
    if (this.current.status !== 'idle' && this.current.status !== 'closed') {
      throw new NetcodeError('usage', `react-netcode: connect() called while ${this.current.status}; call leave() first.`);
    }
    const generation = ++this.generation;
    this.inbox = [];
    this.setState({ status: 'connecting', networkId: undefined, closeReason: undefined, joinError: undefined });
    this.transport.connect({
      onOpen: () => generation === this.generation && this.inbox.push({ kind: 'open' }),
      onMessage: (data, channel) => generation === this.generation && this.inbox.push({ kind: 'message', data, channel }),
      onClose: (reason) => generation === this.generation && this.inbox.push({ kind: 'close', reason }),
    });
  }

  /** Ask to join the game with the protocol's join payload (GoInGame). Resolves via status: 'in-game', or back to 'connected' with `joinError`. */
  join(payload: JoinPayload<P>): void {
    if (this.current.status !== 'connected') {
      throw new NetcodeError('usage', `react-netcode: join() needs status 'connected' (it is '${this.current.status}'); wait for the handshake, or you are already in game.`);
    }
    const problem = this.protocol.join.validate(payload);
    if (problem !== null) throw new NetcodeError('usage', `react-netcode: join payload is invalid: ${problem}.`);
    const w = this.encoder.custom(MessageKind.Join);
    this.protocol.join.write(w, payload as never);
    this.transport.send(w.toBytes(), 'reliable');
    this.setState({ ...this.current, status: 'joining', joinError: undefined });
  }

  /** Close the connection on purpose; the server sees `reason`. */
  leave(reason = 'client left'): void {
    if (this.current.status === 'idle' || this.current.status === 'closed') return;
    this.transport.send(this.encoder.reason(MessageKind.Close, reason), 'reliable');
    this.finish(reason);
    this.transport.close(reason);
  }

  /** Send RPC `name` to the server (in game only). */
  send<K extends RpcNames<P, 'toServer'>>(name: K, payload: RpcPayload<P, K>): void {
    if (this.current.status !== 'in-game') {
      throw new NetcodeError('usage', `react-netcode: RPC "${name}" can only be sent in game (status is '${this.current.status}'); join first.`);
    }
    this.transport.send(this.rpcs.encode(this.encoder, name, 'toServer', payload), 'reliable');
  }

  /** Handle RPC `name` from the server; returns the unsubscribe function. */
  onRpc<K extends RpcNames<P, 'toClient'>>(name: K, handler: (payload: RpcPayload<P, K>) => void): () => void {
    return this.rpcs.on(name, handler as (payload: never) => void);
  }

  /** Process everything received since the last call. `now` is the client's monotonic clock (ms). */
  update(_now: number): void {
    const batch = this.inbox;
    this.inbox = [];
    for (const event of batch) {
      if (this.current.status === 'closed') return;
      if (event.kind === 'open') {
        this.transport.send(this.encoder.hello({ protocolHash: this.protocol.hash, wireVersion: WIRE_VERSION, resumeToken: 0, resumeId: 0 }), 'reliable');
      } else if (event.kind === 'close') {
        this.finish(event.reason);
      } else {
        this.onMessage(event.data);
      }
    }
  }

  private onMessage(data: Uint8Array): void {
    try {
      if (data.byteLength > MAX_MESSAGE_BYTES) throw new NetcodeError('wire/too-large', `react-netcode: message of ${data.byteLength} bytes exceeds ${MAX_MESSAGE_BYTES}.`);
      const kind = readKind(this.reader, data);
      switch (kind) {
        case MessageKind.Welcome: {
          const welcome = readWelcome(this.reader);
          this.welcomeTick = welcome.serverTick;
          this.resumeToken = welcome.resumeToken;
          this.setState({ ...this.current, status: 'connected', networkId: welcome.networkId });
          return;
        }
        case MessageKind.Joined:
          this.reader.expectEnd();
          this.setState({ ...this.current, status: 'in-game' });
          return;
        case MessageKind.JoinRefused:
          this.setState({ ...this.current, status: 'connected', joinError: readReason(this.reader) });
          return;
        case MessageKind.Refuse:
        case MessageKind.Close: {
          const reason = readReason(this.reader);
          this.finish(reason);
          this.transport.close(reason);
          return;
        }
        case MessageKind.Rpc:
          this.dispatchRpc();
          return;
        default:
          throw new NetcodeError('wire/unknown-message', `react-netcode: unknown message kind ${kind}.`);
      }
    } catch (error) {
      if (!isNetcodeError(error)) throw error;
      const reason = `react-netcode: protocol error from server: ${error.message.replace(/^react-netcode: /, '')}`;
      this.log('error', reason);
      this.finish(reason);
      this.transport.close(reason);
    }
  }

  private dispatchRpc(): void {
    const { entry, payload } = this.rpcs.decode(this.reader);
    const handlers = this.rpcs.handlersFor(entry);
    if (!handlers) return;
    for (const handler of [...handlers]) {
      try {
        handler(payload as never);
      } catch (error) {
        this.log('error', `react-netcode: handler of RPC "${entry.name}" threw: ${String(error)}`);
      }
    }
  }

  private finish(reason: string): void {
    if (this.current.status === 'closed') return;
    this.generation++;
    this.inbox = [];
    this.setState({ ...this.current, status: 'closed', closeReason: reason });
  }

  private setState(next: ClientState): void {
    this.current = next;
    this.events.emit('status', next);
  }
}

export function createClient<P extends Protocol>(options: ClientOptions<P>): NetClient<P> {
  return new NetClient(options);
}
