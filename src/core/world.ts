// The World: the ghosts one peer simulates, stored per type in spawn order. Game code
// (systems, `server.world`, `client.world`) sees the read-only `World` interface and reads
// it through `query`/`get`/`all`; the engines (server, client prediction, snapshot apply)
// hold the `EngineWorld` behind it and change its structure with `add`/`remove`/`create`/`insert`.

import { NetcodeError } from './errors.ts';
import type { GhostEntry, Protocol } from './protocol.ts';
import type { FieldValue } from './field.ts';
import type { Values } from './schema.ts';
import type { Tick } from './clock/tick.ts';
import { typed } from './typed-ghosts.ts';

/** Ghost type names of a protocol, e.g. `'player' | 'bullet'`. */
export type GhostNames<P extends Protocol> = keyof P['ghosts'] & string;
/** The components of ghost type `K`: one typed, mutable value per field. */
export type GhostValues<P extends Protocol, K extends GhostNames<P>> = Values<P['ghosts'][K]['fields']>;
/** The keys of a schema's fields declared `required: true`. */
export type RequiredKeys<S> = {
  [F in keyof S]: S[F] extends { readonly options: { readonly required: true } } ? F : never;
}[keyof S] & string;
type Fields<P extends Protocol, K extends GhostNames<P>> = P['ghosts'][K]['fields'];
/**
 * The init values of a spawn of ghost type `K`: every field declared `required: true`, and any
 * of the others (missing ones get their defaults).
 */
export type GhostInit<P extends Protocol, K extends GhostNames<P>> = {
  -readonly [F in RequiredKeys<Fields<P, K>>]: FieldValue<Fields<P, K>[F]>;
} & {
  -readonly [F in Exclude<keyof Fields<P, K>, RequiredKeys<Fields<P, K>>>]?: FieldValue<Fields<P, K>[F]>;
};
/** The arguments after the type of a spawn of `K`: the init may be omitted only when `K` has no required field. */
export type SpawnArgs<P extends Protocol, K extends GhostNames<P>, O> = [RequiredKeys<Fields<P, K>>] extends [never]
  ? [init?: GhostInit<P, K>, options?: O]
  : [init: GhostInit<P, K>, options?: O];
/** How this peer runs a ghost: authoritative on the server, predicted or interpolated on a client. */
export type GhostMode = 'server' | 'predicted' | 'interpolated';
/** A ghost of any type of P, as a union narrowed by `ghost.type` (`if (g.type === 'ball') g.components.spin`). */
export type AnyGhost<P extends Protocol> = { [K in GhostNames<P>]: Ghost<P, K> }[GhostNames<P>];

/** Shared by a World and its ghosts: `isLocal` follows `world.localNetworkId`; `modes` counts mode changes (`world.modeVersion`). */
interface LocalId {
  id: number;
  modes: number;
}

/** One replicated entity instance. Created by the engines (`spawn`, snapshots), never by game code. */
export class Ghost<P extends Protocol = Protocol, K extends GhostNames<P> = GhostNames<P>> {
  /**
   * Mode this peer runs it in; the engines set it (default: 'server' on the server; on a client 'predicted' when owned locally and the type
   * allows it, else 'interpolated').
   */
  get mode(): GhostMode {
    return this.#mode;
  }

  set mode(mode: GhostMode) {
    if (mode === this.#mode) return;
    this.#mode = mode;
    this.#local.modes++;
  }

  #mode: GhostMode;
  /** True while the ghost is in the world; false once removed or despawned (also false for a spawn not yet added). */
  alive = false;
  /**
   * How this ghost came to be on this peer: 'server' (the authority's own), 'snapshot'
   * (created from a snapshot), 'predicted' (a client-side predicted spawn awaiting its
   * server twin) or 'matched' (a predicted spawn the server's ghost was classified to).
   */
  origin: 'server' | 'snapshot' | 'predicted' | 'matched' = 'server';
  readonly #local: LocalId;

  constructor(
    /** Server ghost id (uint32); client-side predicted spawns use ids with the top bit set until matched. */
    readonly id: number,
    readonly type: K,
    readonly typeId: number,
    /** Owning connection's networkId; 0 = no owner. */
    readonly owner: number,
    /** Unique per World and never reused: usable as a React key. */
    readonly handle: number,
    readonly components: GhostValues<P, K>,
    readonly spawnTick: Tick,
    mode: GhostMode,
    local: LocalId,
  ) {
    this.#mode = mode;
    this.#local = local;
  }

  /** True when `networkId` owns this ghost (never for 0, which means "no owner"). */
  isOwnedBy(networkId: number): boolean {
    return networkId !== 0 && this.owner === networkId;
  }

  /** Owned by this client's connection (NFE's GhostOwnerIsLocal); always false on the server. */
  get isLocal(): boolean {
    return this.owner !== 0 && this.owner === this.#local.id;
  }
}

/** Ghosts of one list in insertion order; removed ones stay (not alive) until enough pile up to compact. */
class Slots {
  items: Ghost[] = [];
  private dead = 0;

