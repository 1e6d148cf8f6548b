// useMatchmaker(): the matchmaker's calls as React state — quick play, create (private), join by
// code — with the seat they got, whether one is under way, and the last error's message
// (MatchmakingError messages say what to do). One request at a time; `reset` forgets the seat.

import { useCallback, useRef, useState } from 'react';
import type { CreateOptions, JoinOrCreateOptions, Matchmaker, RequestOptions } from '../rooms/matchmaker.ts';
import type { Seat } from '../rooms/seat.ts';
import { useMatchmakerContext } from './matchmaker-context.tsx';

export interface MatchmakerState {
  /** The seat of the last successful call (connect with seatedTransport(transport, seat)). */
  seat: Seat | undefined;
  pending: boolean;
  error: string | undefined;
  joinOrCreate(type: string, options?: JoinOrCreateOptions): Promise<Seat | undefined>;
  create(type: string, options?: CreateOptions): Promise<Seat | undefined>;
  join(roomId: string, options?: RequestOptions): Promise<Seat | undefined>;
  joinByCode(code: string, options?: RequestOptions): Promise<Seat | undefined>;
  reset(): void;
  /** The matchmaker itself, for anything else (rooms). */
  matchmaker: Matchmaker;
}

export function useMatchmaker(): MatchmakerState {
  const matchmaker = useMatchmakerContext();
  type Current = { seat: Seat | undefined; pending: boolean; error: string | undefined };
  const [state, setState] = useState<Current>({ seat: undefined, pending: false, error: undefined });
  const busy = useRef(false);
  const run = useCallback(async (call: () => Promise<Seat>): Promise<Seat | undefined> => {
    if (busy.current) return undefined;
    busy.current = true;
    setState((s) => ({ ...s, pending: true, error: undefined }));
    try {
      const seat = await call();
      setState({ seat, pending: false, error: undefined });
      return seat;
    } catch (error) {
      setState((s) => ({ ...s, pending: false, error: error instanceof Error ? error.message : String(error) }));
      return undefined;
    } finally {
      busy.current = false;
    }
  }, []);
  return {
    ...state,
    matchmaker,
    joinOrCreate: useCallback((type, options) => run(() => matchmaker.joinOrCreate(type, options)), [matchmaker, run]),
    create: useCallback((type, options) => run(() => matchmaker.create(type, options)), [matchmaker, run]),
    join: useCallback((roomId, options) => run(() => matchmaker.join(roomId, options)), [matchmaker, run]),
    joinByCode: useCallback((code, options) => run(() => matchmaker.joinByCode(code, options)), [matchmaker, run]),
    reset: useCallback(() => setState({ seat: undefined, pending: false, error: undefined }), []),
  };
}
