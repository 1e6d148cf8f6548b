// The client's session with its server: the status (idle → connecting → connected → joining →
// in-game, reconnecting, closed), the handshake (Hello with the protocol hash and build identity,
// Welcome checked against ours), join, leave, and the resume of a dropped link within the grace
// period. Stage 1 of a client frame, `receive`, handles what the transport delivered since the last
// frame, in order, each message timestamped at its arrival; the frame's side of a message (snapshots,
// Pongs, RPCs, the reset of a new session) goes to the client (SessionHost).

import { BitReader } from './bits.ts';
import { buildMismatch, type BuildIdentity } from './build-check.ts';
import { ClientInbox } from './client-inbox.ts';
import type { ClientSender } from './client-send.ts';
import type { ClientEvents, ClientOptions, ClientState, ClientStatus } from './client-options.ts';
import { refusalCode, type CloseCode } from './close-code.ts';
import type { Emitter, Logger } from './emitter.ts';
import { asNetcodeError, NetcodeError } from './errors.ts';
import { type MessageEncoder, readKind, readReason, readWelcome, type Welcome } from './messages.ts';
import { forEachMessage } from './outbox.ts';
import { payloadProblem } from './payload.ts';
import type { JoinPayload, Protocol } from './protocol.ts';
import { DropWatch } from './drop-watch.ts';
import { LAST_ATTEMPT_MS, Reconnector } from './reconnect.ts';
import { MAX_MESSAGE_BYTES, MessageKind, WIRE_VERSION } from './wire.ts';
import { watchOnce } from './watch.ts';

/**
 * A session that has not had a first `receive` (the app never called `client.update(now)`) this long after connect() is
 * reported once (SessionHost.unframed).
 */
export const FRAME_WATCH_MS = 5000;

/** The frame's side of the session's messages. */
export interface SessionHost {
  /** A Snapshot that arrived at `at`, while in game. */
  snapshot(data: Uint8Array, at: number): void;
  /** A Pong that arrived at `at` (the reader is positioned after its kind). */
  pong(reader: BitReader, at: number): void;
  /** An RPC (the reader is positioned after its kind). */
  rpc(reader: BitReader): void;
  /** A Welcome, at `now`, began a session (`welcome.resumed`: the server kept ours; otherwise the last one is forgotten). */
  welcome(welcome: Welcome, now: number): void;
  /** The session closed for good: what waits for the server never comes. */
  closed(): void;
  /** `count` unreliable messages were dropped unread (MAX_QUEUED_UNRELIABLE waited), the last arriving at `at`. */
  droppedUnread(count: number, at: number): void;
  /** FRAME_WATCH_MS after connect(), no frame has run; `waiting` events of the link (its open, messages) wait for one. */
  unframed(waiting: number): void;
  /** Whether the app paused the client (setPaused: a hidden page). */
  paused(): boolean;
}

export interface SessionParts<P extends Protocol> {
  options: ClientOptions<P>;
  sender: ClientSender;
  encoder: MessageEncoder;
  identity: BuildIdentity;
  events: Emitter<ClientEvents>;
  log: Logger;
  host: SessionHost;
}

export class ClientSession<P extends Protocol> {
  private current: ClientState = { status: 'idle', networkId: undefined, closeReason: undefined, closeCode: undefined, joinError: undefined, resumeFailed: false };
  private readonly inbox: ClientInbox;
  private generation = 0;
  private now = 0;
  readonly reconnect: Reconnector;
  private statusBeforeDrop: ClientStatus = 'idle';
  private resumeToken = 0;
  private readonly reader = new BitReader();
  /** Arrival time (client clock) of the message being handled. */
  private receivedAt = 0;
  /** A frame (`receive`) ran since the last connect(). */
  private framed = false;
  /** Cancels the frame watch (watchFrames); called by the first frame and when the session ends. */
  private stopFrameWatch: () => void = () => {};
  /** Frames (`receive`) run so far: the drop watch tells from it whether frames stopped. */
  private frames = 0;
  /** Closes a dropped session when frames stopped (drop-watch.ts); `dropReason`: why the link dropped. */
  private readonly dropWatch = new DropWatch({
    frames: () => this.frames,
    closed: () => this.current.status === 'closed',
    paused: () => this.parts.host.paused() || this.pausedInDrop,
    sawPaused: () => void (this.pausedInDrop = true),
    expire: (waited) => this.expired(this.dropReason, `: client.update(now) did not run for ${waited} ms, and a resume is tried only inside it (a hidden page gets no animation frames; a Node client calls it from a timer)`),
  });
  private dropReason = '';
  /** The client was paused (a hidden page) at some time since the link dropped. */
  private pausedInDrop = false;
  /** After the grace of a paused drop: until when its last attempt may take (undefined: none made). */
  private lastAttemptUntil: number | undefined;

