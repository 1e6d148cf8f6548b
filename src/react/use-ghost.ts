// useGhost: one ghost by server id — a live ref for frame callbacks, the ghost
// object for conditional rendering (changes only on spawn/despawn), and an
// optional selector evaluated at UI rate for text such as health or score.

import { useMemo, useRef } from 'react';
import { useStore } from 'zustand';
import { shallow } from 'zustand/shallow';
import type { Protocol } from '../index.ts';
import { useNetcodeContext } from './context.ts';
import type { AnyGhost, GhostState, LiveRef } from './types.ts';

/**
 * One ghost by server id.
 *
 * - `ref.current` is the live ghost (a lookup per read): its components change every
 *   tick, so read them in `useFrame` / `frame.onStep` and write transforms to refs.
 * - `ghost` is the ghost as of the last UI update; the component re-renders when it
 *   spawns or despawns (undefined before and after).
 * - `selected` is `select(ghost)` evaluated at UI rate — on each stats sample (at most
 *   4 per second) and on spawn/despawn — and re-renders only when the result changes
 *   (shallow compare, so `g => ({ ...g.components.position })` is fine).
 *
 * @example
 * const { ghost, selected: hp } = useGhost(id, (g) => (g.type === 'player' ? g.components.hp : 0));
 * if (!ghost) return null;
 * return <HealthBar value={hp} />;
 *
 * @throws `react-netcode: useGhost must be used inside <NetcodeProvider> …` outside a provider.
 */
export function useGhost<P extends Protocol = Protocol, T = undefined>(id: number, select?: (ghost: AnyGhost<P>) => T): GhostState<P, T> {
  const { client, store } = useNetcodeContext<P>('useGhost');
  const world = client.world;
  const ref = useMemo(
    (): LiveRef<AnyGhost<P> | undefined> => ({
      get current() {
        return world.get(id);
      },
    }),
    [world, id],
  );
  // Re-evaluated on every store change (status, spawn/despawn, stats); re-renders only when the object changes.
  const ghost = useStore(store, () => world.get(id));
  const last = useRef<{ value: T | undefined }>({ value: undefined });
  const selected = useStore(store, () => {
    const g = world.get(id);
    const value = g !== undefined && select !== undefined ? select(g) : undefined;
    if (shallow(value, last.current.value)) return last.current.value;
    last.current = { value };
    return value;
  });
  return useMemo(() => ({ ref, ghost, selected }), [ref, ghost, selected]);
}
