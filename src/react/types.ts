// Types shared by the React hooks: loose-or-typed name helpers (a plain hook takes
// any string when used without createNetcode, a typed one only the protocol's names),
// input field keys by value type, and the shapes the hooks return.

import type { Ghost, GhostNames, InputValues, JoinPayload, Protocol, RpcNames, RpcPayload, Vec2, Vec3 } from '../index.ts';
import type { AnyGhost } from '../core/world.ts';
import type { NetcodeUiState } from './context.ts';

export type { AnyGhost } from '../core/world.ts';

/** True for the untyped `Protocol` (plain hooks used without createNetcode). */
type IsLoose<P extends Protocol> = string extends keyof P['rpcs'] ? true : false;

/** RPC names the client may handle (server → client): every string for a plain protocol. */
export type ClientRpcName<P extends Protocol> = IsLoose<P> extends true ? string : RpcNames<P, 'toClient'>;
/** RPC names the client may send (client → server): every string for a plain protocol. */
export type ServerRpcName<P extends Protocol> = IsLoose<P> extends true ? string : RpcNames<P, 'toServer'>;
/** The payload of RPC `K` (a loose record for a plain protocol). */
export type RpcPayloadOf<P extends Protocol, K extends string> =
  IsLoose<P> extends true ? Readonly<Record<string, unknown>> : RpcPayload<P, K>;

type InputKey<P extends Protocol> = keyof InputValues<P> & string;
/** Input fields holding a 2-D vector (targets of keyboardAxes). */
export type Vec2InputKey<P extends Protocol> = {
  [K in InputKey<P>]: InputValues<P>[K] extends Vec3 ? never : InputValues<P>[K] extends Vec2 ? K : never;
}[InputKey<P>];
/** Input fields holding a number (targets of pressOnKey / pressOnPointer: declare them with field.event()). */
export type NumberInputKey<P extends Protocol> = { [K in InputKey<P>]: InputValues<P>[K] extends number ? K : never }[InputKey<P>];
/** Input fields holding a boolean (targets of holdKey). */
export type BoolInputKey<P extends Protocol> = { [K in InputKey<P>]: InputValues<P>[K] extends boolean ? K : never }[InputKey<P>];

/** What useConnection returns: UI-rate connection state plus the actions. */
export interface Connection<P extends Protocol = Protocol> {
  /** `loading` (provider preparing, `init` running) → connecting → connected → joining → in-game; `reconnecting` after a drop; `closed`. */
  readonly status: NetcodeUiState['status'];
  /** This client's networkId once connected. */
  readonly networkId: number | undefined;
  /** True while the client tries to resume a dropped connection. */
  readonly reconnecting: boolean;
  readonly inGame: boolean;
  /** Why the connection closed (status `closed`), or why the link dropped (while `reconnecting`). */
  readonly closeReason: string | undefined;
  /**
   * The same as a code to switch on, set and cleared with `closeReason` (CloseCode: `'mismatch'` → reload the page,
   * `'refused'` → try later, `'lost'` → connect again …), or `'init-failed'`: the provider's `init` rejected.
   */
  readonly closeCode: NetcodeUiState['closeCode'];
  /** Why the last join was refused (or why the auto-join payload was invalid). */
  readonly joinError: string | undefined;
  /** True after a reconnect the server could not resume: the world was cleared, join again (the provider does when it has `join`). */
  readonly resumeFailed: boolean;
  /** The last non-fatal engine error (e.g. a dropped malformed snapshot) or a failed `init`. */
  readonly error: string | undefined;
  /** Join the game (status must be `connected`; throws a `react-netcode:` error otherwise). */
  readonly join: (payload: JoinPayload<P>) => void;
  /** Leave on purpose (no resume); the server sees `reason`. */
  readonly leave: (reason?: string) => void;
  /** Connect again after `closed` (e.g. a "Retry" button). */
  readonly connect: () => void;
}

/** A ref to a live value: read `current` in frame callbacks; it never causes a re-render. */
export interface LiveRef<T> {
  readonly current: T;
}

/** What useGhost returns. */
export interface GhostState<P extends Protocol = Protocol, T = undefined> {
  /** The live ghost (components change every tick): read it in useFrame / frame.onStep. */
  readonly ref: LiveRef<AnyGhost<P> | undefined>;
  /** The ghost as of the last UI update: undefined before its spawn and after its despawn. */
  readonly ghost: AnyGhost<P> | undefined;
  /** `select(ghost)`, evaluated at UI rate (stats rate, ≤ 4/s, and on spawn/despawn); re-renders only when it changes (shallow compare). */
  readonly selected: T | undefined;
}

/** A ghost of type K of protocol P. */
export type GhostOf<P extends Protocol, K extends GhostNames<P>> = Ghost<P, K>;
