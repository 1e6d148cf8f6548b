// useGhosts: the live ghosts of one type as a list for rendering. The list is
// recomputed only when the provider bumps `ghostsVersion` (spawn, despawn, mode
// change) and kept by identity when this type's ghosts did not change, so moving
// ghosts never re-render it; key items by the stable `ghost.handle`.

import { useCallback, useRef } from 'react';
import { useStore } from 'zustand';
import type { Ghost, GhostNames, Protocol } from '../index.ts';
import { useNetcodeContext, type NetcodeUiState } from './context.ts';
import { checkGhostType, sameList } from './checks.ts';

const EMPTY: readonly never[] = Object.freeze([]);

/**
 * The ghosts of `type` currently in the client's world, in spawn order. Re-renders only
 * when a ghost of this type spawns or despawns (a batch arriving in one snapshot is one
 * re-render), never when ghosts move: render each with a component that reads its live
 * state in a frame callback (useGhost(id).ref, or the R3F components).
 *
 * Use `ghost.handle` as the React key: unique per world and never reused, even when the
 * server reuses an id or a ghost respawns after a resume.
 *
 * @example
 * const balls = useGhosts('ball');
 * return balls.map((b) => <Ball key={b.handle} id={b.id} />);
 *
 * @throws `react-netcode: useGhosts must be used inside <NetcodeProvider> …` outside a
 *   provider; `react-netcode: useGhosts("x"): unknown ghost type …` for a type the protocol
 *   does not declare.
 */
export function useGhosts<P extends Protocol = Protocol, K extends GhostNames<P> = GhostNames<P>>(type: K): readonly Ghost<P, K>[] {
  const { client, store } = useNetcodeContext<P>('useGhosts');
  checkGhostType(client.protocol, type, 'useGhosts');
  const cache = useRef<{ type: string; version: number; list: readonly Ghost<P, K>[] }>({ type, version: -1, list: EMPTY });
  const select = useCallback(
    (s: NetcodeUiState): readonly Ghost<P, K>[] => {
      const c = cache.current;
      if (c.type === type && c.version === s.ghostsVersion) return c.list;
      const next = [...client.world.query(type)];
      const list = c.type === type && sameList(next, c.list) ? c.list : next.length === 0 ? EMPTY : next;
      cache.current = { type, version: s.ghostsVersion, list };
      return list;
    },
    [client, type],
  );
  return useStore(store, select);
}
