// Internal: checks a ghost type name against the protocol at the hook call, so a
// typo (possible with the plain hooks, or with casts) fails at once with the list
// of known types instead of rendering an empty list forever.

import type { Protocol } from '../index.ts';

/**
 * Throw a `react-netcode:` usage error when `type` is not a ghost type of `protocol`.
 * @param hook the public hook's name, for the message
 */
export function checkGhostType(protocol: Protocol, type: string, hook: string): void {
  if (protocol.ghostByName.has(type)) return;
  const known = protocol.ghostList.map((g) => `"${g.name}"`).join(', ') || '(none)';
  throw new Error(`react-netcode: ${hook}("${type}"): unknown ghost type; declare it in defineProtocol({ ghosts }) or fix the name (known: ${known}).`);
}

/** Same elements in the same order (identity). */
export function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
