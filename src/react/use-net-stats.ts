// useNetStats: network figures for a HUD — RTT, jitter, bytes per second each way,
// visual corrections and resimulated ticks per second. The provider samples them
// from the client's counters every STATS_INTERVAL_MS (250 ms) of step time, so a
// component using this hook re-renders at most 4 times per second.

import { useStore } from 'zustand';
import { useNetcodeContext, type NetcodeUiState, type NetStats } from './context.ts';

const pick = (s: NetcodeUiState): NetStats => s.stats;

/**
 * The latest stats sample (a new object at most every 250 ms of step time):
 *
 * | field | source |
 * | --- | --- |
 * | `rttMs`, `jitterMs` | clock sync (`client.clock`), from ping/pong |
 * | `bytesInPerSec`, `bytesOutPerSec` | `client.traffic` byte counters over the last window |
 * | `correctionsPerSec` | `client.prediction.stats.corrections`: mispredictions shown as a smoothed or snapped visual correction |
 * | `resimulatedTicksPerSec` | `client.prediction.stats.resimulatedTicks`: ticks re-run by rollbacks |
 *
 * Rates are averages over the window between two samples (0 in the first sample).
 *
 * @example
 * const { rttMs, bytesInPerSec } = useNetStats();
 * return <span>{rttMs.toFixed(0)} ms · {(bytesInPerSec / 1024).toFixed(1)} KB/s</span>;
 *
 * @throws `react-netcode: useNetStats must be used inside <NetcodeProvider> …` outside a provider.
 */
export function useNetStats(): NetStats {
  const { store } = useNetcodeContext('useNetStats');
  return useStore(store, pick);
}