  constructor(private readonly parts: SessionParts<P>) {
    this.reconnect = new Reconnector(parts.options);
    this.inbox = new ClientInbox((count, at) => {
      parts.sender.traffic.droppedUnread += count;
      parts.host.droppedUnread(count, at);
    });
  }

  get state(): Readonly<ClientState> {
    return this.current;
  }

  /** Open the connection and start the handshake. Allowed when idle or closed. */
  connect(): void {
    if (this.current.status !== 'idle' && this.current.status !== 'closed') {
      throw new NetcodeError('usage', `react-netcode: connect() called while ${this.current.status}; call leave() first.`);
    }
    this.resumeToken = 0;
    this.setState({ status: 'connecting', networkId: undefined, closeReason: undefined, closeCode: undefined, joinError: undefined, resumeFailed: false });
    this.open();
    this.watchFrames();
  }

  /** Report once when no frame has run FRAME_WATCH_MS after connect(). */
  private watchFrames(): void {
    this.framed = false;
    this.stopFrameWatch();
    // The first frame and the session's end cancel it: when it fires, no frame has run since this connect().
    this.stopFrameWatch = watchOnce(FRAME_WATCH_MS, () => this.parts.host.unframed(this.inbox.size));
  }

  /** Ask to join with the protocol's join payload (GoInGame). */
  join(payload: JoinPayload<P>): void {
    const status = this.current.status;
    if (status !== 'connected') {
      const why = status === 'joining' ? 'a join is already pending: wait for its answer (status in-game, or joinError)' : status === 'in-game' ? 'you are already in game' : 'wait for the handshake (status connected; it advances only inside client.update(now): call that every frame)';
      throw new NetcodeError('usage', `react-netcode: join() needs status 'connected' (it is '${status}'): ${why}.`);
    }
    const protocol = this.parts.options.protocol;
    const problem = payloadProblem(protocol.join, payload);
    if (problem !== null) throw new NetcodeError('usage', `react-netcode: join payload is invalid: ${problem}; pass a payload that fits the protocol's join fields.`);
    const w = this.parts.encoder.custom(MessageKind.Join);
    protocol.join.write(w, payload as never);
    this.parts.sender.send(w.toBytes(), 'reliable');
    this.setState({ ...this.current, status: 'joining', joinError: undefined, resumeFailed: false });
  }

  /** Close on purpose (no resume); the server sees `reason`. */
  leave(reason: string): void {
    const status = this.current.status;
    if (status === 'idle' || status === 'closed') return;
    if (status !== 'reconnecting') this.parts.sender.send(this.parts.encoder.reason(MessageKind.Close, reason), 'reliable');
    this.parts.sender.flush(); // leave() may run inside a frame (from a listener): the Close goes out before the link closes
    this.end('left', reason);
  }

  /** Stage 1 at `now`: handle what arrived since the last frame, in order; then a resume attempt when one is due. */
  receive(now: number): void {
    this.now = now;
    this.frames++;
    this.reconnect.frame(now);
    if (!this.framed) {
      this.framed = true;
      this.stopFrameWatch();
    }
    const batch = this.inbox.take();
    for (let i = 0; i < batch.length; i++) {
      const event = batch[i]!;
      if (this.current.status === 'closed') break;
      if (event.kind === 'open') {
        this.reconnect.heard(now);
        this.hello();
      }
      else if (event.kind === 'close') this.dropped(event.reason, event.at <= now ? event.at : now);
      else if (event.kind === 'server-error') this.protocolError(event.reason);
      else {
        // Arrival time: from the transport callback when the app gave a clock; never after this frame.
        this.receivedAt = event.at <= now ? event.at : now;
        this.reconnect.heard(this.receivedAt);
        this.onMessage(event.data);
      }
    }
    const status = this.current.status;
    if (status === 'in-game' && this.reconnect.silent(now)) { // in game the server answers Pings and sends snapshots
      this.reconnect.heard(now); // once: the close below comes back as a drop (resumed as any other)
      this.parts.options.transport.close(`react-netcode: the server sent nothing for ${this.reconnect.silenceMs} ms (a frozen or vanished host, a dead link)`);
    }
    if (status === 'reconnecting') {
      if (this.parts.host.paused()) this.pausedInDrop = true;
      this.retry();
    }
  }

  private hello(): void {
    const { systemsHash, buildId } = this.parts.identity;
    const resumeId = this.resumeToken ? (this.current.networkId ?? 0) : 0;
    const protocolHash = this.parts.options.protocol.hash;
    const hello = { protocolHash, wireVersion: WIRE_VERSION, resumeToken: this.resumeToken, resumeId, systemsHash, buildId };
    this.parts.sender.send(this.parts.encoder.hello(hello), 'reliable');
  }

