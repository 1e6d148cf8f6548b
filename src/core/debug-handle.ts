// The opt-in debug handle: with `createClient({ debugHandle: true })` (or the React
// provider's `clientOptions`), a small read-only object on globalThis under a documented
// name, so a test driving a browser (Playwright's page.evaluate) or a developer in the
// console can read the client's state. Everything is computed when read: it costs
// nothing per frame. Off by default: a production page exposes nothing.

import type { ClientState, ClientStatus } from './client-options.ts';
import type { CloseCode } from './close-code.ts';
import { NetcodeError } from './errors.ts';
import type { GhostMode } from './world.ts';

/** The global name used by `debugHandle: true`: `globalThis.__reactNetcode`. */
export const DEFAULT_DEBUG_HANDLE_NAME = '__reactNetcode';

/** One ghost as the debug handle shows it: a copy, safe to keep and to serialize. */
export interface DebugGhost {
  readonly id: number;
  readonly type: string;
  readonly owner: number;
  readonly mode: GhostMode;
  readonly origin: 'server' | 'snapshot' | 'predicted' | 'matched';
  readonly isLocal: boolean;
  /** What is drawn this frame (`client.view(ghost)`), copied field by field. */
  readonly view: Readonly<Record<string, unknown>>;
}

/** What `globalThis[name]` holds. Getters read the live client; methods return copies. */
export interface DebugHandle {
  readonly status: ClientStatus;
  readonly networkId: number | undefined;
  readonly closeReason: string | undefined;
  readonly closeCode: CloseCode | undefined;
  readonly joinError: string | undefined;
  /** The NetworkTime of the last frame: ticks, RTT, jitter, input delay (a copy). */
  time(): Readonly<Record<string, number | boolean>>;
  /** Live ghosts (of `type`, or all) in spawn order. */
  ghosts(type?: string): DebugGhost[];
  /**
   * Counters: traffic, snapshots rejected, the server's running counts of this client's inputs that came late and went
   * missing (`inputsLate`, `inputsMissing`), and the prediction stats (absent when prediction is off).
   */
  stats(): Readonly<Record<string, number>>;
  /** The recent corrections (at most 64), oldest first: copies of `client.corrections.recent` with their cause and detail. */
  corrections(): DebugCorrection[];
}

/** One correction as the debug handle shows it: a copy, safe to keep and to serialize. */
export interface DebugCorrection {
  readonly ghostId: number;
  readonly type: string;
  readonly local: boolean;
  readonly tick: number;
  readonly fromTick: number;
  /** How far the shown position moved (m). */
  readonly distance: number;
  readonly cause: string;
  readonly detail: string;
}

/** What the handle reads of a client (NetClient fits). */
export interface DebugSource {
  readonly state: Pick<ClientState, 'status' | 'networkId' | 'closeReason' | 'closeCode' | 'joinError'>;
  readonly time: object;
  readonly world: { all(): Iterable<{ id: number; type: string; owner: number; mode: GhostMode; origin: DebugGhost['origin']; isLocal: boolean }> };
  readonly traffic: Readonly<Record<string, number>>;
  readonly ghosts: { rejectedSnapshots: number };
  readonly prediction: { stats: object } | undefined;
  readonly inputReports: { readonly late: number; readonly missing: number };
  readonly corrections: { readonly recent: readonly DebugCorrection[] };
  view(ghost: never): object;
}

function copy(values: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) out[k] = typeof v === 'object' && v !== null ? { ...v } : v;
  return out;
}

function handleFor(client: DebugSource): DebugHandle {
  return Object.freeze({
    get status() {
      return client.state.status;
    },
    get networkId() {
      return client.state.networkId;
    },
    get closeReason() {
      return client.state.closeReason;
    },
    get closeCode() {
      return client.state.closeCode;
    },
    get joinError() {
      return client.state.joinError;
    },
    time: () => ({ ...client.time }) as Record<string, number | boolean>,
    ghosts: (type?: string): DebugGhost[] => {
      const out: DebugGhost[] = [];
      for (const g of client.world.all()) {
        if (type !== undefined && g.type !== type) continue;
        const view = copy(client.view(g as never));
        out.push({ id: g.id, type: g.type, owner: g.owner, mode: g.mode, origin: g.origin, isLocal: g.isLocal, view });
      }
      return out;
    },
    stats: () => {
      const prediction = client.prediction?.stats ?? {};
      const { late, missing } = client.inputReports;
      const inputs = { inputsLate: late, inputsMissing: missing };
      return { ...client.traffic, rejectedSnapshots: client.ghosts.rejectedSnapshots, ...inputs, ...prediction } as Record<string, number>;
    },
    corrections: (): DebugCorrection[] =>
      client.corrections.recent.map(({ ghostId, type, local, tick, fromTick, distance, cause, detail }) => (
        { ghostId, type, local, tick, fromTick, distance, cause, detail }
      )),
  });
}

/**
 * Put the debug handle of `client` on globalThis under `name`; returns the function that removes it
 * (only if it is still this client's: a newer client under the same name keeps its own).
 */
export function installDebugHandle(client: DebugSource, option: boolean | string | undefined): () => void {
  if (option === undefined || option === false) return () => {};
  if (option !== true && (typeof option !== 'string' || option === '')) {
    throw new NetcodeError('usage', `react-netcode: debugHandle must be true (globalThis.${DEFAULT_DEBUG_HANDLE_NAME}) or a non-empty global name, got ${JSON.stringify(option)}.`);
  }
  const name = option === true ? DEFAULT_DEBUG_HANDLE_NAME : option;
  const handle = handleFor(client);
  const g = globalThis as unknown as Record<string, unknown>;
  g[name] = handle;
  return () => {
    if (g[name] === handle) delete g[name];
  };
}
