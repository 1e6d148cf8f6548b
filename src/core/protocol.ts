// The Protocol: the one definition shared by server and clients — tick rate,
// snapshot rate, ghost types, the input schema, the join payload and typed RPCs.
// Its hash is checked at the handshake so mismatched builds are refused early.

import { NetcodeError } from './errors.ts';
import type { SpawnClassifier } from './spawning.ts';
import { compileSchema, type Schema, type SchemaCodec, type Values } from './schema.ts';
import { DEFAULT_RPC_MAX_BYTES, MAX_MESSAGE_BYTES, WIRE_VERSION } from './wire.ts';

export type RpcDirection = 'toServer' | 'toClient';

/** A typed RPC: a payload schema, a direction and a size cap. Build with `rpc.toServer` / `rpc.toClient`. */
export interface RpcDef<S extends Schema = Schema, D extends RpcDirection = RpcDirection> {
  readonly direction: D;
  readonly schema: S;
  readonly maxBytes: number;
}

export interface RpcOptions {
  /** Largest encoded payload accepted, in bytes (default 1024). A bigger one closes the sender's connection. */
  maxBytes?: number;
}

function makeRpc<D extends RpcDirection>(direction: D) {
  return <const S extends Schema>(schema: S, options: RpcOptions = {}): RpcDef<S, D> => {
    const maxBytes = options.maxBytes ?? DEFAULT_RPC_MAX_BYTES;
    if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > MAX_MESSAGE_BYTES - 16) {
      throw new NetcodeError('protocol/invalid', `react-netcode: rpc maxBytes must be an integer in 1..${MAX_MESSAGE_BYTES - 16} (got ${maxBytes}).`);
    }
    return { direction, schema, maxBytes };
  };
}

/** RPC builders: `rpc.toServer({ text: field.string(200) })`, `rpc.toClient({ ... })`. */
export const rpc = {
  /** Sent by a client, handled by the server. */
  toServer: makeRpc('toServer'),
  /** Sent by the server to one client or to all, handled by clients. */
  toClient: makeRpc('toClient'),
};

/** A mode a ghost type supports on clients. */
export type SupportedMode = 'predicted' | 'interpolated';

export interface GhostOptions {
  /** Modes this ghost may be shown in on clients (default both: the owner predicts, others interpolate). */
  modes?: readonly SupportedMode[];
  /**
   * How a client pairs a new ghost of this type with its predicted spawn (default: same owner, spawn ticks < 5 apart). E.g.
   * spawnIdClassifier().
   */
  classify?: SpawnClassifier;
}

/** A replicated entity type: its fields and supported modes. */
export interface GhostType<S extends Schema = Schema> {
  readonly fields: S;
  readonly modes: readonly SupportedMode[];
  readonly classify?: SpawnClassifier;
}

/** Declare a ghost type: `ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted'] })`. */
export function ghost<const S extends Schema>(fields: S, options: GhostOptions = {}): GhostType<S> {
  const modes = options.modes ?? ['predicted', 'interpolated'];
  if (!Array.isArray(modes) || modes.length === 0) {
    throw new NetcodeError('protocol/invalid', 'react-netcode: a ghost needs at least one mode: pass modes: ["predicted"], ["interpolated"] or both.');
  }
  for (const m of modes as readonly unknown[]) {
    if (m !== 'predicted' && m !== 'interpolated') {
      throw new NetcodeError('protocol/invalid', `react-netcode: ghost mode ${JSON.stringify(m)} is not one: pass modes: ["predicted"], ["interpolated"] or both.`);
    }
  }
  return options.classify ? { fields, modes: [...new Set(modes)], classify: options.classify } : { fields, modes: [...new Set(modes)] };
}

export interface ProtocolDefinition<
  G extends Record<string, GhostType> = Record<string, GhostType>,
  I extends Schema = Schema,
  R extends Record<string, RpcDef> = Record<string, RpcDef>,
  J extends Schema = Schema,