  private open(): void {
    const generation = ++this.generation;
    let serverError = false;
    let retryTold = false;
    this.inbox.clear();
    this.parts.sender.clear();
    const now = this.parts.options.now;
    const intent = { resume: this.current.status === 'reconnecting' }; // the resume's own schedule, not the transport's retries
    this.parts.options.transport.connect({
      onOpen: () => generation === this.generation && this.inbox.push({ kind: 'open' }),
      onMessage: (data, channel) => {
        if (generation !== this.generation) return;
        const at = now?.() ?? Number.NaN;
        this.inbox.message(data, channel, at);
        // Paused (no frames, no send stage): still heard by the server's silence check; `at` needs the `now` option.
        if (this.current.status === 'in-game' && !Number.isNaN(at) && this.parts.host.paused()) this.parts.sender.pausedPing(at);
      },
      onClose: (reason) => {
        if (generation !== this.generation) return;
        this.inbox.push({ kind: 'close', reason, at: now?.() ?? Number.NaN });
        if (this.resumeToken === 0 || !this.reconnect.enabled || serverError || this.dropWatch.armed) return;
        this.dropReason = reason; // the first link's reason: a failed attempt of the resume does not re-arm it
        this.dropWatch.arm(this.reconnect.graceMs); // a frame within the grace resumes or closes it; else the watch does
      },
      onServerError: (reason) => {
        if (generation !== this.generation || serverError) return;
        serverError = true; // the close that follows is no drop: nothing to resume
        this.inbox.push({ kind: 'server-error', reason });
      },
      onRetry: (reason) => {
        if (generation !== this.generation || retryTold) return;
        retryTold = true; // once per connect: the close after the last attempt says it again, with the count
        this.parts.log('warn', reason);
      },
    }, intent);
  }

  /** The drop is over (a Welcome, or the session ended): no watch, no paused drop's last attempt. */
  private dropOver(): void {
    this.dropWatch.cancel();
    this.pausedInDrop = false;
    this.lastAttemptUntil = undefined;
  }

  /** The link closed without a Close/Refuse from the server: try to resume, else give up. */
  private dropped(reason: string, at: number): void {
    const status = this.current.status;
    if (status === 'reconnecting') {
      if (this.lastAttemptUntil !== undefined) return this.expired(this.current.closeReason); // a paused drop's last attempt failed too
      this.reconnect.scheduleNext(this.now);
      this.generation++; // ignore anything more from the dead link until the next attempt opens
      return;
    }
    const resumable = this.resumeToken !== 0 && (status === 'connected' || status === 'joining' || status === 'in-game');
    if (!resumable || !this.reconnect.enabled) return this.finish(status === 'connecting' ? 'connect-failed' : 'lost', reason);
    this.statusBeforeDrop = status === 'joining' ? 'connected' : status;
    this.generation++;
    this.reconnect.start(at); // the grace counts from the drop, not from the frame that saw it
    if (this.parts.host.paused()) this.pausedInDrop = true; // (or the drop watch saw it paused: reset when the drop is over)
    this.setState({ ...this.current, status: 'reconnecting', closeReason: reason, closeCode: 'dropped' });
  }

  private retry(): void {
    const next = this.reconnect.poll(this.now);
    if (next === 'expired') {
      if (this.pausedInDrop && this.lastAttemptUntil === undefined) {
        // Paused through the drop (a hidden page), now back: one more attempt, which a server whose own grace is
        // over answers with a fresh session (resumeFailed: join again; the React provider does with its join prop).
        this.lastAttemptUntil = this.now + LAST_ATTEMPT_MS;
        this.open();
      } else if (this.lastAttemptUntil === undefined || this.now >= this.lastAttemptUntil) this.expired(this.current.closeReason);
    } else if (next === 'attempt') this.open();
  }

  /** The grace (and a paused drop's last attempt) is over: close, saying why the link dropped (and `why` it could not resume). */
  private expired(dropped: string | undefined, why = ''): void {
    // An attempt still under way (a transport retrying to open) stops here.
    const advice = this.parts.options.transport.newSessionAdvice ?? 'call connect() to start a new session';
    this.end('lost', `react-netcode: connection lost: could not resume within ${this.reconnect.graceMs} ms (${dropped ?? 'link closed'})${why}; ${advice}.`);
  }

  /** One transport message: a lone message or a Batch, whose parts are handled in order. */
  private onMessage(data: Uint8Array): void {
    try {
      if (data.byteLength > MAX_MESSAGE_BYTES) throw new NetcodeError('wire/too-large', `react-netcode: message of ${data.byteLength} bytes exceeds ${MAX_MESSAGE_BYTES}.`);
      forEachMessage(data, this.onPart);
    } catch (thrown) {
      const error = asNetcodeError(thrown, 'handling a message from the server');
      if (this.current.status === 'closed') return;
      this.protocolError(error.message);
    }
  }

