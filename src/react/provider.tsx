// <NetcodeProvider>: creates the client engine in an effect (so React StrictMode's
// mount → unmount → mount opens one connection: the engine connects only after
// `init` resolves, asynchronously, and the first mount is gone by then), provides
// it through NetcodeContext, and tears everything down on unmount.

import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { JoinPayload, Protocol, SystemDef } from '../index.ts';
import { NetcodeContext, type NetcodeContextValue } from './context.ts';
import { NetcodeEngine, type NetcodeClientOptions, type TransportSource } from './engine.ts';
import { defaultFrameClock, type FrameClock } from './frame-clock.ts';

/** Props of the provider returned by `createNetcode(protocol, systems)`. */
export interface TypedNetcodeProviderProps<P extends Protocol> {
  /**
   * A client transport, or a factory called once when the engine connects (preferred:
   * nothing is built for a mount that StrictMode throws away). Read at mount only;
   * to connect elsewhere, remount the provider with a new `key`.
   */
  transport: TransportSource;
  /**
   * Join payload: the provider joins with it once connected (and again after a failed resume). Omit to join by hand (useConnection().join).
   */
  join?: JoinPayload<P>;
  /** Options passed to the client engine (prediction, clock sync, reconnect, log, onInput …). Read at mount only. */
  clientOptions?: NetcodeClientOptions<P>;
  /** Async setup to finish before connecting (e.g. Rapier's WASM); status is `loading` meanwhile. Called once per mount. */
  init?: () => Promise<void>;
  /** Time and frame scheduler (default performance.now + requestAnimationFrame); tests inject a manual clock. Read at mount only. */
  clock?: FrameClock | undefined;
  /** Pause the client while the page is hidden (`visibilitychange` → client.setPaused). Default true. Read at mount only. */
  pauseWhenHidden?: boolean;
  /**
   * Leave the game at once when the page is closed (`pagehide`): the server ends the connection and
   * other players see this one go now, instead of after the resume grace. A page kept in the
   * back/forward cache is not left (it resumes if it comes back in time). Default true. Read at mount only.
   */
  leaveOnPageHide?: boolean;
  /** Rendered until the engine exists (the first commit, before effects have run). Default nothing. */
  fallback?: ReactNode;
  children?: ReactNode;
}

/** Props of the plain provider: the typed props plus the protocol and systems. */
export interface NetcodeProviderProps<P extends Protocol = Protocol> extends TypedNetcodeProviderProps<P> {
  protocol: P;
  /** The game's systems: shared ones run in prediction, client ones each frame. Read at mount only. */
  systems?: readonly SystemDef<P>[];
}

/**
 * Owns one client engine for its subtree: the connection, the network clock, the predicted
 * world and a UI-rate zustand store. Steps the engine with its own frame loop unless a
 * `<NetcodeFrame/>` inside a Canvas claims the frame. Prefer the typed provider from
 * `createNetcode(protocol, systems)`; this plain one takes `protocol` and `systems` as props.
 */
export function NetcodeProvider<P extends Protocol>(props: NetcodeProviderProps<P>): ReactNode {
  const { join, fallback = null, children } = props;
  const [engine, setEngine] = useState<NetcodeEngine<P> | null>(null);
  // StrictMode re-runs the effect on the same instance: share one init() between the runs.
  const ready = useRef<Promise<void> | null>(null);

  useEffect(() => {
    const init = props.init;
    ready.current ??= init ? Promise.resolve().then(init) : Promise.resolve();
    const next = new NetcodeEngine<P>({
      protocol: props.protocol,
      systems: props.systems ?? [],
      transport: props.transport,
      clientOptions: props.clientOptions,
      clock: props.clock ?? defaultFrameClock(),
      pauseWhenHidden: props.pauseWhenHidden ?? true,
      leaveOnPageHide: props.leaveOnPageHide ?? true,
      join: props.join,
      ready: ready.current,
    });
    next.start();
    setEngine(next);
    return () => next.dispose();
    // Mount-only by design: transport, protocol, options and clock are read once (see the props' docs).
  }, []);

  useEffect(() => {
    engine?.setJoinPayload(join);
  }, [engine, join]);

  if (engine === null || engine.isDisposed) return fallback;
  return <NetcodeContext.Provider value={engine as unknown as NetcodeContextValue}>{children}</NetcodeContext.Provider>;
}
