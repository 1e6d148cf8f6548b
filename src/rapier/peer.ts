// One peer's physics: its Rapier world (rebuilt canonically in exact mode), the moves of
// kinematic bodies and characters (movers.ts), and the list of bodies in ghost-id order.
// `tick` is the whole physics step of one simulated tick: match the world to the
// ghosts, apply queued moves and impulses, step, read the state back.
//
// Two uses of Rapier's world snapshots (takeSnapshot / World.restoreSnapshot):
// - exact mode rebuilds from a template: the level and every body at the origin, never
//   stepped, serialized once per body set; a rebuild restores it and writes every body's
//   state (≈ 4× cheaper than creating 200 bodies and colliders).
// - smoothed mode on a client keeps the world of each snapshot tick (a ring of records);
//   a rollback to tick S restores the world of S, contact cache and warm starts
//   included, and then writes the bodies whose components differ. A restored world does
//   not continue exactly like the original in 0.19.2 (the broad phase's BVH optimizer
//   keeps unserialized state), so there the live world is replaced by its own round trip
//   at every recorded tick: the first prediction and every resimulation continue from the
//   same bytes. From 0.21 a restored world continues exactly: recording is takeSnapshot alone.
//   On 0.19 both the round trip and a rollback restore the world in place (restore.ts: the
//   same JS World, its raw parts replaced), else they build a new one (World.restoreSnapshot).

import type RAPIER from '@dimforge/rapier3d-compat';
import type { Quat } from '../core/field.ts';
import type { Protocol } from '../core/protocol.ts';
import type { Tick } from '../core/clock/tick.ts';
import type { World } from '../core/world.ts';
import { CACHE_SIZE, canonicalRotation, handleOf, clearCommands, comp, createBody, loadCache, newEntry, quantizeState, saveCache, type Commands, type Entry, type PhysicsGhost } from './body.ts';
import type { BodySpec, PhysicsOptions, Rapier } from './options.ts';
import { rawBodies, StateReader, stepWorld, toRaw, type Capabilities, type RawVec } from './raw.ts';
import { Movers } from './movers.ts';
import { recording, recordSlot, type WorldRecord } from './records.ts';
import { restoreInPlace, restoreWorld, roundTripBroadPhase, snapshotWith } from './restore.ts';
import { followShown, readBack, readMoveVelocity, writeAll, writeChanged } from './sync.ts';

export interface PhysicsStats {
  /** Ticks stepped. */
  steps: number;
  /** Canonical rebuilds (exact mode). */
  rebuilds: number;
  /** Bodies in the world now. */
  bodies: number;
  /** smoothed mode, clients: rollbacks that restored the recorded world of their tick (contacts included). */
  worldRestores: number;
  /** smoothed mode, clients: recordings that reused the previous one's bytes because nothing moved in between. */
  quietRecords: number;
}

const byId = (a: Entry, b: Entry): number => a.ghost.id - b.ghost.id;

export class Peer {
  world: RAPIER.World;
  readonly list: Entry[] = [];
  readonly stats: PhysicsStats = { steps: 0, rebuilds: 0, bodies: 0, worldRestores: 0, quietRecords: 0 };
  lastTick: Tick | undefined;
  /** The protocol's snapshot ticks (set once by the adapter, so that no tick allocates a closure). */
  isSnapshotTick: (tick: Tick) => boolean = () => false;
  readonly #rot: Quat = { x: 0, y: 0, z: 0, w: 1 };
  #gen = 0;
  /** exact mode: the serialized rebuild template and its body handles in list order; undefined when the body set changed. */
  #template: Uint8Array | undefined;
  readonly #templateHandles: number[] = [];
  /** A wasm vector reused to set velocities and impulses without allocating. */
  #vec: RawVec | undefined;
  readonly #reader: StateReader;
  readonly #records: WorldRecord[] = [];
  /** A reused wasm vector for the world's gravity at each step. */
  #gravity: RawVec | undefined;
  readonly #movers: Movers;
  /** Nothing changed in the world since the last recording, whose bytes are #lastBytes. */
  #quiet = false;
  #lastBytes: Uint8Array | undefined;
  /** An empty world whose parts fill a broad phase's round trip (0.19). */
  #donor: RAPIER.World | undefined;
  /**
   * The ghost types with bodies: walked by index, as every per-tick loop here (a Map's or an
   * array's iterator outside optimized code is an object per step).
   */
  readonly #types: readonly string[];