> {
  /** Simulation ticks per second on server and clients (default 60). */
  tickRate?: number;
  /** Snapshots per second sent to each client (default 20; at most tickRate). */
  snapshotRate?: number;
  ghosts?: G;
  /** The per-tick input schema (values and `field.event()` counters). */
  input?: I;
  rpcs?: R;
  /** The payload a client sends to join the game (e.g. `{ name: field.string(24), token: field.string(512) }`). */
  join?: J;
  /** Replicate each player's last input to the other clients in snapshots, so remote players can be predicted (default true). */
  replicateInputs?: boolean;
}

export interface RpcEntry {
  readonly id: number;
  readonly name: string;
  readonly def: RpcDef;
  readonly codec: SchemaCodec<Schema>;
}

export interface GhostEntry {
  readonly id: number;
  readonly name: string;
  readonly type: GhostType;
  readonly codec: SchemaCodec<Schema>;
  /** Fields declared `required: true`, in declaration order: a spawn must give them. */
  readonly required: readonly string[];
}

export interface Protocol<
  G extends Record<string, GhostType> = Record<string, GhostType>,
  I extends Schema = Schema,
  R extends Record<string, RpcDef> = Record<string, RpcDef>,
  J extends Schema = Schema,
> {
  readonly tickRate: number;
  readonly snapshotRate: number;
  /** Milliseconds per tick (1000 / tickRate). */
  readonly stepMs: number;
  readonly ghosts: G;
  readonly ghostList: readonly GhostEntry[];
  readonly ghostByName: ReadonlyMap<string, GhostEntry>;
  readonly input: SchemaCodec<I>;
  readonly join: SchemaCodec<J>;
  readonly rpcs: R;
  /** RPCs in declaration order; an RPC's wire id is its index. */
  readonly rpcList: readonly RpcEntry[];
  readonly rpcByName: ReadonlyMap<string, RpcEntry>;
  readonly replicateInputs: boolean;
  /** Canonical text of everything that affects the wire. */
  readonly describe: string;
  /** FNV-1a 32-bit hash of `describe`; compared at the handshake. */
  readonly hash: number;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkName(kind: string, name: string): void {
  if (!NAME.test(name)) throw new NetcodeError('protocol/invalid', `react-netcode: ${kind} name "${name}" must be an identifier (letters, digits, _).`);
}

/** Define the protocol shared by server and clients. Types of ghosts, inputs and RPC payloads flow from here. */
export function defineProtocol<
  const G extends Record<string, GhostType> = Record<never, GhostType>,
  const I extends Schema = Record<never, never>,
  const R extends Record<string, RpcDef> = Record<never, RpcDef>,
  const J extends Schema = Record<never, never>,
>(definition: ProtocolDefinition<G, I, R, J>): Protocol<G, I, R, J> {
  const tickRate = definition.tickRate ?? 60;
  const snapshotRate = definition.snapshotRate ?? Math.min(20, tickRate);
  if (!Number.isInteger(tickRate) || tickRate < 1 || tickRate > 240) {
    throw new NetcodeError('protocol/invalid', `react-netcode: tickRate must be an integer in 1..240 (got ${tickRate}); 60 is the usual choice.`);
  }
  if (!(snapshotRate > 0) || snapshotRate > tickRate) {
    throw new NetcodeError('protocol/invalid', `react-netcode: snapshotRate must be in (0, tickRate=${tickRate}] (got ${snapshotRate}).`);
  }
  const ghosts = (definition.ghosts ?? {}) as G;
  const rpcs = (definition.rpcs ?? {}) as R;
  const ghostList = Object.entries(ghosts).map(([name, type], id): GhostEntry => {
    checkName('ghost', name);
    const codec = compileSchema(type.fields);
    return { id, name, type, codec, required: codec.keys.filter((k) => codec.schema[k]!.options.required) };
  });
  const rpcList = Object.entries(rpcs).map(([name, def], id): RpcEntry => {
    checkName('rpc', name);
    return { id, name, def, codec: notRequired(compileSchema(def.schema), `rpc "${name}" field`) };
  });
  const input = notRequired(compileSchema((definition.input ?? {}) as I), 'input field');
  const join = notRequired(compileSchema((definition.join ?? {}) as J), 'join field');
  const replicateInputs = definition.replicateInputs ?? true;
  const describe = [
    `wire=${WIRE_VERSION}`,
    `tick=${tickRate}`,
    `snap=${snapshotRate}`,
    `ghosts=[${ghostList.map((g) => `${g.name}<${g.type.modes.join(',')}>${g.codec.describe}`).join(';')}]`,
    `input=${input.describe}`,
    `join=${join.describe}`,
    `replicateInputs=${replicateInputs}`,
    `rpcs=[${rpcList.map((r) => `${r.name}:${r.def.direction}:${r.def.maxBytes}${r.codec.describe}`).join(';')}]`,
  ].join('|');
  return {
    tickRate,
    snapshotRate,
    stepMs: 1000 / tickRate,
    ghosts,
    ghostList,
    ghostByName: new Map(ghostList.map((g) => [g.name, g])),
    input,
    join,
    rpcs,
    rpcList,
    rpcByName: new Map(rpcList.map((r) => [r.name, r])),
    replicateInputs,
    describe,
    hash: fnv1a32(describe),
  };
}

/** `required` is for ghost fields (what a spawn must give): inputs, join payloads and RPC payloads always carry every field. */
function notRequired<S extends Schema>(codec: SchemaCodec<S>, what: string): SchemaCodec<S> {
  const key = codec.keys.find((k) => codec.schema[k]!.options.required);
  if (key !== undefined) {
    throw new NetcodeError('protocol/invalid', `react-netcode: ${what} "${key}" is declared required; required applies to ghost fields only (a spawn must give them), so drop the option here.`);
  }
  return codec;
}

/**
 * Refuse a spawn of `entry`'s type whose init lacks a field declared `required: true`
 * (`what` names the call in the message, e.g. 'server.spawn'). Allocates nothing when it passes.
 */
export function checkSpawnInit(entry: GhostEntry, init: unknown, what: string): void {
  const required = entry.required;
  for (let i = 0; i < required.length; i++) {
    const key = required[i]!;
    if (init !== undefined && init !== null && (init as Record<string, unknown>)[key] !== undefined) continue;
    throw new NetcodeError(
      'usage',
      `react-netcode: ${what}('${entry.name}') is missing the required field "${key}"; pass it in the init object (required: ${required.join(', ')}).`,
    );
  }
}

/** FNV-1a over the UTF-16 code units of a string. */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Names of the RPCs a given side may send. */
export type RpcNames<P extends Protocol, D extends RpcDirection> = {
  [K in keyof P['rpcs'] & string]: P['rpcs'][K] extends RpcDef<Schema, D> ? K : never;
}[keyof P['rpcs'] & string];

/** The payload type of RPC `K`. */
export type RpcPayload<P extends Protocol, K extends keyof P['rpcs']> = P['rpcs'][K] extends RpcDef<infer S, RpcDirection>
  ? Values<S>
  : never;

/** The join payload type. */
export type JoinPayload<P extends Protocol> =
  P extends Protocol<Record<string, GhostType>, Schema, Record<string, RpcDef>, infer J> ? Values<J> : never;

/** The input schema of a protocol. */
export type InputSchema<P extends Protocol> = P extends Protocol<Record<string, GhostType>, infer I> ? I : never;

/** The input type. */
export type InputValues<P extends Protocol> = Values<InputSchema<P>>;

/**
 * Whether the server sends snapshots at `tick`: `snapshotRate` ticks out of every
 * `tickRate`, spread evenly, as a pure function of the tick so that server and clients
 * agree (exact-mode physics rebuilds at exactly these ticks on both sides).
 */
export function isSnapshotTick(protocol: Pick<Protocol, 'tickRate' | 'snapshotRate'>, tick: number): boolean {
  const t = tick >>> 0;
  return Math.floor(((t + 1) * protocol.snapshotRate) / protocol.tickRate) !== Math.floor((t * protocol.snapshotRate) / protocol.tickRate);
}
