// useConnection: the connection's UI-rate state (status, networkId, errors,
// reconnecting) and its actions (join, leave, connect). Subscribes to the status
// fields of the provider's store only, so it re-renders on status changes — a
// handful per session — and never on ticks, snapshots or stats.

import { useMemo } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { JoinPayload, Protocol } from '../index.ts';
import type { NetcodeStoreState } from './store.ts';
import type { Connection } from './types.ts';
import { useEngine } from './use-engine.ts';

const pick = (s: NetcodeStoreState) => ({
  status: s.status,
  networkId: s.networkId,
  closeReason: s.closeReason,
  closeCode: s.closeCode,
  joinError: s.joinError,
  resumeFailed: s.resumeFailed,
  error: s.lastError,
});

/**
 * The connection's state and actions. Status goes `loading` (the provider prepares the
 * engine and awaits `init`) → `connecting` → `connected` → `joining` → `in-game`, with
 * `reconnecting` after an unexpected drop (back to the previous status when resumed) and
 * `closed` at the end (`closeReason` says why, `closeCode` as a code to switch on: `'mismatch'` → reload the page).
 *
 * Re-renders only when one of the returned fields changes.
 *
 * @example
 * const { status, joinError, join } = useConnection();
 * if (status === 'connected') return <button onClick={() => join({ name })}>Play</button>;
 *
 * @throws `react-netcode: useConnection must be used inside <NetcodeProvider> …` outside a provider.
 */
export function useConnection<P extends Protocol = Protocol>(): Connection<P> {
  const engine = useEngine<P>('useConnection');
  const state = useStore(engine.store, useShallow(pick));
  const client = engine.client;
  return useMemo(
    (): Connection<P> => ({
      ...state,
      reconnecting: state.status === 'reconnecting',
      inGame: state.status === 'in-game',
      join: (payload: JoinPayload<P>) => client.join(payload),
      leave: (reason?: string) => client.leave(reason),
      connect: () => client.connect(),
    }),
    [state, client],
  );
}