  constructor(
    private readonly R: Rapier,
    private readonly options: PhysicsOptions,
    private readonly specs: ReadonlyMap<string, BodySpec>,
    private readonly entries: WeakMap<object, Entry>,
    private readonly commands: (ghost: PhysicsGhost) => Commands,
    private readonly dt: number,
    private readonly caps: Capabilities,
  ) {
    this.#types = [...specs.keys()];
    this.world = this.#build();
    this.#reader = new StateReader(caps);
    this.#movers = new Movers(R, () => this.#build(), () => this.#rawVec(), caps.wrapless);
  }

  #gravityVec(): RawVec {
    return (this.#gravity ??= this.R.VectorOps.intoRaw({ x: 0, y: 0, z: 0 }) as unknown as RawVec);
  }

  #rawVec(): RawVec {
    return (this.#vec ??= this.R.VectorOps.intoRaw({ x: 0, y: 0, z: 0 }) as unknown as RawVec);
  }

  #build(): RAPIER.World {
    const g = this.options.gravity ?? { x: 0, y: -9.81, z: 0 };
    const world = new this.R.World({ x: g.x, y: g.y, z: g.z });
    world.timestep = this.dt;
    if (this.options.solverIterations !== undefined) world.numSolverIterations = this.options.solverIterations;
    if (this.options.internalPgsIterations !== undefined) world.numInternalPgsIterations = this.options.internalPgsIterations;
    this.options.level?.(world, this.R);
    return world;
  }

  entry(ghost: PhysicsGhost): Entry | undefined {
    let e = this.entries.get(ghost);
    if (e === undefined) {
      const spec = this.specs.get(ghost.type);
      if (spec === undefined) return undefined;
      e = newEntry(ghost, spec, this.commands(ghost));
      this.entries.set(ghost, e);
    }
    return e;
  }

  /**
   * Step one tick. `rebuild` (exact mode): build the world canonically from the components
   * first. `rollback`: this tick does not follow the last one stepped. `record` (smoothed
   * mode, clients): keep this tick's world for rollbacks to it.
   */
  tick(net: World<Protocol>, tick: Tick, rebuild: boolean, quantize: boolean, rollback = false, record = false): void {
    const isServer = net.isServer;
    if (rollback && !rebuild) this.#restoreRecord(((tick as number) - 1) >>> 0);
    const gen = ++this.#gen;
    let added = false;
    for (let t = 0; t < this.#types.length; t++) {
      for (const g of net.query(this.#types[t]!)) {
        const e = this.entry(g)!;
        e.seen = gen;
        const simulated = isServer || g.mode === 'predicted';
        if (e.simulated !== simulated) {
          if (e.body !== undefined) this.#remove(e);
          this.#template = undefined;
        }
        e.simulated = simulated;
        if (!e.listed) {
          e.listed = true;
          this.list.push(e);
          added = true;
        }
      }
    }
    let kept = 0;
    for (let i = 0; i < this.list.length; i++) {
      const e = this.list[i]!;
      if (e.seen === gen) this.list[kept++] = e;
      else {
        if (e.body !== undefined) this.#remove(e);
        this.#movers.drop(e);
        e.listed = false;
        clearCommands(e.cmd);
      }
    }
    if (kept !== this.list.length || added) this.#template = undefined;
    this.list.length = kept;
    if (added) this.list.sort(byId);

    if (rebuild) this.#rebuild();
    // Quiet: nothing in the world was created, removed, written, moved or kicked this tick.
    let quiet = !rollback && !rebuild && !added && kept === this.list.length;
    if (this.#prepare(rebuild)) quiet = false;

    stepWorld(this.world, this.#gravityVec());
    this.stats.steps++;

    const raw = rawBodies(this.world);
    const reader = this.#reader;
    let dynamic = false;
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const e = list[i]!;
      if (e.simulated) {
        // Asleep before and after the step: nothing moved, the components still hold its state.
        if (!(e.asleep && raw.rbIsSleeping(handleOf(e)))) {
          readBack(e, raw, reader);
          if (e.spec.options.kind === 'dynamic') quiet = false; // awake before or after the step
          else readMoveVelocity(e, this.dt);
        }
        // A character's next move depends only on its position and the static level: quantized
        // as the wire does, the server holds what a client restores, so its rollbacks are exact.
        if (quantize || e.spec.options.kind === 'character') quantizeState(e);
        if (e.spec.options.kind === 'dynamic') dynamic = true;
      }
      e.asleep = false;
      clearCommands(e.cmd);
    }
    // Without a simulated dynamic body there is no contact to keep: the per-body restore is exact.
    this.#quiet &&= quiet;
    if (record && dynamic) this.#record(tick);
    this.stats.bodies = this.list.length;
    this.lastTick = tick;
  }

  /**
   * Before the step: create missing bodies, write changed components, apply the queued moves and
   * impulses. Returns whether it touched the world (a body created or written, a move, an impulse, an obstacle).
   */
  #prepare(rebuild: boolean): boolean {
    const raw = rawBodies(this.world);
    const vec = this.#rawVec();
    let touched = false;
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const e = list[i]!;
      if (e.body === undefined) {
        createBody(this.R, this.world, e);
        touched = true;
      } else if (e.simulated && !rebuild && writeChanged(e, raw, vec)) touched = true;
      const { cmd } = e;
      if (!e.simulated) {
        followShown(e);
        touched = true;
      } else if (e.spec.options.kind === 'character') this.#movers.character(e);
      else if (e.spec.options.kind === 'kinematic') this.#movers.kinematic(e);
      else {
        const h = handleOf(e);
        if (cmd.hasImpulse) raw.rbApplyImpulse(h, toRaw(cmd.impulse, vec), true);
        e.asleep = raw.rbIsSleeping(h); // a sleeping body that still sleeps after the step is not read back
      }
      if (cmd.hasMove || cmd.hasTarget || cmd.hasImpulse) touched = true;
    }
    return touched;
  }

  /**
   * exact mode: restore the template (built anew when the body set changed; in place where
   * supported, else as a new world), then write every body's state from its components, in
   * ghost-id order.
   */
  #rebuild(): void {
    const fresh = this.#template === undefined;
    if (fresh) {
      const w = this.#build();
      this.#templateHandles.length = 0;
      for (const e of this.list) {
        createBody(this.R, w, e, undefined, true);
        this.#templateHandles.push(e.body!.handle);
      }
      this.#template = w.takeSnapshot();
      w.free();
    }
    // The live world came from this template since it was built: restore it in place where supported.
    if (fresh || !this.caps.inPlaceRestore) {
      this.world.free();
      this.world = this.R.World.restoreSnapshot(this.#template!);
    } else restoreInPlace(this.R, this.world, this.#template!);
    const raw = rawBodies(this.world);
    const vec = this.#rawVec();
    for (let i = 0; i < this.list.length; i++) {
      const e = this.list[i]!;
      e.body = this.world.getRigidBody(this.#templateHandles[i]!);
      const r = e.spec.rotation;
      writeAll(e, r ? canonicalRotation(comp<Quat>(e, r.key), r.bits, this.#rot) : undefined, raw, vec);
    }
    this.stats.rebuilds++;
  }

  /**
   * smoothed mode, clients: keep the world's bytes for rollbacks to `tick`. Where a restored
   * world does not continue like the original (0.19), the live world is replaced by its own
   * round trip (in place where supported), so that the first prediction and every
   * resimulation start from the same bytes.
   */
  #record(tick: Tick): void {
    // Nothing moved since the last recording: its bytes are this tick's world (test/rapier/quiet-records.test.ts).
    const same = this.#quiet && recording.skipQuiet ? this.#lastBytes : undefined;
    // Where the world restores in place (0.19's layout), with the reused gravity vector: no wasm vector per recording.
    const bytes = same ?? (this.caps.inPlaceRestore ? snapshotWith(this.world, this.#gravityVec()) : this.world.takeSnapshot());
    this.#quiet = false;
    if (bytes === undefined) return;
    this.#lastBytes = bytes;
    this.#quiet = true;
    if (same !== undefined) this.stats.quietRecords++;
    // The round trip: of the broad phase alone where that suffices (0.19 in place), else of the whole world.
    if (same === undefined && !this.caps.restoreContinues && this.caps.broadPhaseRoundTrip) {
      roundTripBroadPhase(this.R, this.world, (this.#donor ??= new this.R.World({ x: 0, y: 0, z: 0 })), this.#gravityVec());
    }
    const roundTrip = same === undefined && !this.caps.restoreContinues && !this.caps.broadPhaseRoundTrip;
    if (roundTrip) this.world = restoreWorld(this.R, this.world, bytes, this.caps.inPlaceRestore);
    const rec = recordSlot(this.#records, tick as number);
    rec.tick = tick as number;
    rec.bytes = bytes;
    rec.n = this.list.length;
    if (rec.cache.length < rec.n * CACHE_SIZE) rec.cache = new Float64Array(rec.n * CACHE_SIZE * 2);
    for (let i = 0; i < this.list.length; i++) {
      const e = this.list[i]!;
      const h = e.body!.handle;
      if (roundTrip) e.body = this.world.getRigidBody(h); // the same wrapper after an in-place restore
      rec.entries[i] = e;
      rec.handles[i] = h;
      rec.simulated[i] = e.simulated;
      saveCache(e, rec.cache, i * CACHE_SIZE);
    }
    rec.entries.length = rec.handles.length = rec.simulated.length = rec.n;
  }

  /**
   * smoothed mode: a rollback to `tick` restores the world recorded then (if any) and
   * rebinds every entry that was in it; entries spawned since get new bodies, bodies of
   * entries gone since are removed. Records of later ticks belong to the discarded future.
   */
  #restoreRecord(tick: number): void {
    let rec: WorldRecord | undefined;
    const records = this.#records;
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      if (r.bytes === undefined) continue;
      if (r.tick === tick) rec = r;
      else if (((r.tick - tick) >>> 0) < 0x80000000) r.bytes = undefined; // later than tick
    }
    if (rec === undefined) return;
    const fresh = (this.world = restoreWorld(this.R, this.world, rec.bytes!, this.caps.inPlaceRestore));
    for (let i = 0; i < this.list.length; i++) this.list[i]!.body = undefined;
    for (let i = 0; i < rec.n; i++) {
      const e = rec.entries[i]!;
      const body = fresh.getRigidBody(rec.handles[i]!);
      if (e.listed) {
        e.body = body;
        e.simulated = rec.simulated[i]!;
        loadCache(e, rec.cache, i * CACHE_SIZE);
      } else fresh.removeRigidBody(body);
    }
    this.stats.worldRestores++;
  }

  #remove(e: Entry): void {
    this.world.removeRigidBody(e.body!);
    e.body = undefined;
  }

  dispose(): void {
    this.world.free();
    this.#donor?.free();
    this.#donor = undefined;
    this.#vec?.free();
    this.#vec = undefined;
    this.#gravity?.free();
    this.#gravity = undefined;
    this.#template = undefined;
    this.#records.length = 0;
    this.#quiet = false;
    this.#lastBytes = undefined;
    this.#movers.dispose();
    for (const e of this.list) {
      e.body = undefined;
      e.proxy = undefined;
      e.listed = false;
    }
    this.list.length = 0;
  }
}
