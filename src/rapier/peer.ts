// One peer's physics: its Rapier world (rebuilt canonically in exact mode), a static
// query world for character controllers, and the list of bodies in ghost-id order.
// `tick` is the whole physics step of one simulated tick: match the world to the
// ghosts, apply queued moves and impulses, step, read the state back.

import type RAPIER from '@dimforge/rapier3d-compat';
import type { Quat, Vec3 } from '../core/field.ts';
import type { Protocol } from '../core/protocol.ts';
import type { Tick } from '../core/tick.ts';
import type { World } from '../core/world.ts';
import { canonicalRotation, clearCommands, colliderDesc, comp, createBody, followShown, newEntry, quantizeState, readBack, writeChanged, type Commands, type Entry, type PhysicsGhost } from './body.ts';
import type { BodySpec, PhysicsOptions, Rapier } from './options.ts';

export interface PhysicsStats {
  /** Ticks stepped. */
  steps: number;
  /** Canonical rebuilds (exact mode). */
  rebuilds: number;
  /** Bodies in the world now. */
  bodies: number;
}

const byId = (a: Entry, b: Entry): number => a.ghost.id - b.ghost.id;

export class Peer {
  world: RAPIER.World;
  readonly list: Entry[] = [];
  readonly stats: PhysicsStats = { steps: 0, rebuilds: 0, bodies: 0 };
  lastTick: Tick | undefined;
  #query: RAPIER.World | undefined;
  readonly #controllers = new Map<string, RAPIER.KinematicCharacterController>();
  readonly #rot: Quat = { x: 0, y: 0, z: 0, w: 1 };
  readonly #next: Vec3 = { x: 0, y: 0, z: 0 };
  #gen = 0;

  constructor(
    private readonly R: Rapier,
    private readonly options: PhysicsOptions,
    private readonly specs: ReadonlyMap<string, BodySpec>,
    private readonly entries: WeakMap<object, Entry>,
    private readonly commands: (ghost: PhysicsGhost) => Commands,
    private readonly dt: number,
  ) {
    this.world = this.#build();
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

  /** Step one tick. `rebuild`: free the world and build it canonically from the components first. */
  tick(net: World<Protocol>, tick: Tick, rebuild: boolean, quantize: boolean): void {
    const isServer = net.isServer;
    const gen = ++this.#gen;
    let added = false;
    for (const type of this.specs.keys()) {
      for (const g of net.query(type)) {
        const e = this.entry(g)!;
        e.seen = gen;
        const simulated = isServer || g.mode === 'predicted';
        if (e.simulated !== simulated && e.body !== undefined) this.#remove(e);
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
        if (e.proxy !== undefined) this.#query?.removeCollider(e.proxy, false);
        e.proxy = undefined;
        e.listed = false;
        clearCommands(e.cmd);
      }
    }
    this.list.length = kept;
    if (added) this.list.sort(byId);

    if (rebuild) {
      this.world.free();
      for (const e of this.list) e.body = undefined;
      this.world = this.#build();
      this.stats.rebuilds++;
    }
    for (const e of this.list) {
      if (e.body === undefined) {
        const r = e.spec.rotation;
        createBody(this.R, this.world, e, rebuild && r ? canonicalRotation(comp<Quat>(e, r.key), r.bits, this.#rot) : undefined);
      } else if (e.simulated) writeChanged(e);
      if (!e.simulated) followShown(e);
      else if (e.spec.options.kind === 'character') this.#moveCharacter(e);
      else if (e.spec.options.kind === 'kinematic') this.#moveKinematic(e);
      else {
        if (e.cmd.hasImpulse) e.body!.applyImpulse(e.cmd.impulse, true);
        e.asleep = e.body!.isSleeping(); // one cheap call; the four state getters allocate
      }
    }

    this.world.step();
    this.stats.steps++;

    for (const e of this.list) {
      if (e.simulated) {
        // Asleep before and after the step: nothing moved, the components still hold its state.
        if (!(e.asleep && e.body!.isSleeping())) readBack(e, this.dt);
        if (quantize) quantizeState(e);
      }
      e.asleep = false;
      clearCommands(e.cmd);
    }
    this.stats.bodies = this.list.length;
    this.lastTick = tick;
  }

  #remove(e: Entry): void {
    this.world.removeRigidBody(e.body!);
    e.body = undefined;
  }

  #moveKinematic(e: Entry): void {
    const body = e.body!;
    const { cmd } = e;
    if (cmd.hasMove) {
      const pos = comp<Vec3>(e, e.spec.position.key);
      const n = this.#next;
      n.x = pos.x + cmd.move.x;
      n.y = pos.y + cmd.move.y;
      n.z = pos.z + cmd.move.z;
      body.setNextKinematicTranslation(n);
    }
    if (cmd.hasTarget) body.setNextKinematicRotation(cmd.target);
  }

  /** Slide the desired move along the static level (query world), then move the kinematic body there in the step. */
  #moveCharacter(e: Entry): void {
    const { cmd } = e;
    if (!cmd.hasMove) return;
    const pos = comp<Vec3>(e, e.spec.position.key);
    const proxy = this.#proxy(e);
    proxy.setTranslation(pos);
    if (e.spec.rotation) proxy.setRotation(comp<Quat>(e, e.spec.rotation.key));
    const kcc = this.#controller(e.spec);
    kcc.computeColliderMovement(proxy, cmd.move);
    const m = kcc.computedMovement();
    cmd.move.x = m.x;
    cmd.move.y = m.y;
    cmd.move.z = m.z;
    this.#moveKinematic(e);
    if (e.spec.grounded) (e.ghost.components as Record<string, unknown>)[e.spec.grounded] = kcc.computedGrounded();
  }

  /** The static-only world the character controllers query; never stepped after it is built, so it never changes. */
  #queryWorld(): RAPIER.World {
    if (this.#query === undefined) {
      this.#query = this.#build();
      this.#query.step(); // fills the broad phase with the level; a freshly built world answers no query
    }
    return this.#query;
  }

  #proxy(e: Entry): RAPIER.Collider {
    if (e.proxy === undefined) e.proxy = this.#queryWorld().createCollider(colliderDesc(this.R, e.spec.options.collider));
    return e.proxy;
  }

  #controller(spec: BodySpec): RAPIER.KinematicCharacterController {
    let kcc = this.#controllers.get(spec.type);
    if (kcc === undefined) {
      const o = spec.options.character ?? {};
      kcc = this.#queryWorld().createCharacterController(o.offset ?? 0.01);
      if (o.snapToGround !== undefined) kcc.enableSnapToGround(o.snapToGround);
      if (o.maxSlopeClimbAngle !== undefined) kcc.setMaxSlopeClimbAngle(o.maxSlopeClimbAngle);
      this.#controllers.set(spec.type, kcc);
    }
    return kcc;
  }

  dispose(): void {
    this.world.free();
    this.#query?.free();
    this.#query = undefined;
    this.#controllers.clear();
    for (const e of this.list) {
      e.body = undefined;
      e.proxy = undefined;
      e.listed = false;
    }
    this.list.length = 0;
  }
}
