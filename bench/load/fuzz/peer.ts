// A fuzzing connection: any ClientTransport (loopback or socket.io), driven by hand.
// It tracks what the server told it — Welcome (connected), Joined (in game), Pong and
// Snapshot ticks, Close / Refuse (closed, with the reason) — so the generator knows the
// connection's state and the runner can tell which packet closed it.
import { BitReader } from '../../../src/core/bits.ts';
import { systemsFingerprint } from '../../../src/core/build-check.ts';
import { MessageEncoder, readKind, readPong, readReason, readWelcome, type Pong } from '../../../src/core/messages.ts';
import { forEachMessage } from '../../../src/core/outbox.ts';
import type { Protocol } from '../../../src/core/protocol.ts';
import type { Channel, ClientTransport } from '../../../src/core/transport.ts';
import { MessageKind, WIRE_VERSION } from '../../../src/core/wire.ts';
import type { PeerView } from './generate.ts';
import { fuzzSystems } from './protocol.ts';

const SYSTEMS_HASH = systemsFingerprint(fuzzSystems).hash;

export class FuzzPeer implements PeerView {
  state: PeerView['state'] = 'pending';
  serverTick = 0;
  readonly snapshotTicks: number[] = [];
  open = false;
  /** Set when the link closed or the server said Close / Refuse. */
  closedReason: string | undefined;
  /** Replies seen since the last `clearReplies()`: kinds, and the echoes of Pongs. */
  replies = 0;
  readonly echoes = new Set<number>();
  private readonly reader = new BitReader();
  private readonly pong: Pong = { echoMs: 0, serverTick: 0, serverFraction: 0, inputMarginTicks: 0, inputsLate: 0, inputsMissing: 0 };
  private readonly encoder = new MessageEncoder();
  private onChange: (() => void) | undefined;

  constructor(
    readonly transport: ClientTransport,
    private readonly protocol: Protocol,
  ) {
    transport.connect({
      onOpen: () => {
        this.open = true;
        this.changed();
      },
      onMessage: (data) => this.receive(data),
      onClose: (reason) => {
        this.closedReason ??= reason || 'closed';
        this.changed();
      },
    });
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  send(bytes: Uint8Array, channel: Channel): void {
    this.transport.send(bytes, channel);
  }

  hello(): void {
    this.send(this.encoder.hello({ protocolHash: this.protocol.hash, wireVersion: WIRE_VERSION, resumeToken: 0, resumeId: 0, systemsHash: SYSTEMS_HASH, buildId: '' }), 'reliable');
  }

  /** A Ping whose echo is `stamp` (a probe: its Pong says everything sent before it was handled). */
  ping(stamp: number): void {
    this.send(this.encoder.ping(stamp), 'unreliable');
  }

  close(): void {
    this.transport.close('fuzz peer done');
    this.closedReason ??= 'fuzz peer done';
  }

  clearReplies(): void {
    this.replies = 0;
    this.echoes.clear();
  }

  /** Resolves at the next change (a message or the close), or after `ms`. */
  changeOrTimeout(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.onChange = undefined;
        resolve();
      }, ms);
      this.onChange = () => {
        clearTimeout(timer);
        this.onChange = undefined;
        resolve();
      };
    });
  }

  private changed(): void {
    this.onChange?.();
  }

  private receive(data: Uint8Array): void {
    try {
      forEachMessage(data, (m) => this.one(m));
    } catch {
      // The server never sends a malformed Batch; if it did, the good client would report it.
    }
    this.changed();
  }

  private one(m: Uint8Array): void {
    const r = this.reader;
    const kind = readKind(r, m);
    this.replies++;
    if (kind === MessageKind.Welcome) {
      const welcome = readWelcome(r);
      this.state = 'connected';
      this.serverTick = welcome.serverTick;
    } else if (kind === MessageKind.Joined) this.state = 'in-game';
    else if (kind === MessageKind.Close || kind === MessageKind.Refuse) this.closedReason ??= safeReason(r);
    else if (kind === MessageKind.Pong) {
      readPong(r, this.pong);
      this.serverTick = this.pong.serverTick;
      this.echoes.add(this.pong.echoMs);
    } else if (kind === MessageKind.Snapshot && m.byteLength >= 7) {
      const tick = (m[3]! | (m[4]! << 8) | (m[5]! << 16) | (m[6]! << 24)) >>> 0;
      this.serverTick = tick;
      this.snapshotTicks.push(tick);
      if (this.snapshotTicks.length > 8) this.snapshotTicks.shift();
    }
  }
}

function safeReason(r: BitReader): string {
  try {
    return readReason(r) || 'closed';
  } catch {
    return 'closed';
  }
}