  died(): void {
    this.dead++;
    // Compact into a new array, so cursors already walking the old one keep valid indices.
    if (this.dead >= 16 && this.dead * 2 >= this.items.length) {
      this.items = this.items.filter((g) => g.alive);
      this.dead = 0;
    }
  }

  reset(): void {
    this.items = [];
    this.dead = 0;
  }

  /** Drop a dead entry of `ghost` before it is inserted again (a new array: running cursors keep theirs). */
  purge(ghost: Ghost): void {
    if (!this.items.includes(ghost)) return;
    this.items = this.items.filter((g) => g !== ghost);
    this.dead = Math.max(0, this.dead - 1);
  }
}

/**
 * Walks the array captured at start up to its length then: later additions are not visited, dead ghosts are skipped. Doubles as its own
 * IteratorResult, so a step allocates nothing. A finished (or abandoned: `return()`) cursor goes back to its view, which hands it to the
 * next iteration, so a system's `for (const g of world.query(type))` allocates nothing per tick.
 */
class Cursor {
  done = false;
  value: Ghost | undefined = undefined;
  private index = 0;
  private end = 0;
  private items: readonly Ghost[] = [];

  constructor(private readonly view: View) {}

  start(items: readonly Ghost[]): this {
    this.items = items;
    this.index = 0;
    this.end = items.length;
    this.done = false;
    this.value = undefined;
    return this;
  }

  next(): IteratorResult<Ghost> {
    while (this.index < this.end) {
      const g = this.items[this.index++]!;
      if (g.alive) {
        this.value = g;
        return this as IteratorResult<Ghost>;
      }
    }
    return this.finish();
  }

  /** Called by for…of on break, return or throw. */
  return(): IteratorResult<Ghost> {
    this.index = this.end;
    return this.finish();
  }

  private finish(): IteratorResult<Ghost> {
    if (!this.done) {
      this.done = true;
      this.items = EMPTY;
      this.view.release(this);
    }
    this.value = undefined;
    return this as IteratorResult<Ghost>;
  }

  [Symbol.iterator](): this {
    return this;
  }
}

const EMPTY: readonly Ghost[] = Object.freeze([]);

/** A reusable iterable over one Slots list; an iteration reuses the last finished cursor (nested ones get their own). */
class View implements Iterable<Ghost> {
  private idle: Cursor | undefined;
  constructor(private readonly slots: Slots) {}
  [Symbol.iterator](): Iterator<Ghost> {
    const cursor = this.idle ?? new Cursor(this);
    this.idle = undefined;
    return cursor.start(this.slots.items);
  }
  release(cursor: Cursor): void {
    this.idle = cursor;
  }
}

export interface WorldOptions {
  isServer: boolean;
  /** This client's networkId once joined (0 until then, and always 0 on the server). */
  localNetworkId?: number;
}

/**
 * The ghosts one peer simulates, as game code sees them (`server.world`, `client.world`, a
 * system's `world`): read them here; spawn and despawn through `ctx.spawn`/`ctx.despawn` or
 * `server.spawn`/`server.despawn`.
 */
export interface World<P extends Protocol> {
  readonly protocol: P;
  /** True on the server, false on a client. */
  readonly isServer: boolean;
  /** This client's networkId (0 = not joined); always 0 on the server. */
  readonly localNetworkId: number;
  /** Ghosts in the world (a ghost despawned by the running system counts until that system returns). */
  readonly size: number;
  /** Monotonic counter bumped on every spawn, despawn and reset (UI-rate subscribers compare it). */
  readonly version: number;
  /**
   * The live ghosts of `type` in spawn order (deterministic). Ghosts added while iterating
   * are not visited; ghosts despawned meanwhile are skipped. Allocates no array.
   */
  query<K extends GhostNames<P>>(type: K): Iterable<Ghost<P, K>>;
  /** The live ghost with server id `id`, if any. */
  get(id: number): AnyGhost<P> | undefined;
  /** Every live ghost in spawn order, across types. */
  all(): Iterable<AnyGhost<P>>;
}

/** The World with its engine-facing structure changes (add, create, insert, rekey, remove, clear): the engines' own. */
export class EngineWorld<P extends Protocol> implements World<P> {
  readonly protocol: P;
  readonly isServer: boolean;
  readonly #local: LocalId = { id: 0, modes: 0 };
  readonly #byId = new Map<number, Ghost<P>>();
  readonly #inserted = new WeakSet<Ghost>();
  readonly #types: Slots[];
  readonly #views: View[];
  readonly #all = new Slots();
  readonly #allView = new View(this.#all);
  #nextHandle = 1;
  #version = 0;

