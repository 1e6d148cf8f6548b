// Public entry `react-netcode/react`: the provider, the typed factory, the hooks
// (one per file), input bindings and the <NetGraph> overlay. The context contract
// (context.ts) is exported for the R3F layer and for custom hooks; the engine behind
// it (NetcodeEngine) only as a type.

export { NetcodeContext, useNetcodeContext } from './context.ts';
export type { FrameDriver, NetcodeContextValue, NetcodeUiState, NetStats } from './context.ts';
export { createNetcode } from './create-netcode.tsx';
export type { Netcode } from './create-netcode.tsx';
export type { NetcodeEngine, EngineOptions, InputSampler, NetcodeClientOptions, TransportSource } from './engine.ts';
export type { FrameClock } from './frame-clock.ts';
export { holdKey, keyboardAxes, pressOnKey, pressOnPointer } from './input-bindings.ts';
export type { AxisKeys, BoundInput, InputBinding, KeyboardAxesOptions, PressOptions } from './input-bindings.ts';
export { NetGraph } from './net-graph.tsx';
export type { NetGraphProps } from './net-graph.tsx';
export { NetcodeProvider } from './provider.tsx';
export type { NetcodeProviderProps, TypedNetcodeProviderProps } from './provider.tsx';
export type { NetcodeStore, NetcodeStoreState, NetStatsSample } from './store.ts';
export type { AnyGhost, BoolInputKey, ClientRpcName, Connection, GhostState, LiveRef, NumberInputKey, RpcPayloadOf, ServerRpcName, Vec2InputKey } from './types.ts';
export { useConnection } from './use-connection.ts';
export { useGhost } from './use-ghost.ts';
export { useGhosts } from './use-ghosts.ts';
export { useInput } from './use-input.ts';
export type { InputSource, UseInputOptions } from './use-input.ts';
export { useLocalGhost } from './use-local-ghost.ts';
export { useNetStats } from './use-net-stats.ts';
export { useNetcode } from './use-netcode.ts';
export { useNetworkTime } from './use-network-time.ts';
export { usePredictedSpawn } from './use-predicted-spawn.ts';
export type { PredictedSpawnState, UsePredictedSpawnOptions } from './use-predicted-spawn.ts';
export { useRpc } from './use-rpc.ts';
export { useSendRpc } from './use-send-rpc.ts';
export { MatchmakerContext, MatchmakerProvider } from './matchmaker-context.tsx';
export type { MatchmakerProviderProps } from './matchmaker-context.tsx';
export { useMatchmaker } from './use-matchmaker.ts';
export type { MatchmakerState } from './use-matchmaker.ts';
export { useLobby } from './use-lobby.ts';
export type { LobbyState } from './use-lobby.ts';
