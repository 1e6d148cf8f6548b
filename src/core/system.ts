// Systems: the game logic, `(world, ctx) => void`, declared with where it runs.
// The server engine and the client's prediction loop and frame loop drive one
// SystemRunner each; structural changes a system makes land right after it returns.
//
// Execution order (one `run(stage, tick)` call):
//   'server'       (server, once per tick)      — 'shared' and 'server' systems, interleaved in list order.
//   'prediction'   (client, once per predicted tick, and again for each resimulated tick
//                   after a rollback with ctx.isResimulating = true) — 'shared' systems, in list order.
//   'presentation' (client, once per tick the engine presents) — 'client' systems, in list order;
//                   they may read and write components but not spawn or despawn.
// After each system returns: its despawns leave the world (in call order), then its spawns
// join it (in call order, so later systems of the same tick see them), then the engine's
// onDespawn/onSpawn hooks run. A ghost spawned and despawned by one system never joins.
// ctx.rng restarts for every system at deriveSeed(seed, tick, fnv1a32(name)), so a shared
// system draws the same numbers on the server and in client prediction whatever other
// (server-only) systems drew before it.

import { describeError, isNetcodeError, NetcodeError } from './errors.ts';
import { neutralInput } from './input/events.ts';
import { checkSpawnInit, fnv1a32, isSnapshotTick, type InputValues, type Protocol } from './protocol.ts';
import { Rng } from './rng.ts';
import { pressSpawnIds } from './spawning.ts';
import type { Tick } from './clock/tick.ts';
import type { EngineWorld, Ghost, GhostNames, GhostValues, SpawnArgs, World } from './world.ts';
import { typed } from './typed-ghosts.ts';

export type SystemWhere = 'shared' | 'server' | 'client';
export type SystemStage = 'server' | 'prediction' | 'presentation';

export interface SpawnOptions {
  /** Owning networkId (default 0 = no owner). Kept apart from the fields so a field may be called `owner`. */
  owner?: number;
}

export interface SystemContext<P extends Protocol> {
  readonly tick: Tick;
  /** Seconds per tick: 1 / tickRate. */
  readonly dt: number;
  readonly isServer: boolean;
  readonly isClient: boolean;
  /** Seeded per tick and system: the same numbers on the server and in client prediction for the same tick. */
  readonly rng: Rng;
  /** This client's networkId; 0 on the server. */
  readonly localNetworkId: number;
  /** True on the server and the first full prediction of a tick; false while resimulating. Gate one-shot effects on it. */
  readonly isFirstTimeFullyPredictingTick: boolean;
  readonly isResimulating: boolean;
  /** True on ticks the server sends snapshots at (the same ticks on every peer; see isSnapshotTick in the protocol). */
  readonly isSnapshotTick: boolean;
  /**
   * The input of `ghost`'s owner for this tick; neutral (schema defaults, sanitized, frozen) when it has no owner or no input. Event
   * fields read as presses in this tick.
   */
  input(ghost: Ghost<P>): InputValues<P>;
  /**
   * The running count of an event field of `ghost`'s owner at this tick (InputEvent's absolute count, e.g. for spawnId). 0 when unknown.
   */
  inputCount(ghost: Ghost<P>, field: string): number;
  /**
   * The spawnIds of this tick's presses of event field `field` by `ghost`'s owner, oldest first — one
   * per press, so `ids.length` is the presses (`ctx.input(ghost)[field]`). Spawn one ghost per id and
   * store it in a field matched by spawnIdClassifier(). Empty (and allocation-free) on ticks without presses.
   */
  spawnIds(ghost: Ghost<P>, field: EventKey<P>): readonly number[];
  /**
   * Server: where `ghost`'s owner showed interpolated ghosts when it sampled its input for
   * this tick — pass it to lag compensation to cast "as this client saw it". Undefined on
   * clients, for unowned ghosts, or before any input arrived.
   */
  interpolationView(ghost: Ghost<P>): { tick: Tick; fraction: number } | undefined;
  /**
   * Spawn a ghost: it joins the world when this system returns (`alive` is false until then). `init`
   * must give every field declared `required: true` (a spawn without one throws a usage error).
   */
  spawn<K extends GhostNames<P>>(type: K, ...args: SpawnArgs<P, K, SpawnOptions>): Ghost<P, K>;
  /** Despawn a ghost: `alive` is false at once and queries skip it; it leaves the world when this system returns. Idempotent. */
  despawn(ghost: Ghost<P>): void;
  /**
   * Register how to undo a side effect that lives outside replicated state (a sound, a
   * local counter, a particle) made for a predicted spawn. If the server never confirms the
   * spawn, the reverts run once, in reverse order. No-op on the server and for ghosts that
   * are not predicted spawns. Replicated state is corrected by rollback, never by a revert.
   */
  revertIfRejected(ghost: Ghost<P>, revert: () => void): void;
}

