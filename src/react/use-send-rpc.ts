// useSendRpc: a stable, typed sender for a client → server RPC. The name is
// checked against the protocol at render, so a typo fails on the first render
// instead of at the first click.

import { useCallback } from 'react';
import type { Protocol } from '../index.ts';
import { checkRpc } from './checks.ts';
import { useNetcodeContext } from './context.ts';
import type { RpcPayloadOf, ServerRpcName } from './types.ts';

/**
 * A function that sends RPC `name` to the server. Stable across renders (safe in
 * dependency lists). Sending is allowed in game only: before that, and for a payload
 * that does not match the schema, the call throws the client's `react-netcode:` error.
 *
 * With the typed hooks from `createNetcode`, `name` must be a `rpc.toServer` RPC and
 * the payload is typed from its schema.
 *
 * @example
 * const say = useSendRpc('say');
 * <button disabled={!useConnection().inGame} onClick={() => say({ text })}>Send</button>
 *
 * @throws `react-netcode: useSendRpc must be used inside <NetcodeProvider> …` outside a
 *   provider; `react-netcode: useSendRpc("x"): unknown RPC …` or a direction error for a wrong name.
 */
export function useSendRpc<P extends Protocol = Protocol, K extends ServerRpcName<P> = ServerRpcName<P>>(
  name: K,
): (payload: RpcPayloadOf<P, K>) => void {
  const { client } = useNetcodeContext<P>('useSendRpc');
  checkRpc(client.protocol, name, 'toServer', 'useSendRpc');
  return useCallback((payload: RpcPayloadOf<P, K>) => client.send(name as never, payload as never), [client, name]);
}
