// createNetcode(protocol, systems): the typed entry point of react-netcode/react.
// It returns a provider bound to the protocol and the same hooks as the plain
// exports, re-typed so that ghost types, RPC names and payloads, the join payload
// and input fields are checked by the compiler. No runtime cost: same functions.

import type { ReactNode } from 'react';
import type { Ghost, GhostNames, NetworkTime, Protocol, RpcNames, RpcPayload, SystemDef } from '../index.ts';
import type { NetcodeContextValue, NetStats } from './context.ts';
import { holdKey, keyboardAxes, pressOnKey, pressOnPointer, type AxisKeys, type InputBinding, type PressOptions } from './input-bindings.ts';
import { NetcodeProvider, type TypedNetcodeProviderProps } from './provider.tsx';
import type { AnyGhost, BoolInputKey, Connection, GhostState, LiveRef, NumberInputKey, Vec2InputKey } from './types.ts';
import { useConnection } from './use-connection.ts';
import { useGhost } from './use-ghost.ts';
import { useGhosts } from './use-ghosts.ts';
import { useInput, type InputSource, type UseInputOptions } from './use-input.ts';
import { useLocalGhost } from './use-local-ghost.ts';
import { useNetStats } from './use-net-stats.ts';
import { useNetcode } from './use-netcode.ts';
import { useNetworkTime } from './use-network-time.ts';
import { usePredictedSpawn, type PredictedSpawnState, type UsePredictedSpawnOptions } from './use-predicted-spawn.ts';
import { useRpc } from './use-rpc.ts';
import { useSendRpc } from './use-send-rpc.ts';

/** The provider and hooks for one protocol (see each hook's plain export for its documentation). */
export interface Netcode<P extends Protocol> {
  readonly protocol: P;
  readonly systems: readonly SystemDef<P>[];
  /** `<NetcodeProvider transport join? clientOptions? init? clock? pauseWhenHidden?>` for this protocol. */
  readonly NetcodeProvider: (props: TypedNetcodeProviderProps<P>) => ReactNode;
  readonly useNetcode: () => NetcodeContextValue<P>;
  readonly useConnection: () => Connection<P>;
  readonly useNetworkTime: () => LiveRef<Readonly<NetworkTime>>;
  readonly useGhosts: <K extends GhostNames<P>>(type: K) => readonly Ghost<P, K>[];
  readonly useGhost: <T = undefined>(id: number, select?: (ghost: AnyGhost<P>) => T) => GhostState<P, T>;
  readonly useLocalGhost: <K extends GhostNames<P>>(type: K) => Ghost<P, K> | undefined;
  readonly useInput: (source: InputSource<P>, options?: UseInputOptions) => void;
  readonly usePredictedSpawn: <K extends GhostNames<P>>(type: K, options?: UsePredictedSpawnOptions) => PredictedSpawnState<P, K>;
  readonly useRpc: <K extends RpcNames<P, 'toClient'>>(name: K, handler: (payload: RpcPayload<P, K>) => void) => void;
  readonly useSendRpc: <K extends RpcNames<P, 'toServer'>>(name: K) => (payload: RpcPayload<P, K>) => void;
  readonly useNetStats: () => NetStats;
  /** keyboardAxes restricted to the protocol's vec2 input fields. */
  readonly keyboardAxes: (keys: AxisKeys, options?: { field?: Vec2InputKey<P>; normalize?: boolean }) => InputBinding;
  /** pressOnKey restricted to the protocol's numeric input fields (declare presses with field.event()). */
  readonly pressOnKey: (code: string, field: NumberInputKey<P>, options?: PressOptions) => InputBinding;
  /** holdKey restricted to the protocol's boolean input fields. */
  readonly holdKey: (code: string, field: BoolInputKey<P>) => InputBinding;
  /** pressOnPointer restricted to the protocol's numeric input fields. */
  readonly pressOnPointer: (field: NumberInputKey<P>, options?: PressOptions & { button?: number }) => InputBinding;
}

/**
 * Bind the React layer to a protocol and its systems. Call it once, at module scope, next
 * to `defineProtocol`, and use what it returns everywhere in the app:
 *
 * ```tsx
 * export const { NetcodeProvider, useGhosts, useRpc, useSendRpc, useInput, pressOnKey } = createNetcode(protocol, systems);
 *
 * <NetcodeProvider transport={() => createSocketIoClientTransport(url)} join={{ name }}>
 *   <Game />
 * </NetcodeProvider>
 * ```
 *
 * `useGhosts('typo')`, `useRpc('typo', …)`, a wrong RPC payload, a wrong join payload or
 * a binding to a missing input field fail to compile. The hooks are the plain exports;
 * the same checks run at render as `react-netcode:` errors.
 */
export function createNetcode<P extends Protocol>(protocol: P, systems: readonly SystemDef<P>[] = []): Netcode<P> {
  function BoundNetcodeProvider(props: TypedNetcodeProviderProps<P>): ReactNode {
    return <NetcodeProvider<P> {...props} protocol={protocol} systems={systems} />;
  }
  BoundNetcodeProvider.displayName = 'NetcodeProvider';
  return {
    protocol,
    systems,
    NetcodeProvider: BoundNetcodeProvider,
    useNetcode: useNetcode as Netcode<P>['useNetcode'],
    useConnection: useConnection as Netcode<P>['useConnection'],
    useNetworkTime,
    useGhosts: useGhosts as unknown as Netcode<P>['useGhosts'],
    useGhost: useGhost as unknown as Netcode<P>['useGhost'],
    useLocalGhost: useLocalGhost as unknown as Netcode<P>['useLocalGhost'],
    useInput: useInput as unknown as Netcode<P>['useInput'],
    usePredictedSpawn: usePredictedSpawn as unknown as Netcode<P>['usePredictedSpawn'],
    useRpc: useRpc as unknown as Netcode<P>['useRpc'],
    useSendRpc: useSendRpc as unknown as Netcode<P>['useSendRpc'],
    useNetStats,
    keyboardAxes,
    pressOnKey,
    holdKey,
    pressOnPointer,
  };
}
