// Internal checks run at hook calls: a ghost type or RPC name the protocol does not
// declare (possible with the plain hooks, or through casts) fails on the first
// render with the list of known names, instead of rendering nothing forever.

import type { Protocol } from '../index.ts';
import { NetcodeError } from '../core/errors.ts';

/**
 * Throw a `react-netcode:` usage error when `type` is not a ghost type of `protocol`.
 * @param hook the public hook's name, for the message
 */
export function checkGhostType(protocol: Protocol, type: string, hook: string): void {
  if (protocol.ghostByName.has(type)) return;
  const known = protocol.ghostList.map((g) => `"${g.name}"`).join(', ') || '(none)';
  throw new NetcodeError('usage', `react-netcode: ${hook}("${type}"): unknown ghost type; declare it in defineProtocol({ ghosts }) or fix the name (known: ${known}).`);
}

/** Same elements in the same order (identity). */
export function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Throw a `react-netcode:` error unless `name` is an RPC of `direction`. */
export function checkRpc(protocol: Protocol, name: string, direction: 'toClient' | 'toServer', hook: string): void {
  const entry = protocol.rpcByName.get(name);
  if (entry === undefined) {
    const known = protocol.rpcList.map((r) => `"${r.name}" (${r.def.direction})`).join(', ') || '(none)';
    throw new NetcodeError('usage', `react-netcode: ${hook}("${name}"): unknown RPC; declare it in defineProtocol({ rpcs }) or fix the name (known: ${known}).`);
  }
  if (entry.def.direction !== direction) {
    const use = direction === 'toClient' ? 'send it with useSendRpc' : 'handle it with useRpc';
    throw new NetcodeError('usage', `react-netcode: ${hook}("${name}"): the RPC is declared ${entry.def.direction}; ${use} instead.`);
  }
}