  /** What the server sent did not decode (or the transport could not carry it): log, and close the session for good. */
  private protocolError(what: string): void {
    const reason = `react-netcode: protocol error from server: ${what.replace(/^react-netcode: /, '')}`;
    this.parts.log('error', reason);
    this.end('protocol-error', reason);
  }

  private readonly onPart = (data: Uint8Array): void => this.handle(data);

  /** One message (throws NetcodeError when it is malformed: the caller closes the connection). */
  private handle(data: Uint8Array): void {
    if (this.current.status === 'closed') return;
    const traffic = this.parts.sender.traffic;
    traffic.bytesIn += data.byteLength;
    traffic.messagesIn++;
    const kind = readKind(this.reader, data);
    switch (kind) {
      case MessageKind.Snapshot:
        if (this.current.status === 'in-game') this.parts.host.snapshot(data, this.receivedAt);
        return;
      case MessageKind.Pong:
        return this.parts.host.pong(this.reader, this.receivedAt);
      case MessageKind.Welcome:
        return this.onWelcome();
      case MessageKind.Joined:
        this.reader.expectEnd();
        if (this.current.status === 'in-game') return; // said again after a resume: nothing new
        return this.setState({ ...this.current, status: 'in-game' });
      case MessageKind.JoinRefused:
        return this.setState({ ...this.current, status: 'connected', joinError: readReason(this.reader) });
      case MessageKind.Refuse:
      case MessageKind.Close: {
        const reason = readReason(this.reader);
        if (kind === MessageKind.Refuse) this.parts.log('error', reason.startsWith('react-netcode:') ? reason : `react-netcode: the server refused this client: ${reason}`);
        return this.end(kind === MessageKind.Close ? 'server-closed' : refusalCode(reason), reason);
      }
      case MessageKind.Rpc:
        return this.parts.host.rpc(this.reader);
      case MessageKind.Signal:
        return; // a transport's own signalling, never the engine's
      default:
        throw new NetcodeError('wire/unknown-message', `react-netcode: unknown message kind ${kind}.`);
    }
  }

  private onWelcome(): void {
    const welcome = readWelcome(this.reader);
    const { identity, sender, encoder } = this.parts;
    const mismatch = buildMismatch('client', identity, welcome);
    if (mismatch !== null) {
      // The server let us in (an older server, or one that does not check): refuse it from this side.
      const line = `${mismatch} This client's ${identity.systems}.`; // mismatch starts with 'react-netcode:'
      this.parts.log('error', line);
      sender.send(encoder.reason(MessageKind.Close, mismatch), 'reliable');
      sender.flush();
      return this.end('mismatch', mismatch);
    }
    const reconnecting = this.current.status === 'reconnecting';
    this.dropOver();
    this.resumeToken = welcome.resumeToken;
    this.parts.host.welcome(welcome, this.now);
    const networkId = welcome.networkId;
    if (this.parts.host.paused()) this.sayPaused(true); // a (resumed) connection starts unpaused on the server
    if (reconnecting && welcome.resumed) {
      this.setState({ ...this.current, status: this.statusBeforeDrop, networkId, closeReason: undefined, closeCode: undefined });
    } else {
      this.setState({ ...this.current, status: 'connected', networkId, closeReason: undefined, closeCode: undefined, resumeFailed: reconnecting });
    }
  }

  /** The app paused the client or it runs again: tell the server, when there is a connection (else the next Welcome does). */
  pausedChanged(paused: boolean): void {
    const status = this.current.status;
    if (status === 'connected' || status === 'joining' || status === 'in-game') this.sayPaused(paused);
  }

  private sayPaused(paused: boolean): void {
    this.parts.sender.send(this.parts.encoder.pause(paused), 'reliable');
  }

  /** End the session (why: `code`, `reason`) and close the link. */
  private end(code: CloseCode, reason: string): void {
    this.finish(code, reason);
    this.parts.options.transport.close(reason);
  }

  private finish(code: CloseCode, reason: string): void {
    this.stopFrameWatch();
    this.dropOver();
    if (this.current.status === 'closed') return;
    this.parts.host.closed();
    this.generation++;
    this.inbox.clear();
    this.parts.sender.clear();
    this.resumeToken = 0;
    this.setState({ ...this.current, status: 'closed', closeReason: reason, closeCode: code });
    // Said once where nothing else said it (errors, refusals and mismatches are logged as they are found):
    // a page with no status screen shows why it is not playing in the console.
    if (code === 'connect-failed' || code === 'lost' || code === 'server-closed') {
      this.parts.log('warn', reason.startsWith('react-netcode:') ? reason : `react-netcode: the connection closed: ${reason}`);
    }
  }

  private setState(next: ClientState): void {
    this.current = next;
    this.parts.events.emit('status', next);
  }
}
