// The build check of the handshake: beyond the protocol hash, client and server
// compare a fingerprint of their shared systems (names, in order) and the app's
// optional build id, so a client and a server of different builds refuse each other
// with a message that says what to do instead of silently mispredicting.

import { NetcodeError } from './errors.ts';
import { fnv1a32 } from './protocol.ts';
import type { SystemWhere } from './system.ts';
import { MAX_BUILD_ID_LENGTH } from './wire.ts';

/** What the fingerprint reads of a system. */
type NamedSystem = { readonly name: string; readonly where: SystemWhere };

/** What one side checks: its shared systems' fingerprint and its build id. */
export interface BuildIdentity {
  /** FNV-1a 32-bit hash of `systems`. */
  readonly systemsHash: number;
  /** Canonical text of the shared systems, e.g. 'shared=[move,throw,fly]'. */
  readonly systems: string;
  /** The app's build id ('' when none). */
  readonly buildId: string;
}

/**
 * The fingerprint of a systems list: the names of its `shared` systems in execution order
 * (those run on both sides: the server's tick and the client's prediction). Server-only and
 * client-only systems are not part of it (each side has its own). A change inside a
 * system's function is not detected: use `buildId` for that.
 */
export function systemsFingerprint(systems: readonly NamedSystem[]): { describe: string; hash: number } {
  const describe = `shared=[${systems.filter((s) => s.where === 'shared').map((s) => JSON.stringify(s.name)).join(',')}]`;
  return { describe, hash: fnv1a32(describe) };
}

/**
 * A client created without a `systems` option runs none (a viewer, a bot, a test probe): it has
 * nothing to mispredict with, so its systems are not compared (hash 0). Its build id still is.
 */
export const NO_SYSTEMS_HASH = 0;

/**
 * The identity of one side from its options (`systems` undefined: the option was omitted); throws
 * a usage error on a bad `buildId`.
 */
export function buildIdentity(systems: readonly NamedSystem[] | undefined, buildId: string | undefined): BuildIdentity {
  if (buildId !== undefined && (typeof buildId !== 'string' || buildId.length > MAX_BUILD_ID_LENGTH)) {
    throw new NetcodeError('usage', `react-netcode: buildId must be a string of at most ${MAX_BUILD_ID_LENGTH} characters (e.g. a git commit or a version), got ${typeof buildId === 'string' ? `${buildId.length} characters` : typeof buildId}.`);
  }
  if (systems === undefined) return { systemsHash: NO_SYSTEMS_HASH, systems: 'none', buildId: buildId ?? '' };
  const { describe, hash } = systemsFingerprint(systems);
  return { systemsHash: hash, systems: describe, buildId: buildId ?? '' };
}

const hex = (h: number): string => (h >>> 0).toString(16).padStart(8, '0');
const shown = (id: string): string => (id === '' ? '(none)' : JSON.stringify(id));

/**
 * Why a server refuses a Hello of another protocol hash or wire version (the version of react-netcode's message
 * format, WIRE_VERSION): what differs, and what to do (short enough for a Refuse reason, 256 characters).
 */
type WireIdentity = { readonly protocolHash: number; readonly wireVersion: number };

export function protocolMismatch(client: WireIdentity, server: WireIdentity): string {
  const reload = 'deploy them together and reload the page for the current client.';
  if (client.wireVersion !== server.wireVersion) {
    return `react-netcode: protocol mismatch (client protocol ${hex(client.protocolHash)} on wire format v${client.wireVersion}, server ${hex(server.protocolHash)} ` +
      `on v${server.wireVersion}: two react-netcode versions); build both with one react-netcode version, ${reload}`;
  }
  return `react-netcode: protocol mismatch (client protocol ${hex(client.protocolHash)}, server ${hex(server.protocolHash)}; both wire format v${server.wireVersion}): ` +
    `build client and server from the same defineProtocol, ${reload}`;
}

/**
 * Why a client and a server of these identities may not play together, or null when they match
 * (short enough for a Refuse reason, 256 characters, with 64-character build ids). `local` is the side that checks.
 */
export function buildMismatch(side: 'server' | 'client', local: BuildIdentity, remote: { systemsHash: number; buildId: string }): string | null {
  const client = side === 'client' ? local : remote;
  const server = side === 'server' ? local : remote;
  if (client.buildId !== server.buildId) {
    return `react-netcode: build mismatch (client build ${shown(client.buildId)}, server build ${shown(server.buildId)}); reload the page for the current client, or deploy client and server from one build (buildId option).`;
  }
  if (client.systemsHash !== NO_SYSTEMS_HASH && client.systemsHash !== server.systemsHash) {
    return `react-netcode: shared systems mismatch (client ${hex(client.systemsHash)}, server ${hex(server.systemsHash)}); build both from one defineSystems list (same shared systems, names and order), deploy them together and reload the page.`;
  }
  return null;
}

/**
 * Whether a refusal's reason is one of the mismatches above (protocol, wire format, shared systems, build id):
 * the client reads its close code from it (close-code.ts), so the wire carries no code of its own.
 */
export function isMismatch(reason: string): boolean {
  return /^react-netcode: (protocol|build|shared systems) mismatch \(/.test(reason);
}