  constructor(protocol: P, options: WorldOptions) {
    this.protocol = protocol;
    this.isServer = options.isServer;
    this.#types = protocol.ghostList.map(() => new Slots());
    this.#views = this.#types.map((s) => new View(s));
    this.localNetworkId = options.localNetworkId ?? 0;
  }

  /** This client's networkId (0 = not joined); always 0 on the server. */
  get localNetworkId(): number {
    return this.#local.id;
  }

  set localNetworkId(networkId: number) {
    if (!Number.isInteger(networkId) || networkId < 0 || (this.isServer && networkId !== 0)) {
      throw new NetcodeError('usage', `react-netcode: localNetworkId must be ${this.isServer ? '0 on the server' : 'a networkId >= 0 (0 = not joined)'}, got ${networkId}.`);
    }
    this.#local.id = networkId;
  }

  /** Ghosts in the world (a ghost despawned by the running system counts until that system returns). */
  get size(): number {
    return this.#byId.size;
  }

  /** Monotonic counter bumped on add/remove/clear (UI-rate subscribers compare it). */
  get version(): number {
    return this.#version;
  }

  /** Monotonic counter bumped whenever a ghost of this world changes `mode` (prediction switching, predicted spawns). */
  get modeVersion(): number {
    return this.#local.modes;
  }

