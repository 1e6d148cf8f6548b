// Client half of the socket.io transport: adapts a socket.io-client Socket to the
// ClientTransport interface the client engine talks to. Same events as the
// server: 'r' (reliable) and 'u' (unreliable); both are plain emits — an unreliable
// message is dropped (and counted) only under backpressure (backpressure.ts).
import { io } from 'socket.io-client';
import type { ManagerOptions, Socket, SocketOptions } from 'socket.io-client';
import { NetcodeError } from '../core/errors.ts';
import type { Channel, ClientTransport, ClientTransportHandler, TransportStats } from '../core/transport.ts';
import { bufferedBytes, checkMaxBufferedBytes } from './backpressure.ts';

export interface SocketIoClientTransportOptions {
  /** socket.io path (default '/netcode'), must match the server's. */
  path?: string;
  /**
   * Extra socket.io-client options. `transports` defaults to ['websocket']; `autoConnect`, `reconnection`
   * and `forceNew` are owned by the transport.
   */
  socket?: Partial<ManagerOptions & SocketOptions>;
  /** Unreliable messages are dropped (counted in `stats`) while more than this many bytes wait to be written (default 64 KiB). */
  maxBufferedBytes?: number;
}

const DEFAULT_PATH = '/netcode';

/** A Uint8Array view on a received binary payload (Node: Buffer, browsers: ArrayBuffer), or null if it is not binary. Never copies. */
export function toBytes(value: unknown): Uint8Array | null {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return null;
}

/** One `connect()`: its socket, its handler and whether it is still reported to. */
interface Link {
  readonly socket: Socket;
  readonly handler: ClientTransportHandler;
  open: boolean;
}

export function createSocketIoClientTransport(url: string, options: SocketIoClientTransportOptions = {}): ClientTransport {
  const path = options.path ?? options.socket?.path ?? DEFAULT_PATH;
  const maxBuffered = checkMaxBufferedBytes(options.maxBufferedBytes);
  const stats: TransportStats = { unreliableDropped: 0 };
  let link: Link | null = null;

  /** Ends `current` once: stop listening, tear the socket down, then report. */
  const finish = (current: Link, reason: string): void => {
    if (link !== current) return;
    link = null;
    current.open = false;
    current.socket.off();
    current.socket.disconnect();
    current.handler.onClose(reason);
  };

  const onData = (current: Link, channel: Channel, args: unknown[]): void => {
    if (link !== current || !current.open) return;
    const data = args.length === 1 ? toBytes(args[0]) : null;
    if (data === null) {
      finish(current, `react-netcode: the server sent a non-binary payload on '${channel === 'reliable' ? 'r' : 'u'}'`);
      return;
    }
    current.handler.onMessage(data, channel);
  };

  return {
    stats,
    connect(handler: ClientTransportHandler): void {
      if (link !== null) throw new NetcodeError('usage', 'react-netcode: connect() called while a connection is active; call close() first.');
      const socket = io(url, {
        transports: ['websocket'],
        ...options.socket,
        path,
        autoConnect: false,
        reconnection: false,
        forceNew: true,
      });
      const current: Link = { socket, handler, open: false };
      link = current;
      socket.on('connect', () => {
        if (link !== current || current.open) return;
        current.open = true;
        handler.onOpen();
      });
      socket.on('r', (...args: unknown[]) => onData(current, 'reliable', args));
      socket.on('u', (...args: unknown[]) => onData(current, 'unreliable', args));
      socket.on('connect_error', (err: Error) =>
        finish(current, `react-netcode: could not connect to ${url} (socket.io path '${path}'): ${err.message}; check the URL and path, and that the game server is running (a first connection is not retried).`),
      );
      socket.on('disconnect', (reason: string) => finish(current, reason));
      socket.connect();
    },
    send(data: Uint8Array, channel: Channel): void {
      if (link === null || !link.open) return;
      if (channel === 'reliable') link.socket.emit('r', data);
      else if (bufferedBytes(link.socket.io.engine) > maxBuffered) stats.unreliableDropped++;
      else link.socket.emit('u', data);
    },
    close(reason: string): void {
      if (link !== null) finish(link, reason);
    },
  };
}
