// Types of the client engine's options, state and events (see client.ts).

import type { ClientGhostOptions } from './client-ghosts.ts';
import type { CloseCode } from './close-code.ts';
import type { ClockSyncOptions } from './clock/index.ts';
import type { Correction } from './corrections.ts';
import type { Logger } from './emitter.ts';
import type { NetcodeError } from './errors.ts';
import type { PredictedSpawnOptions } from './predicted-spawns.ts';
import type { PredictionOptions } from './prediction.ts';
import type { InputValues, Protocol } from './protocol.ts';
import type { ReconnectOptions } from './reconnect.ts';
import type { SystemDef } from './system.ts';
import type { Tick } from './clock/tick.ts';
import type { ClientTransport } from './transport.ts';

/**
 * idle → connecting → connected → joining → in-game → closed, and `reconnecting`
 * after an unexpected drop (back to the previous status when resumed).
 */
export type ClientStatus = 'idle' | 'connecting' | 'connected' | 'joining' | 'in-game' | 'reconnecting' | 'closed';

export interface ClientState {
  status: ClientStatus;
  networkId: number | undefined;
  /** Why the connection closed (when status is 'closed'), or why the link dropped (while 'reconnecting'). */
  closeReason: string | undefined;
  /** The same as a code to switch on (CloseCode: what an app should do for each), set and cleared with `closeReason`. */
  closeCode: CloseCode | undefined;
  /** Why the last join was refused, if it was. */
  joinError: string | undefined;
  /** True after a reconnect the server could not resume: the world was cleared; join again. */
  resumeFailed: boolean;
}

export interface ClientOptions<P extends Protocol> extends ClientGhostOptions, ReconnectOptions {
  protocol: P;
  transport: ClientTransport;
  /**
   * The game's systems; clients run the 'client' (presentation) ones each frame, and 'shared' ones in prediction.
   * The names and order of the shared ones must be the server's (checked at the handshake).
   */
  systems?: readonly SystemDef<P>[];
  /**
   * The app's build id (e.g. a git commit or a version, at most 64 characters; default none): it must
   * equal the server's `buildId`, or the handshake is refused. Changes inside a system's code are caught
   * only this way: the systems fingerprint covers names and order.
   */
  buildId?: string;
  /** Client prediction with rollback (default on, policy 'check'); `false` shows predicted ghosts at their newest confirmed state. */
  prediction?: PredictionOptions | false;
  /** Predicted spawning: classification window and the grace before an unmatched predicted spawn is destroyed. */
  spawning?: PredictedSpawnOptions;
  /** Clock sync tuning (slack, prediction cap …). */
  clock?: Omit<ClockSyncOptions, 'tickRate'>;
  /** Inputs carried by each input packet (redundancy, default 4). */
  inputsPerPacket?: number;
  /**
   * The server's `maxInputRepeatTicks` (default 8, as the server's): a tick for which no input was
   * committed (after a stall) is predicted as the server runs it — the previous input repeated for
   * this many ticks, then neutral.
   */
  maxInputRepeatTicks?: number;
  /** Ping period for clock sync (default 100 ms). */
  pingIntervalMs?: number;
  /**
   * The monotonic clock `update(now)` is given (same time base), e.g. the page's performance clock.
   * With it, every received message is timestamped when the transport delivers it, so RTT,
   * jitter and snapshot arrival times measure the network, not the frame rate. Without it, a
   * message counts as received at the next `update`. The React provider passes its clock.
   */
  now?: () => number;
  /**
   * Opt-in debug/test handle: `true` puts a small read-only object (status, networkId, time(), ghosts(),
   * stats()) on `globalThis.__reactNetcode`, a string on `globalThis[thatName]` — for browser tests
   * (page.evaluate) and the console. Default off: nothing is exposed. `removeDebugHandle()` takes it away.
   */
  debugHandle?: boolean | string;
  /** Called once per predicted tick, before its input is committed: fill `input` (the live input) for `tick`. */
  onInput?: (input: InputValues<P>, tick: Tick) => void;
  log?: Logger;
}

export type ClientEvents = {
  /** Any change of `state` (status, networkId, reasons). */
  status: (state: Readonly<ClientState>) => void;
  /** A non-fatal, contained problem: a malformed snapshot that was dropped, a system that threw (SystemError: skipped for that run). */
  error: (error: NetcodeError) => void;
  /** A predicted ghost's shown transform was corrected, with the cause (reported once the server's input reports cover its tick). */
  correction: (correction: Correction) => void;
};