  /**
   * The live ghosts of `type` in spawn order (deterministic). Ghosts added while iterating
   * are not visited; ghosts despawned meanwhile are skipped. Allocates no array.
   */
  query<K extends GhostNames<P>>(type: K): Iterable<Ghost<P, K>> {
    return typed<P, K>(this.#views[this.#entry(type).id]!);
  }

  /** The live ghost with server id `id`, if any. */
  get(id: number): AnyGhost<P> | undefined {
    const g = this.#byId.get(id);
    return g !== undefined && g.alive ? (typed<P>(g) as AnyGhost<P>) : undefined;
  }

  /** Every live ghost in spawn order, across types. */
  all(): Iterable<AnyGhost<P>> {
    return typed<P>(this.#allView) as Iterable<AnyGhost<P>>;
  }

  /** Engine-facing: create and insert a ghost; missing fields get schema defaults. A duplicate id is a usage error. */
  add<K extends GhostNames<P>>(type: K, id: number, owner: number, spawnTick: Tick, values?: Partial<GhostValues<P, K>>): Ghost<P, K> {
    return this.insert(this.create(type, id, owner, spawnTick, values));
  }

  /** Engine-facing: build a ghost (not alive, not in the world yet) with validated values copied over schema defaults. */
  create<K extends GhostNames<P>>(type: K, id: number, owner: number, spawnTick: Tick, values?: Partial<GhostValues<P, K>>): Ghost<P, K> {
    const entry = this.#entry(type);
    if (!Number.isInteger(id) || id < 0 || id > 0xffff_ffff) throw new NetcodeError('usage', `react-netcode: ghost id must be a uint32, got ${id}.`);
    if (!Number.isInteger(owner) || owner < 0) throw new NetcodeError('usage', `react-netcode: ghost owner must be a networkId >= 0 (0 = none), got ${owner}.`);
    this.#checkFree(id);
    const components = entry.codec.defaults() as Record<string, unknown>;
    if (values !== undefined) {
      for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
        const f = entry.codec.schema[key];
        if (f === undefined) throw new NetcodeError('usage', `react-netcode: ghost "${type}" has no field "${key}"; its fields are ${entry.codec.keys.join(', ') || '(none)'}.`);
        if (value === undefined) continue;
        const problem = f.validate(value);
        if (problem !== null) throw new NetcodeError('usage', `react-netcode: ghost "${type}" field "${key}" ${problem}; pass a valid value.`);
        components[key] = f.copy(value, components[key]);
      }
    }
    const modes = entry.type.modes;
    const mode: GhostMode = this.isServer
      ? 'server'
      : (owner !== 0 && owner === this.#local.id && modes.includes('predicted')) || !modes.includes('interpolated') ? 'predicted' : 'interpolated';
    return new Ghost<P, K>(id, type, entry.id, owner, this.#nextHandle++, components as GhostValues<P, K>, spawnTick, mode, this.#local);
  }

  /** Engine-facing: put a ghost from `create` into the world (it becomes alive, last in spawn order). */
  insert<K extends GhostNames<P>>(ghost: Ghost<P, K>): Ghost<P, K> {
    if (ghost.alive) throw new NetcodeError('usage', `react-netcode: ghost ${ghost.id} is already in a world; create a new one with world.create.`);
    this.#checkFree(ghost.id);
    const slots = this.#types[ghost.typeId];
    if (slots === undefined || this.protocol.ghostList[ghost.typeId]?.name !== ghost.type) throw new NetcodeError('usage', `react-netcode: ghost ${ghost.id} was not created for this protocol; build it with this world's create().`);
    if (this.#inserted.has(ghost)) {
      // Re-inserted (a predicted spawn taken out for a rollback): drop its dead entries first.
      slots.purge(ghost);
      this.#all.purge(ghost);
    }
    this.#inserted.add(ghost);
    ghost.alive = true;
    this.#byId.set(ghost.id, ghost);
    slots.items.push(ghost);
    this.#all.items.push(ghost);
    this.#version++;
    return ghost;
  }

  /**
   * Engine-facing: give a live ghost a new id (a predicted spawn adopted by its server
   * twin keeps its object, components and handle, and takes the server's id).
   */
  rekey(ghost: Ghost<P>, id: number): void {
    if (this.#byId.get(ghost.id) !== ghost) throw new NetcodeError('usage', `react-netcode: ghost ${ghost.id} is not in this world; only a live ghost can be re-keyed.`);
    this.#checkFree(id);
    this.#byId.delete(ghost.id);
    (ghost as { id: number }).id = id;
    this.#byId.set(id, ghost);
    this.#version++;
  }

  /** Engine-facing: take the ghost with `id` out of the world (its `alive` becomes false). */
  remove(id: number): Ghost<P> | undefined {
    const g = this.#byId.get(id);
    if (g === undefined) return undefined;
    this.#byId.delete(id);
    g.alive = false;
    this.#types[g.typeId]!.died();
    this.#all.died();
    this.#version++;
    return g;
  }

  /** Engine-facing: remove every ghost (handles keep counting up). */
  clear(): void {
    for (const g of this.#byId.values()) g.alive = false;
    this.#byId.clear();
    for (const s of this.#types) s.reset();
    this.#all.reset();
    this.#version++;
  }

  #entry(type: string): GhostEntry {
    const entry = this.protocol.ghostByName.get(type);
    if (entry === undefined) {
      const known = this.protocol.ghostList.map((g) => `"${g.name}"`).join(', ') || '(none)';
      throw new NetcodeError('usage', `react-netcode: unknown ghost type "${type}"; declare it in defineProtocol({ ghosts }) (known: ${known}).`);
    }
    return entry;
  }

  #checkFree(id: number): void {
    if (this.#byId.has(id)) throw new NetcodeError('usage', `react-netcode: ghost id ${id} is already in the world; remove it first or allocate a new id.`);
  }
}
