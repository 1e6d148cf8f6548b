// A hand-driven client over the loopback: it speaks the protocol byte by byte (Hello,
// Join, anything the test builds), so tests can send what no NetClient would, and it
// records what the server sends back. Runs inside a Stepper's network.
import { BitReader, BitWriter } from '../../src/core/bits.ts';
import { systemsFingerprint } from '../../src/core/build-check.ts';
import { MessageEncoder, readKind, readPong, readReason, readWelcome, type Pong, type Welcome } from '../../src/core/messages.ts';
import { forEachMessage } from '../../src/core/outbox.ts';
import type { JoinPayload, Protocol } from '../../src/core/protocol.ts';
import type { Channel, ClientTransport } from '../../src/core/transport.ts';
import { MessageKind, WIRE_VERSION } from '../../src/core/wire.ts';
import type { LoopbackNetwork } from '../../src/transport/loopback.ts';
import type { Connection } from '../../src/core/connection.ts';
import type { NetServer } from '../../src/core/server.ts';

export interface RawPeer {
  readonly transport: ClientTransport;
  /** Kinds of every message received (Batch parts one by one). */
  readonly kinds: number[];
  /** The reason of a Close, Refuse or JoinRefused, when one came. */
  readonly reasons: string[];
  readonly pongs: Pong[];
  readonly welcomes: Welcome[];
  readonly closed: () => string | undefined;
  readonly opened: () => boolean;
  send(bytes: Uint8Array, channel?: Channel): void;
  /** Hello for `protocol`, saying `identity`'s systems fingerprint and build id (default: no systems, no build id; pass `server.identity`). */
  hello(protocol: Protocol, identity?: { systemsHash: number; buildId: string }): void;
  ping(): void;
  /** Send the protocol's join payload (`values` written with the join schema, not validated). */
  join(protocol: Protocol, values: Record<string, unknown>): void;
}

const NO_SYSTEMS = systemsFingerprint([]).hash;

export function rawMessage(build: (w: BitWriter) => void): Uint8Array {
  const w = new BitWriter();
  build(w);
  return w.toBytes();
}

export function rawPeer(network: LoopbackNetwork): RawPeer {
  const transport = network.createClient();
  const reader = new BitReader();
  const kinds: number[] = [];
  const reasons: string[] = [];
  const pongs: Pong[] = [];
  const welcomes: Welcome[] = [];
  let closed: string | undefined;
  let open = false;
  transport.connect({
    onOpen: () => (open = true),
    onMessage: (data) =>
      forEachMessage(data, (m) => {
        const kind = readKind(reader, m);
        kinds.push(kind);
        if (kind === MessageKind.Close || kind === MessageKind.Refuse || kind === MessageKind.JoinRefused) reasons.push(readReason(reader));
        if (kind === MessageKind.Welcome) welcomes.push(readWelcome(reader));
        if (kind === MessageKind.Pong) pongs.push(readPong(reader, { echoMs: 0, serverTick: 0, serverFraction: 0, inputMarginTicks: 0, inputsLate: 0, inputsMissing: 0 }));
      }),
    onClose: (reason) => (closed = reason),
  });
  const encoder = new MessageEncoder();
  return {
    transport,
    kinds,
    reasons,
    pongs,
    welcomes,
    closed: () => closed,
    opened: () => open,
    send: (bytes, channel = 'reliable') => transport.send(bytes, channel),
    hello: (protocol, { systemsHash, buildId } = { systemsHash: NO_SYSTEMS, buildId: '' }) => {
      transport.send(encoder.hello({ protocolHash: protocol.hash, wireVersion: WIRE_VERSION, resumeToken: 0, resumeId: 0, systemsHash, buildId }), 'reliable');
    },
    ping: () => transport.send(encoder.ping(0), 'unreliable'),
    join: (protocol, values) => {
      const w = encoder.custom(MessageKind.Join);
      protocol.join.write(w, values as never);
      transport.send(w.toBytes(), 'reliable');
    },
  };
}

/** A raw peer that said Hello and joined with `values` (valid for the protocol), in a Stepper; with the server's connection for it. */
export function joinedRawPeer<P extends Protocol>(s: { network: LoopbackNetwork; server: NetServer<P>; tick(n?: number): void }, protocol: P, values: JoinPayload<P>): { peer: RawPeer; connection: Connection<JoinPayload<P>> } {
  const peer = rawPeer(s.network);
  s.tick(2);
  peer.hello(protocol, s.server.identity);
  s.tick(2);
  peer.join(protocol, values as Record<string, unknown>);
  s.tick(2);
  const connection = [...s.server.connections.values()].find((c) => c.inGame && JSON.stringify(c.joinPayload) === JSON.stringify(values));
  if (connection === undefined) throw new Error(`react-netcode: the raw peer could not join with ${JSON.stringify(values)}.`);
  return { peer, connection };
}