/** Input fields holding a number: where `ctx.spawnIds` reads presses (declare them with field.event()). */
export type EventKey<P extends Protocol> = {
  [K in keyof InputValues<P> & string]: InputValues<P>[K] extends number ? K : never;
}[keyof InputValues<P> & string];

export type SystemFn<P extends Protocol> = (world: World<P>, ctx: SystemContext<P>) => void;

export interface SystemDef<P extends Protocol> {
  readonly name: string;
  readonly where: SystemWhere;
  readonly run: SystemFn<P>;
}

function builder(where: SystemWhere) {
  return <P extends Protocol>(name: string, run: SystemFn<P>): SystemDef<P> => {
    if (typeof name !== 'string' || name === '') throw new NetcodeError('usage', `react-netcode: a ${where} system needs a non-empty name, e.g. system.${where}('move', (world, ctx) => { ... }).`);
    if (typeof run !== 'function') throw new NetcodeError('usage', `react-netcode: system "${name}" needs a function (world, ctx) => void.`);
    return Object.freeze({ name, where, run });
  };
}

/** System builders. Pass them to `defineSystems(protocol, [...])` so `world` and `ctx` are typed without annotations. */
export const system = {
  /** Runs on the server and in client prediction (movement, shooting, anything predicted). */
  shared: builder('shared'),
  /** Runs on the server only: authoritative events such as damage and destruction. */
  server: builder('server'),
  /** Runs on clients only, in the presentation stage: visual state, effects, sounds. */
  client: builder('client'),
};

function checkSystems(systems: readonly Pick<SystemDef<Protocol>, 'name' | 'where'>[]): void {
  const seen = new Set<string>();
  for (const s of systems) {
    if (!['shared', 'server', 'client'].includes(s.where)) throw new NetcodeError('usage', `react-netcode: system "${s.name}" has where=${String(s.where)}; build it with system.shared/server/client.`);
    if (seen.has(s.name)) throw new NetcodeError('usage', `react-netcode: two systems are named "${s.name}"; give each system a unique name.`);
    seen.add(s.name);
  }
}

/** The game's systems in execution order; fixes P so each `run` is typed from `protocol`. Names must be unique. */
export function defineSystems<P extends Protocol>(protocol: P, systems: readonly SystemDef<P>[]): readonly SystemDef<P>[] {
  if (typeof protocol !== 'object' || protocol === null) throw new NetcodeError('usage', 'react-netcode: defineSystems needs the protocol from defineProtocol as its first argument.');
  checkSystems(systems);
  return Object.freeze([...systems]);
}

/** A system's error, with its name and tick; the original is `cause`. */
export class SystemError extends NetcodeError {
  constructor(
    readonly system: string,
    readonly tick: Tick,
    cause: unknown,
  ) {
    // A usage error of ours (Rapier not initialised, say) already says what to do: the system is not at fault.
    const what = isNetcodeError(cause) && cause.code === 'usage' ? '' : '; fix the system';
    super('handler', `react-netcode: system "${system}" threw at tick ${tick}: ${describeError(cause)}${what} (error.cause holds what it threw, with the stack).`);
    this.name = 'SystemError';
    this.cause = cause;
  }
}

