// useLobby(type): the listed rooms of one type with their player counts, kept current by the
// matchmaker's long poll (`rooms(type, { since })`): a render per change, none while nothing
// changes. A failed poll is retried after `retryMs`; its message is in `error` meanwhile.

import { useEffect, useState } from 'react';
import type { RoomListing } from '../rooms/directory.ts';
import { useMatchmakerContext } from './matchmaker-context.tsx';

export interface LobbyState {
  rooms: readonly RoomListing[];
  /** False until the first answer. */
  loaded: boolean;
  error: string | undefined;
}

export function useLobby(type: string | undefined, options: { retryMs?: number; waitMs?: number } = {}): LobbyState {
  const matchmaker = useMatchmakerContext();
  const [state, setState] = useState<LobbyState>({ rooms: [], loaded: false, error: undefined });
  const retryMs = options.retryMs ?? 2000;
  const waitMs = options.waitMs ?? 25_000;
  useEffect(() => {
    const abort = new AbortController();
    let since: number | undefined;
    const loop = async (): Promise<void> => {
      while (!abort.signal.aborted) {
        try {
          const list = await matchmaker.rooms(type, { ...(since === undefined ? {} : { since }), waitMs, signal: abort.signal });
          if (abort.signal.aborted) return;
          if (list.version !== since) setState({ rooms: list.rooms, loaded: true, error: undefined });
          since = list.version;
        } catch (error) {
          if (abort.signal.aborted) return;
          setState((s) => ({ ...s, error: error instanceof Error ? error.message : String(error) }));
          await new Promise((r) => setTimeout(r, retryMs));
        }
      }
    };
    void loop();
    return () => abort.abort();
  }, [matchmaker, type, retryMs, waitMs]);
  return state;
}
