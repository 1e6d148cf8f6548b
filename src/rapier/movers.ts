// The moves of kinematic bodies and characters before a step. A kinematic body goes to its
// position plus the queued move (or to its target rotation) in the step. A character first
// slides its move along the static level: a query world that holds the level alone, with one
// collider proxy per character and one controller per ghost type.

import type RAPIER from '@dimforge/rapier3d-compat';
import type { Quat, Vec3 } from '../core/field.ts';
import { colliderDesc, comp, type Entry } from './body.ts';
import { CharacterMover } from './character.ts';
import { GroundLift } from './ground.ts';
import type { BodySpec, Rapier } from './options.ts';
import type { RawVec, WraplessClasses } from './raw.ts';

export class Movers {
  #query: RAPIER.World | undefined;
  readonly #controllers = new Map<string, RAPIER.KinematicCharacterController>();
  readonly #next: Vec3 = { x: 0, y: 0, z: 0 };
  #mover: CharacterMover | undefined;
  #lift: GroundLift | undefined;

  /** `build` makes a world with the level (the peer's own builder); `vec` is a reused wasm vector. */
  constructor(
    private readonly R: Rapier,
    private readonly build: () => RAPIER.World,
    private readonly vec: () => RawVec,
    private readonly wrapless: WraplessClasses | undefined,
  ) {}

  kinematic(e: Entry): void {
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
  character(e: Entry): void {
    const { cmd } = e;
    if (!cmd.hasMove) return;
    const pos = comp<Vec3>(e, e.spec.position.key);
    const proxy = this.#proxy(e);
    const rotation = e.spec.rotation ? comp<Quat>(e, e.spec.rotation.key) : undefined;
    // Out of the controller's skin over the ground first (ground.ts): decided by this state alone.
    (this.#lift ??= new GroundLift(this.R)).lift(this.#queryWorld(), e, proxy, pos, rotation, cmd.move);
    proxy.setTranslation(pos);
    if (rotation) proxy.setRotation(rotation);
    const kcc = this.#controller(e.spec);
    (this.#mover ??= new CharacterMover(this.vec(), this.wrapless)).move(kcc, proxy, cmd.move);
    this.kinematic(e);
    if (e.spec.grounded) (e.ghost.components as Record<string, unknown>)[e.spec.grounded] = kcc.computedGrounded();
  }

  /** A ghost left the world: its proxy goes from the query world. */
  drop(e: Entry): void {
    if (e.proxy !== undefined) this.#query?.removeCollider(e.proxy, false);
    e.proxy = undefined;
  }

  dispose(): void {
    this.#mover = undefined;
    this.#lift?.dispose();
    this.#lift = undefined;
    this.#query?.free();
    this.#query = undefined;
    this.#controllers.clear();
  }

  /** The static-only world the character controllers query; never stepped after it is built, so it never changes. */
  #queryWorld(): RAPIER.World {
    if (this.#query === undefined) {
      this.#query = this.build();
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
}