/** What the engine gives a runner. */
export interface SystemHooks<P extends Protocol> {
  /** World seed; ctx.rng derives from it. Server and clients must use the same one. */
  seed: number;
  /** The input of `ghost.owner` for `tick` (server: last known when missing), or undefined for neutral. Called only for owned ghosts. */
  input(ghost: Ghost<P>, tick: Tick): InputValues<P> | undefined;
  /** A fresh ghost id for `ctx.spawn`. */
  allocateId(): number;
  onSpawn?(ghost: Ghost<P>): void;
  onDespawn?(ghost: Ghost<P>): void;
  /**
   * Intercept `ctx.spawn` before a ghost is built: return an existing ghost to re-bind the
   * call to it (client prediction re-running a tick), `null` to refuse the spawn (the call
   * gets a ghost that never joins the world), or undefined for the normal path.
   */
  interceptSpawn?(
    type: string, owner: number, tick: Tick, flags: { isFirstTimeFullyPredictingTick: boolean; isResimulating: boolean },
  ): Ghost<P> | null | undefined;
  /**
   * Called after a spawn the engine let through (or re-bound), with its init values applied. Returning
   * 'discard' keeps a new ghost out of the world (predicted spawning: its server twin is already there).
   */
  spawned?(ghost: Ghost<P>, tick: Tick, rebound: boolean): void | 'discard';
  /** Backs ctx.inputCount: the owner's input for `tick` with running counts (not per-tick presses). */
  rawInput?(ghost: Ghost<P>, tick: Tick): Record<string, unknown> | undefined;
  /** Backs ctx.interpolationView. */
  interpolationView?(ghost: Ghost<P>, tick: Tick): { tick: Tick; fraction: number } | undefined;
  /** Backs ctx.revertIfRejected. */
  revertIfRejected?(ghost: Ghost<P>, revert: () => void): void;
  /**
   * A system threw. With this hook the runner reports the SystemError here, skips the rest of
   * that system for this run (what it spawned or despawned before throwing still applies) and
   * goes on with the next system; without it, `run` rethrows the SystemError.
   */
  onError?(error: SystemError): void;
}

export interface RunFlags {
  isFirstTimeFullyPredictingTick?: boolean;
  isResimulating?: boolean;
}

const STAGE_RUNS: Record<SystemStage, SystemWhere[]> = { server: ['shared', 'server'], prediction: ['shared'], presentation: ['client'] };

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The per-runner context, reused every tick and system (no per-tick allocation). */
class RunContext<P extends Protocol> implements SystemContext<P> {
  tick: Tick = 0;
  readonly dt: number;
  readonly isServer: boolean;
  readonly isClient: boolean;
  /**
   * Restarted as each system starts at deriveSeed(seed, tick, salt) (int32 words: nothing boxed), eagerly:
   * a system that keeps the object from an earlier run draws from its own stream all the same.
   */
  readonly rng = new Rng();
  isFirstTimeFullyPredictingTick = true;
  isResimulating = false;

  get isSnapshotTick(): boolean {
    return isSnapshotTick(this.world.protocol, this.tick);
  }
  /** Stage allows spawn/despawn, and the system currently running. */
  structural = false;
  current = '';
  readonly spawned: Ghost<P>[] = [];
  readonly despawned: Ghost<P>[] = [];
  readonly #neutral: InputValues<P>;

  constructor(
    private readonly world: EngineWorld<P>,
    private readonly hooks: SystemHooks<P>,
  ) {
    this.dt = 1 / world.protocol.tickRate;
    this.isServer = world.isServer;
    this.isClient = !world.isServer;
    this.#neutral = deepFreeze(neutralInput(world.protocol.input) as InputValues<P>);
  }

