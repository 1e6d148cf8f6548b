// usePredictedSpawn: installs a spawn classifier for one ghost type while mounted
// (how a ghost arriving in a snapshot is paired with this client's predicted spawn
// of it) and lists the predicted spawns of that type still awaiting their server
// twin, at UI rate. Spawning itself happens in shared systems through ctx.spawn.

import { useCallback, useEffect, useRef } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { Ghost, GhostNames, Protocol, SpawnClassifier } from '../index.ts';
import { typed } from '../core/typed-ghosts.ts';
import { checkGhostType, sameList } from './checks.ts';
import { useNetcodeContext, type NetcodeUiState } from './context.ts';
import { useLatest } from './use-latest.ts';

export interface UsePredictedSpawnOptions {
  /**
   * Pairs a new snapshot ghost with one of our predicted spawns of this type: return the
   * spawn to adopt, `'notOurs'`, or undefined for the default (same owner, spawn ticks
   * less than 5 apart). E.g. `spawnIdClassifier()` to match a replicated spawnId field.
   * Omit to keep the protocol's classifier (or the default).
   */
  classify?: SpawnClassifier;
}

export interface PredictedSpawnState<P extends Protocol, K extends GhostNames<P>> {
  /** Predicted spawns of this type awaiting their server twin (re-renders on spawn, match, rejection). */
  readonly waiting: readonly Ghost<P, K>[];
  /** Since the client was created: spawns predicted, adopted by their twin, and destroyed unmatched (UI rate). */
  readonly stats: { readonly predicted: number; readonly matched: number; readonly rejected: number };
}

const EMPTY: readonly never[] = Object.freeze([]);

/**
 * Predicted spawning for ghost type `type`. A shared system spawns with `ctx.spawn`; on
 * the client that creates a predicted ghost at once (rendered by useGhosts like any
 * other, `ghost.origin === 'predicted'`). When the server's ghost arrives it is
 * classified: a match adopts the predicted ghost (same object and `handle`, so the React
 * key and the mesh stay; `origin` becomes 'matched'); an unmatched prediction is
 * destroyed after a grace period. This hook installs `classify` for the type while
 * mounted (the previous classifier is restored on unmount) and reports what is waiting.
 *
 * @example
 * const { waiting } = usePredictedSpawn('grenade', { classify: spawnIdClassifier() });
 *
 * @throws `react-netcode: usePredictedSpawn must be used inside <NetcodeProvider> …` outside
 *   a provider; `react-netcode: usePredictedSpawn("x"): unknown ghost type …` for an undeclared type.
 */
export function usePredictedSpawn<P extends Protocol = Protocol, K extends GhostNames<P> = GhostNames<P>>(
  type: K,
  options: UsePredictedSpawnOptions = {},
): PredictedSpawnState<P, K> {
  const { client, store } = useNetcodeContext<P>('usePredictedSpawn');
  checkGhostType(client.protocol, type, 'usePredictedSpawn');
  const spawns = client.spawns;
  const latest = useLatest(options.classify);
  const hasClassifier = options.classify !== undefined;

  useEffect(() => {
    if (!hasClassifier) return undefined;
    const classify: SpawnClassifier = (candidate, predicted, localNetworkId) => latest.current?.(candidate, predicted, localNetworkId);
    const previous = spawns.setClassifier(type, classify);
    return () => {
      spawns.setClassifier(type, previous);
    };
  }, [spawns, type, hasClassifier, latest]);

  const cache = useRef<{ type: string; version: number; list: readonly Ghost<P, K>[] }>({ type, version: -1, list: EMPTY });
  const selectWaiting = useCallback(
    (s: NetcodeUiState): readonly Ghost<P, K>[] => {
      if (cache.current.type === type && cache.current.version === s.ghostsVersion) return cache.current.list;
      const next = spawns.waiting.filter((w) => w.type === type && w.ghost.alive).map((w) => typed<P, K>(w.ghost));
      const list = sameList(next, cache.current.list) ? cache.current.list : next.length === 0 ? EMPTY : next;
      cache.current = { type, version: s.ghostsVersion, list };
      return list;
    },
    [spawns, type],
  );
  const waiting = useStore(store, selectWaiting);
  const stats = useStore(
    store,
    useShallow(() => ({ predicted: spawns.stats.predicted, matched: spawns.stats.matched, rejected: spawns.stats.rejected })),
  );
  return { waiting, stats };
}
