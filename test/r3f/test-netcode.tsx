// A minimal stand-in for <NetcodeProvider> (src/react is written in parallel): it supplies
// NetcodeContext from src/react/context.ts directly, with a loopback server driven by a
// Stepper on a virtual clock and a frame driver that records every step and claim. Its
// "own loop" steps the client until a <NetcodeFrame/> in the Canvas claims the driver.

import { act, type ReactNode } from 'react';
import { createStore } from 'zustand/vanilla';
import type { ReactThreeTest } from '@react-three/test-renderer';
import { createClient, type JoinPayload, type Logger, type NetClient, type Protocol, type SystemDef } from '../../src/index.ts';
import { NetcodeContext, type FrameDriver, type NetcodeContextValue, type NetcodeUiState } from '../../src/react/context.ts';
import { createStepper, type Stepper } from '../../src/testing/index.ts';

type Renderer = ReactThreeTest.Renderer;

const quiet: Logger = () => {};

/** 60 Hz display: one render frame, in ms. */
export const FRAME_MS = 1000 / 60;

export interface TestNetcode<P extends Protocol> {
  readonly stepper: Stepper<P>;
  readonly client: NetClient<P>;
  readonly value: NetcodeContextValue<P>;
  /** Every `now` passed to frame.step, in order. */
  readonly steps: number[];
  /** Claims currently held (0 or 1). */
  readonly claims: () => number;
  readonly Provider: (props: { children?: ReactNode }) => ReactNode;
  /** One frame of the provider's own loop: the server and network advance by `ms`, then the client is stepped. */
  ownFrame(ms?: number): void;
  /** Run the own loop until `predicate()` holds (at most `maxMs` of virtual time). */
  ownUntil(predicate: () => boolean, what: string, maxMs?: number): void;
  /** Connect, join with `payload` and run the own loop until in game with prediction running, then `settleMs` more. */
  joinAndSettle(payload: JoinPayload<P>, settleMs?: number): void;
  /** One R3F frame: the server and network advance by `ms`, then the test renderer runs its frame callbacks once. */
  canvasFrame(renderer: Renderer, ms?: number): Promise<void>;
}

export function createTestNetcode<P extends Protocol>(protocol: P, systems: readonly SystemDef<P>[] = []): TestNetcode<P> {
  const stepper = createStepper({ protocol, systems, log: quiet });
  const client = createClient({ protocol, transport: stepper.network.createClient(), systems, log: quiet });
  const store = createStore<NetcodeUiState>(() => ({
    status: 'loading',
    networkId: undefined,
    closeReason: undefined,
    closeCode: undefined,
    joinError: undefined,
    ghostsVersion: 0,
    stats: { rttMs: 0, jitterMs: 0, bytesInPerSec: 0, bytesOutPerSec: 0, correctionsPerSec: 0, resimulatedTicksPerSec: 0, lateInputsPerSec: 0, missingInputsPerSec: 0 },
  }));
  const bump = (): void => store.setState((s) => ({ ghostsVersion: s.ghostsVersion + 1 }));
  client.ghosts.events.on('spawn', bump);
  client.ghosts.events.on('despawn', bump);
  client.ghosts.events.on('mode', bump);

  const steps: number[] = [];
  const listeners = new Set<(now: number) => void>();
  let claims = 0;
  const frame: FrameDriver = {
    step(now) {
      client.update(now);
      steps.push(now);
      for (const l of listeners) l(now);
    },
    claim() {
      if (claims > 0) throw new Error('react-netcode: the frame driver is already claimed; mount one <NetcodeFrame/>.');
      claims++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        claims--;
      };
    },
    onStep(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const value: NetcodeContextValue<P> = { client, store, frame };
  const context = value as unknown as NetcodeContextValue;
  const Provider = ({ children }: { children?: ReactNode }): ReactNode => <NetcodeContext.Provider value={context}>{children}</NetcodeContext.Provider>;

  const ownFrame = (ms = FRAME_MS): void => {
    if (claims > 0) throw new Error('test: the own loop must not run while <NetcodeFrame/> holds the driver');
    stepper.advance(ms);
    frame.step(stepper.now);
  };
  const ownUntil = (predicate: () => boolean, what: string, maxMs = 10_000): void => {
    const start = stepper.now;
    while (!predicate()) {
      if (stepper.now - start > maxMs) throw new Error(`test: timed out waiting for ${what}`);
      ownFrame();
    }
  };
  return {
    stepper,
    client,
    value,
    steps,
    claims: () => claims,
    Provider,
    ownFrame,
    ownUntil,
    joinAndSettle(payload, settleMs = 1000) {
      client.connect();
      ownUntil(() => client.status === 'connected', 'the handshake');
      client.join(payload);
      ownUntil(() => client.status === 'in-game' && client.prediction?.lastTick !== undefined, 'prediction to start');
      const until = stepper.now + settleMs;
      ownUntil(() => stepper.now >= until, 'the clock to settle');
    },
    async canvasFrame(renderer, ms = FRAME_MS) {
      stepper.advance(ms);
      // act(): a spawn or despawn in this step updates the store, and React re-renders in here.
      await act(async () => {
        await renderer.advanceFrames(1, ms / 1000);
      });
    },
  };
}
