// useLocalGhost: the ghost of a type owned by this client's connection (the
// local player), for UI that follows "my" character. Recomputed only when ghosts
// spawn or despawn or the networkId changes, so it re-renders at UI rate only.

import { useCallback, useRef } from 'react';
import { useStore } from 'zustand';
import type { Ghost, GhostNames, Protocol } from '../index.ts';
import { useNetcodeContext, type NetcodeUiState } from './context.ts';
import { checkGhostType } from './checks.ts';

/**
 * The first ghost of `type` (in spawn order) owned by this client (`ghost.isLocal`), or
 * undefined before it spawns and after it despawns. Re-renders only when that answer
 * changes; read its live components in frame callbacks.
 *
 * @example
 * const me = useLocalGhost('player');
 * return me ? <Hud ghostId={me.id} /> : <p>Spawning…</p>;
 *
 * @throws `react-netcode: useLocalGhost must be used inside <NetcodeProvider> …` outside a
 *   provider; `react-netcode: useLocalGhost("x"): unknown ghost type …` for an undeclared type.
 */
export function useLocalGhost<P extends Protocol = Protocol, K extends GhostNames<P> = GhostNames<P>>(type: K): Ghost<P, K> | undefined {
  const { client, store } = useNetcodeContext<P>('useLocalGhost');
  checkGhostType(client.protocol, type, 'useLocalGhost');
  const cache = useRef<{ key: string; ghost: Ghost<P, K> | undefined }>({ key: '', ghost: undefined });
  const select = useCallback(
    (s: NetcodeUiState): Ghost<P, K> | undefined => {
      const key = `${type}/${s.ghostsVersion}/${s.networkId ?? 0}`;
      if (cache.current.key === key) return cache.current.ghost;
      let found: Ghost<P, K> | undefined;
      for (const g of client.world.query(type)) {
        if (g.isLocal) {
          found = g;
          break;
        }
      }
      cache.current = { key, ghost: found };
      return found;
    },
    [client, type],
  );
  return useStore(store, select);
}