  get localNetworkId(): number {
    return this.world.localNetworkId;
  }

  input(ghost: Ghost<P>): InputValues<P> {
    if (ghost.owner === 0) return this.#neutral;
    return this.hooks.input(ghost, this.tick) ?? this.#neutral;
  }

  spawn<K extends GhostNames<P>>(type: K, ...args: SpawnArgs<P, K, SpawnOptions>): Ghost<P, K> {
    this.#structural('spawn');
    const init = args[0] as Partial<GhostValues<P, K>> | undefined;
    const options = args[1];
    const entry = this.world.protocol.ghostByName.get(type);
    if (entry !== undefined) checkSpawnInit(entry, init, 'ctx.spawn');
    const owner = options?.owner ?? 0;
    const flags = { isFirstTimeFullyPredictingTick: this.isFirstTimeFullyPredictingTick, isResimulating: this.isResimulating };
    const intercepted = this.hooks.interceptSpawn?.(type, owner, this.tick, flags);
    if (intercepted) {
      // Re-bound to an existing ghost: reset it to its spawn state; if it was taken out of
      // the world for the rollback, it joins again when this system returns, like a spawn.
      const fresh = this.world.create(type, 0, owner, this.tick, init);
      entry!.codec.copy(fresh.components, intercepted.components);
      if (!intercepted.alive) this.spawned.push(intercepted);
      this.hooks.spawned?.(intercepted, this.tick, true);
      return typed<P, K>(intercepted);
    }
    const ghost = this.world.create(type, intercepted === null ? 0 : this.hooks.allocateId(), owner, this.tick, init);
    if (intercepted === null) return ghost; // refused: never joins the world
    this.spawned.push(ghost);
    if (this.hooks.spawned?.(ghost, this.tick, false) === 'discard') this.spawned.pop();
    return ghost;
  }

  spawnIds(ghost: Ghost<P>, field: EventKey<P>): readonly number[] {
    const f = this.world.protocol.input.schema[field];
    if (f === undefined || f.kind !== 'event') {
      throw new NetcodeError('usage', `react-netcode: ctx.spawnIds(ghost, '${field}') needs an input field declared with field.event(); '${field}' is ${f === undefined ? 'not an input field' : `a ${f.kind} field`}.`);
    }
    const presses = (this.input(ghost) as Record<string, unknown>)[field];
    return pressSpawnIds(ghost.owner, this.inputCount(ghost, field), typeof presses === 'number' ? presses : 0);
  }

  inputCount(ghost: Ghost<P>, field: string): number {
    if (ghost.owner === 0) return 0;
    const v = this.hooks.rawInput?.(ghost, this.tick)?.[field];
    return typeof v === 'number' ? v : 0;
  }

  revertIfRejected(ghost: Ghost<P>, revert: () => void): void {
    this.hooks.revertIfRejected?.(ghost, revert);
  }

  interpolationView(ghost: Ghost<P>): { tick: Tick; fraction: number } | undefined {
    return ghost.owner === 0 ? undefined : this.hooks.interpolationView?.(ghost, this.tick);
  }

  despawn(ghost: Ghost<P>): void {
    this.#structural('despawn');
    const pending = this.spawned.indexOf(ghost);
    if (pending >= 0) this.spawned.splice(pending, 1);
    else if (ghost.alive && this.world.get(ghost.id) === ghost) {
      ghost.alive = false;
      this.despawned.push(ghost);
    }
  }

  #structural(op: string): void {
    if (!this.structural) throw new NetcodeError('usage', `react-netcode: ctx.${op} is not available in client presentation system "${this.current}"; do it in a shared or server system.`);
  }
}

/** The flags of a run that passes none (a default of `{}` is a new object per call). */
const NO_FLAGS: RunFlags = Object.freeze({});

