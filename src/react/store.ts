// The provider's UI-rate zustand store (vanilla, one per provider) and the stats
// sampler that feeds it. The engine writes here only on status events, on ghost
// spawn/despawn/mode changes and every STATS_INTERVAL_MS of step time, so React
// subscribers re-render a few times per second at most, never per tick.

import { createStore, type StoreApi } from 'zustand/vanilla';
import type { NetClient, Protocol } from '../index.ts';
import type { NetcodeUiState, NetStats } from './context.ts';

/** Stats are sampled at most once per this many milliseconds of step time (4 per second). */
export const STATS_INTERVAL_MS = 250;
/** Samples kept for <NetGraph>: 40 × 250 ms = the last 10 seconds. */
export const STATS_HISTORY_SAMPLES = 40;

/** One stats sample with the step time (ms) it was taken at. */
export interface NetStatsSample extends NetStats {
  at: number;
}

/** The provider's store state: the context contract's UI state plus what this provider adds. */
export interface NetcodeStoreState extends NetcodeUiState {
  /** True after a reconnect the server could not resume (the world was cleared; join again). */
  resumeFailed: boolean;
  /** The last non-fatal engine error (e.g. a malformed snapshot that was dropped), or a failed `init`. */
  lastError: string | undefined;
  /** Stats samples, oldest first, at most STATS_HISTORY_SAMPLES (a new array per sample). */
  statsHistory: readonly NetStatsSample[];
}

/** A vanilla store that also counts its live subscriptions (leak tests read it). */
export type NetcodeStore = StoreApi<NetcodeStoreState> & { readonly subscriberCount: number };

export const ZERO_STATS: NetStats = Object.freeze({
  rttMs: 0, jitterMs: 0, bytesInPerSec: 0, bytesOutPerSec: 0, correctionsPerSec: 0, resimulatedTicksPerSec: 0,
  lateInputsPerSec: 0, missingInputsPerSec: 0,
});

/** A fresh store for one provider; `loading` until the engine calls `connect()`. */
export function createNetcodeStore(): NetcodeStore {
  const api = createStore<NetcodeStoreState>()(() => ({
    status: 'loading',
    networkId: undefined,
    closeReason: undefined,
    closeCode: undefined,
    joinError: undefined,
    ghostsVersion: 0,
    stats: ZERO_STATS,
    resumeFailed: false,
    lastError: undefined,
    statsHistory: [],
  }));
  let subscribers = 0;
  const subscribe = api.subscribe;
  api.subscribe = (listener) => {
    const off = subscribe(listener);
    subscribers++;
    let on = true;
    return () => {
      if (!on) return;
      on = false;
      subscribers--;
      off();
    };
  };
  return Object.defineProperty(api, 'subscriberCount', { get: () => subscribers, enumerable: true }) as NetcodeStore;
}

/**
 * Turns the client's running counters (traffic, prediction stats, the server's reports on
 * our inputs) into per-second
 * rates over each STATS_INTERVAL_MS window. `sample(now)` returns undefined until a
 * window has passed since the previous sample.
 */
export class StatsSampler {
  private lastAt: number | undefined;
  private bytesIn = 0;
  private bytesOut = 0;
  private corrections = 0;
  private resimulated = 0;
  private late = 0;
  private missing = 0;

  constructor(private readonly client: NetClient<Protocol>) {}

  sample(now: number): NetStatsSample | undefined {
    const c = this.client;
    const corrections = c.prediction?.stats.corrections ?? 0;
    const resimulated = c.prediction?.stats.resimulatedTicks ?? 0;
    if (this.lastAt !== undefined && now - this.lastAt < STATS_INTERVAL_MS) return undefined;
    const seconds = this.lastAt === undefined ? 0 : (now - this.lastAt) / 1000;
    const rate = (delta: number): number => (seconds > 0 ? delta / seconds : 0);
    const out: NetStatsSample = {
      at: now,
      rttMs: c.clock.rttMs,
      jitterMs: c.clock.jitterMs,
      bytesInPerSec: rate(c.traffic.bytesIn - this.bytesIn),
      bytesOutPerSec: rate(c.traffic.bytesOut - this.bytesOut),
      correctionsPerSec: rate(corrections - this.corrections),
      resimulatedTicksPerSec: rate(resimulated - this.resimulated),
      // A new session resets the server's counts: a drop below the last reading restarts the window.
      lateInputsPerSec: rate(Math.max(0, c.inputReports.late - this.late)),
      missingInputsPerSec: rate(Math.max(0, c.inputReports.missing - this.missing)),
    };
    const path = c.transportStats?.unreliablePath;
    if (path !== undefined) out.unreliablePath = path;
    this.lastAt = now;
    this.bytesIn = c.traffic.bytesIn;
    this.bytesOut = c.traffic.bytesOut;
    this.corrections = corrections;
    this.resimulated = resimulated;
    this.late = c.inputReports.late;
    this.missing = c.inputReports.missing;
    return out;
  }
}

/** Append `sample` to `history`, keeping the newest STATS_HISTORY_SAMPLES (a new array). */
export function appendSample(history: readonly NetStatsSample[], sample: NetStatsSample): readonly NetStatsSample[] {
  const start = Math.max(0, history.length + 1 - STATS_HISTORY_SAMPLES);
  const next = history.slice(start);
  next.push(sample);
  return next;
}
