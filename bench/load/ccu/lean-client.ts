// CCU bench, client side: a lean react-netcode client — the real wire protocol over the real
// socket.io client transport, without the client engine. It says Hello and Join, pings every
// 100 ms, and every frame commits its input for each new tick up to its predicted tick and
// sends one Input packet (the newest 4 ticks, the interpolation view and the snapshot ack)
// plus the Ping when due, batched in one write — what NetClient sends. What it skips: it
// never decodes a snapshot's body (it reads the tick in the header, for the ack), never
// predicts, rolls back or interpolates. None of that changes what the server does: the server
// sees the same messages, acks and timing, so it encodes the same deltas against the same
// baselines. Its clock is NetClient's own (ClockSync, fed the Pongs, their input margins and
// missing-input counts, and the frame times), so its inputs reach the server as early as a
// real client's.
import { BitReader, BitWriter } from '../../../src/core/bits.ts';
import { systemsFingerprint } from '../../../src/core/build-check.ts';
import { ClockSync } from '../../../src/core/clock/clock-sync.ts';
import { encodeInputPacket } from '../../../src/core/input/packet.ts';
import { MessageEncoder, readKind, readPong, type Pong } from '../../../src/core/messages.ts';
import { forEachMessage, Outbox } from '../../../src/core/outbox.ts';
import type { Schema, SchemaCodec, Values } from '../../../src/core/schema.ts';
import type { ClientTransport } from '../../../src/core/transport.ts';
import { MessageKind, WIRE_VERSION } from '../../../src/core/wire.ts';
import type { PlayerInput } from '../game.ts';
import { snapshotTick } from '../wire.ts';
import type { ArenaGame } from './arena.ts';

const RING = 32;
const PING_MS = 100;
const INPUTS_PER_PACKET = 4;

/** What every load client counts (both systems), for the client process's report. */
export interface ClientCounters {
  frames: number;
  inputsSent: number;
  /** Snapshots (react-netcode) or patches (Colyseus) received. */
  updates: number;
  bytesUp: number;
  bytesDown: number;
}

/** A load client of either system: the input script writes to it, the client process runs its frames. */
export interface LoadClient extends PlayerInput {
  readonly counters: ClientCounters;
  readonly inRoom: boolean;
  readonly closedReason: string | undefined;
  frame(): void;
  close(): void;
}

export class LeanNetcodeClient implements LoadClient {
  readonly counters: ClientCounters = { frames: 0, inputsSent: 0, updates: 0, bytesUp: 0, bytesDown: 0 };
  status: 'connecting' | 'connected' | 'in-game' | 'closed' = 'connecting';
  closeReason = '';
  readonly current: Values<Schema> & { move: { x: number; y: number } };
  private readonly codec: SchemaCodec<Schema>;
  private readonly ring: (Values<Schema> | undefined)[] = new Array<Values<Schema> | undefined>(RING).fill(undefined);
  private readonly ringTicks = new Int32Array(RING).fill(-1);
  private readonly encoder = new MessageEncoder();
  private readonly writer = new BitWriter(256);
  private readonly reader = new BitReader();
  private readonly outbox = new Outbox();
  private readonly pong: Pong = { echoMs: 0, serverTick: 0, serverFraction: 0, inputMarginTicks: 0, inputsLate: 0, inputsMissing: 0 };
  private readonly clock: ClockSync;
  private lastMissing: number | undefined;
  private lastFrameAt: number | undefined;
  private newestTick = -1;
  private lastPingAt = -Infinity;
  private ackTick = 0;
  private ackMask = 0;
  private hasAck = false;

  constructor(
    private readonly transport: ClientTransport,
    private readonly game: ArenaGame,
    private readonly name: string,
    private readonly now: () => number,
  ) {
    this.codec = game.protocol.input as unknown as SchemaCodec<Schema>;
    this.current = this.codec.defaults() as LeanNetcodeClient['current'];
    for (let i = 0; i < RING; i++) this.ring[i] = this.codec.defaults();
    this.clock = new ClockSync({ tickRate: game.protocol.tickRate });
  }

  connect(): void {
    this.transport.connect({
      onOpen: () => {
        const hash = systemsFingerprint(this.game.systems).hash;
        this.write(this.encoder.hello({ protocolHash: this.game.protocol.hash, wireVersion: WIRE_VERSION, resumeToken: 0, resumeId: 0, systemsHash: hash, buildId: '' }), 'reliable');
        this.flush();
      },
      onMessage: (data) => this.receive(data),
      onClose: (reason) => {
        this.status = 'closed';
        this.closeReason = reason;
      },
    });
  }

  get inRoom(): boolean {
    return this.status === 'in-game';
  }

  get closedReason(): string | undefined {
    return this.status === 'closed' ? this.closeReason || 'closed' : undefined;
  }