/**
 * Runs systems for one tick and stage (see the execution order at the top of this
 * module). Structural changes are deferred to the end of each system; a system that
 * throws becomes a SystemError after its changes so far are applied: reported to
 * `hooks.onError` (and the next system runs), or rethrown when there is no such hook.
 */
export class SystemRunner<P extends Protocol> {
  readonly #world: EngineWorld<P>;
  readonly #hooks: SystemHooks<P>;
  readonly #ctx: RunContext<P>;
  readonly #stages: Record<SystemStage, { def: SystemDef<P>; salt: number }[]>;
  #running = false;

  constructor(world: EngineWorld<P>, systems: readonly SystemDef<P>[], hooks: SystemHooks<P>) {
    checkSystems(systems);
    this.#world = world;
    this.#hooks = hooks;
    this.#ctx = new RunContext(world, hooks);
    const pick = (stage: SystemStage) =>
      systems.filter((s) => STAGE_RUNS[stage].includes(s.where)).map((def) => ({ def, salt: fnv1a32(def.name) | 0 }));
    this.#stages = { server: pick('server'), prediction: pick('prediction'), presentation: pick('presentation') };
  }

  /** @internal Run a stage's systems for `tick` (the engines' loops: the server's tick, prediction, presentation). */
  run(stage: SystemStage, tick: Tick, flags: RunFlags = NO_FLAGS): void {
    const list = this.#stages[stage];
    if (list === undefined) throw new NetcodeError('usage', `react-netcode: unknown stage "${String(stage)}"; use 'server', 'prediction' or 'presentation'.`);
    if ((stage === 'server') !== this.#world.isServer) {
      throw new NetcodeError('usage', `react-netcode: stage "${stage}" runs on ${stage === 'server' ? 'the server' : 'clients'}, but this world is a ${this.#world.isServer ? 'server' : 'client'} world; use ${this.#world.isServer ? "'server'" : "'prediction' or 'presentation'"}.`);
    }
    const resim = flags.isResimulating ?? false;
    const first = flags.isFirstTimeFullyPredictingTick ?? !resim;
    if ((resim && first) || (stage === 'server' && (resim || !first))) {
      throw new NetcodeError('usage', 'react-netcode: run flags conflict: a resimulated tick is never the first full prediction, and the server stage is always a first, non-resimulated run.');
    }
    if (this.#running) throw new NetcodeError('usage', 'react-netcode: SystemRunner.run was called from inside a system; run stages one after another.');
    const ctx = this.#ctx;
    ctx.tick = tick;
    ctx.isResimulating = resim;
    ctx.isFirstTimeFullyPredictingTick = first;
    ctx.structural = stage !== 'presentation';
    this.#running = true;
    try {
      for (let i = 0; i < list.length; i++) {
        const { def, salt } = list[i]!;
        ctx.current = def.name;
        ctx.rng.reseedDerived(this.#hooks.seed, tick | 0, salt);
        try {
          def.run(this.#world, ctx);
        } catch (error) {
          this.#flush();
          const failure = new SystemError(def.name, tick, error);
          if (this.#hooks.onError === undefined) throw failure;
          this.#hooks.onError(failure);
          continue;
        }
        this.#flush();
      }
    } finally {
      this.#running = false;
      ctx.spawned.length = 0;
      ctx.despawned.length = 0;
    }
  }

  /** Apply the finished system's despawns, then its spawns, then tell the engine. */
  #flush(): void {
    const { spawned, despawned } = this.#ctx;
    if (spawned.length === 0 && despawned.length === 0) return;
    for (const g of despawned) this.#world.remove(g.id);
    for (const g of spawned) this.#world.insert(g);
    const { onSpawn, onDespawn } = this.#hooks;
    if (onDespawn !== undefined) for (const g of despawned) onDespawn.call(this.#hooks, g);
    if (onSpawn !== undefined) for (const g of spawned) onSpawn.call(this.#hooks, g);
    despawned.length = 0;
    spawned.length = 0;
  }
}
