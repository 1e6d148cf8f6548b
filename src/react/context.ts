// The context a <NetcodeProvider> gives its subtree: the client engine, the UI-rate
// zustand store (one per provider, no module singletons) and the frame driver that
// decides who steps the engine (the provider's own loop, or <NetcodeFrame/> in a Canvas).

import { createContext, useContext } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { ClientState, CloseCode, NetClient, Protocol } from '../index.ts';
import { NetcodeError } from '../core/errors.ts';

/** UI-rate state (changes a few times per second at most). */
export interface NetcodeUiState {
  status: ClientState['status'] | 'loading';
  networkId: number | undefined;
  closeReason: string | undefined;
  /** `closeReason` as a code (CloseCode), or `'init-failed'`: the provider's `init` rejected (fix it, remount the provider). */
  closeCode: CloseCode | 'init-failed' | undefined;
  joinError: string | undefined;
  /** Bumped on ghost spawn/despawn/mode change: lists re-render only then. */
  ghostsVersion: number;
  /** RTT, jitter, bandwidth, corrections: refreshed at most 4 times per second. */
  stats: NetStats;
}

export interface NetStats {
  rttMs: number;
  jitterMs: number;
  bytesInPerSec: number;
  bytesOutPerSec: number;
  correctionsPerSec: number;
  resimulatedTicksPerSec: number;
  /** Our inputs the server received after their tick had run, per second (from its Pongs). */
  lateInputsPerSec: number;
  /** Ticks the server ran without our input, per second: lost or late inputs (a starved or stalled page, a lossy link). */
  missingInputsPerSec: number;
  /** Which path carries the unreliable channel, when the transport says (WebRTC transport: 'webrtc', or 'socket.io' after a fallback). */
  unreliablePath?: 'webrtc' | 'socket.io';
}

/** Who steps the engine each frame. */
export interface FrameDriver {
  /** Step the engine to monotonic time `now` (ms): receive, predict, interpolate, render values. */
  step(now: number): void;
  /**
   * A component inside the Canvas (NetcodeFrame) takes over stepping; returns the release function. The provider's own loop pauses
   * meanwhile.
   */
  claim(): () => void;
  /** Subscribe to "after each step" (for ref-writing hooks outside R3F); returns unsubscribe. */
  onStep(listener: (now: number) => void): () => void;
}

export interface NetcodeContextValue<P extends Protocol = Protocol> {
  client: NetClient<P>;
  store: StoreApi<NetcodeUiState>;
  frame: FrameDriver;
}

export const NetcodeContext = createContext<NetcodeContextValue | null>(null);

/** The provider's context; throws the documented error outside a <NetcodeProvider>. */
export function useNetcodeContext<P extends Protocol = Protocol>(hook: string): NetcodeContextValue<P> {
  const value = useContext(NetcodeContext);
  if (!value) throw new NetcodeError('usage', `react-netcode: ${hook} must be used inside <NetcodeProvider>; wrap your app (or the Canvas) in the provider returned by createNetcode(protocol).`);
  return value as unknown as NetcodeContextValue<P>;
}