  press(name: 'jump'): void {
    const v = this.current as Record<string, number>;
    v[name] = ((v[name] ?? 0) + 1) >>> 0;
  }

  /** One frame: inputs for the new ticks, one Input packet (with the ack), a Ping when due; one write. */
  frame(): void {
    this.counters.frames++;
    const now = this.now();
    this.clock.observeFrame(this.lastFrameAt === undefined ? 0 : Math.max(0, now - this.lastFrameAt));
    this.lastFrameAt = now;
    this.clock.update(now);
    if (this.status === 'in-game' && this.clock.synced) {
      const predicted = this.clock.predictedTick + this.clock.inputDelayTicks;
      if (predicted > this.newestTick) {
        const first = this.newestTick < 0 || predicted - this.newestTick > RING / 2 ? predicted : this.newestTick + 1;
        for (let t = first; t <= predicted; t++) this.commit(t);
        this.newestTick = predicted;
        this.sendInput();
      }
    }
    if (this.status !== 'connecting' && now - this.lastPingAt >= PING_MS) {
      this.lastPingAt = now;
      this.write(this.encoder.ping(Math.round(now)), 'unreliable');
    }
    this.flush();
  }

  close(): void {
    this.transport.close('load run over');
    this.status = 'closed';
  }

  private commit(tick: number): void {
    const slot = tick % RING;
    this.ring[slot] = this.codec.copy(this.current, this.ring[slot]!);
    this.ringTicks[slot] = tick;
  }

  private sendInput(): void {
    const w = this.writer;
    w.reset();
    w.writeBits(MessageKind.Input, 8);
    const source = { get: (t: number) => (this.ringTicks[t % RING] === t ? this.ring[t % RING] : undefined) };
    const interp = Math.max(0, this.ackTick - (2 * TICKS_PER_SNAPSHOT));
    encodeInputPacket(w, this.codec, source, this.newestTick, INPUTS_PER_PACKET, { interpolationTick: interp, interpolationFraction: 0, ackTick: this.ackTick, ackMask: this.ackMask });
    this.write(w.toBytes(), 'unreliable');
    this.counters.inputsSent++;
  }

  private write(bytes: Uint8Array, channel: 'reliable' | 'unreliable'): void {
    this.outbox.push(bytes, channel);
  }

  private flush(): void {
    this.outbox.flush((bytes, channel) => {
      this.counters.bytesUp += bytes.byteLength;
      this.transport.send(bytes, channel);
    });
  }

  private receive(data: Uint8Array): void {
    this.counters.bytesDown += data.byteLength;
    forEachMessage(data, (m) => this.one(m));
  }

  private one(m: Uint8Array): void {
    const kind = m[0];
    if (kind === MessageKind.Snapshot) {
      const tick = snapshotTick(m);
      if (tick !== undefined) this.ack(tick);
      this.counters.updates++;
    } else if (kind === MessageKind.Pong) {
      readKind(this.reader, m);
      readPong(this.reader, this.pong);
      this.onPong();
    } else if (kind === MessageKind.Welcome) {
      this.status = 'connected';
      const w = this.encoder.custom(MessageKind.Join);
      this.game.protocol.join.write(w, { name: this.name });
      this.write(w.toBytes(), 'reliable');
      this.flush();
    } else if (kind === MessageKind.Joined) this.status = 'in-game';
    else if (kind === MessageKind.Refuse || kind === MessageKind.Close || kind === MessageKind.JoinRefused) {
      this.closeReason = `server sent kind ${String(kind)}`;
      this.status = 'closed';
    }
  }

  private onPong(): void {
    const at = this.now();
    const sentAt = at - ((Math.round(at) - this.pong.echoMs) >>> 0);
    this.clock.onPong(sentAt, at, this.pong.serverTick, this.pong.serverFraction);
    this.clock.onInputMargin(this.pong.inputMarginTicks);
    if (this.lastMissing !== undefined) this.clock.onInputsMissing((this.pong.inputsMissing - this.lastMissing) & 0xffff, at);
    this.lastMissing = this.pong.inputsMissing;
  }

  /** Newest snapshot tick + mask of the 32 before it (as NetClient acks). */
  private ack(tick: number): void {
    if (!this.hasAck || tick > this.ackTick) {
      const shift = this.hasAck ? tick - this.ackTick : 33;
      // The old newest tick becomes bit shift − 1; older bits move up by shift (gone beyond 32).
      this.ackMask = shift > 32 ? 0 : shift === 32 ? 0x80000000 : ((this.ackMask << shift) | (1 << (shift - 1))) >>> 0;
      this.ackTick = tick;
      this.hasAck = true;
    } else if (tick < this.ackTick && this.ackTick - tick <= 32) this.ackMask = (this.ackMask | (1 << (this.ackTick - tick - 1))) >>> 0;
  }
}

const TICKS_PER_SNAPSHOT = 3;
