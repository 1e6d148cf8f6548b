// useRpc: handle a server → client RPC while the component is mounted. The
// handler is registered once per name with the client engine and always calls
// the latest handler passed in, so an inline arrow does not re-subscribe.

import { useEffect } from 'react';
import type { Protocol } from '../index.ts';
import { useNetcodeContext } from './context.ts';
import { checkRpc } from './checks.ts';
import type { ClientRpcName, RpcPayloadOf } from './types.ts';
import { useLatest } from './use-latest.ts';

/**
 * Call `handler(payload)` for every `name` RPC the server sends while this component is
 * mounted. Payloads are validated against the protocol before any handler runs; a
 * throwing handler is logged and does not stop the others.
 *
 * With the typed hooks from `createNetcode`, `name` must be a `rpc.toClient` RPC of the
 * protocol and the payload is typed from its schema.
 *
 * @example
 * useRpc('chat', ({ from, text }) => setLines((l) => [...l, `${from}: ${text}`]));
 *
 * @throws `react-netcode: useRpc must be used inside <NetcodeProvider> …` outside a provider;
 *   `react-netcode: useRpc("x"): unknown RPC …` or a direction error for a wrong name.
 */
export function useRpc<P extends Protocol = Protocol, K extends ClientRpcName<P> = ClientRpcName<P>>(
  name: K,
  handler: (payload: RpcPayloadOf<P, K>) => void,
): void {
  const { client } = useNetcodeContext<P>('useRpc');
  checkRpc(client.protocol, name, 'toClient', 'useRpc');
  const latest = useLatest(handler);
  useEffect(() => client.onRpc(name as never, (payload: unknown) => latest.current(payload as RpcPayloadOf<P, K>)), [client, name, latest]);
}
