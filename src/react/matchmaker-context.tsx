// <MatchmakerProvider>: gives its subtree a Matchmaker — the HTTP client of a room server
// (createMatchmakerClient) or any other implementation — for useMatchmaker and useLobby.
// Apart from NetcodeProvider: a lobby matchmakes before any netcode connection exists.

import { createContext, createElement, useContext, type ReactNode } from 'react';
import { NetcodeError } from '../core/errors.ts';
import type { Matchmaker } from '../rooms/matchmaker.ts';

export const MatchmakerContext = createContext<Matchmaker | null>(null);

export interface MatchmakerProviderProps {
  /** E.g. `createMatchmakerClient('https://game.example/matchmake')`, created once (module scope or useMemo). */
  matchmaker: Matchmaker;
  children?: ReactNode;
}

export function MatchmakerProvider({ matchmaker, children }: MatchmakerProviderProps): ReactNode {
  return createElement(MatchmakerContext.Provider, { value: matchmaker }, children);
}

/** The nearest MatchmakerProvider's matchmaker. */
export function useMatchmakerContext(): Matchmaker {
  const mm = useContext(MatchmakerContext);
  if (mm === null) throw new NetcodeError('usage', 'react-netcode: useMatchmaker/useLobby need a <MatchmakerProvider matchmaker={createMatchmakerClient(url)}> above them.');
  return mm;
}
