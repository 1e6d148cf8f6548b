// A character controller's move without the JS glue's garbage. 0.19's
// KinematicCharacterController.computeColliderMovement wraps the desired move in a new wasm
// vector and the filter in a new closure per call, and computedMovement() returns a new wasm
// vector wrapped in a JS object and then copied into a new Vector3: a few hundred bytes of heap
// per character and tick. Where the controller has 0.19's layout (its `raw` controller and the
// sets it passes), the mover makes the same raw calls with one reused wasm vector, a constant
// filter and, when the getters can wrap into a reused object (raw.ts, `wrapless`), no wrapper
// for the result either. Else it calls the public API.

import type RAPIER from '@dimforge/rapier3d-compat';
import type { Vec3 } from '../core/field.ts';
import { toRaw, type RawVec, type WraplessClasses } from './raw.ts';

interface RawController {
  computeColliderMovement(...args: unknown[]): void;
  computedMovement(): RawVec;
}

/** The members of a 0.19 KinematicCharacterController its computeColliderMovement reads. */
interface ControllerMembers {
  readonly raw?: RawController;
  readonly params?: { readonly dt: number };
  readonly broadPhase?: { readonly raw: unknown };
  readonly narrowPhase?: { readonly raw: unknown };
  readonly bodies?: { readonly raw: unknown };
  readonly colliders?: { readonly raw: unknown };
  readonly _applyImpulsesToDynamicBodies?: boolean;
  readonly _characterMass?: number | null;
}

/**
 * No filter predicate: what the public call passes is `colliders.castClosure(undefined)`, a new
 * closure that keeps every collider, which wasm then calls once per candidate collider through
 * wasm-bindgen's `call` glue (an arguments array and a heap slot per call). The raw controller
 * takes anything that is not a function as no predicate, with the same result.
 */
const noFilter = null;

function rawLayout(kcc: RAPIER.KinematicCharacterController): boolean {
  const k = kcc as unknown as ControllerMembers;
  return typeof k.raw?.computeColliderMovement === 'function' && k.raw.computeColliderMovement.length === 12
    && typeof k.raw.computedMovement === 'function' && typeof k.params?.dt === 'number'
    && k.broadPhase?.raw !== undefined && k.narrowPhase?.raw !== undefined && k.bodies?.raw !== undefined
    && k.colliders?.raw !== undefined && typeof k._applyImpulsesToDynamicBodies === 'boolean';
}

export class CharacterMover {
  readonly #scratch: RawVec | undefined;
  readonly #wrap = (ptr: number): RawVec => {
    (this.#scratch as unknown as { __wbg_ptr: number }).__wbg_ptr = ptr >>> 0;
    return this.#scratch!;
  };
  #raw: boolean | undefined;

  /** `vec`: a reusable wasm vector (the peer's); `wrapless`: the getters' result classes where they can wrap into a reused object. */
  constructor(private readonly vec: RawVec, private readonly wrapless: WraplessClasses | undefined) {
    this.#scratch = wrapless === undefined ? undefined : Object.assign(Object.create(wrapless.vec.prototype) as RawVec, { __wbg_ptr: 0 });
  }

  /** Slide `move` along what `kcc` sees from `collider`, and write the computed movement back into `move`. */
  move(kcc: RAPIER.KinematicCharacterController, collider: RAPIER.Collider, move: Vec3): void {
    if (!(this.#raw ??= rawLayout(kcc))) {
      kcc.computeColliderMovement(collider, move);
      const m = kcc.computedMovement();
      move.x = m.x;
      move.y = m.y;
      move.z = m.z;
      return;
    }
    const k = kcc as unknown as Required<ControllerMembers>;
    k.raw.computeColliderMovement(
      k.params.dt, k.broadPhase.raw, k.narrowPhase.raw, k.bodies.raw, k.colliders.raw, collider.handle, toRaw(move, this.vec),
      k._applyImpulsesToDynamicBodies, k._characterMass, undefined, undefined, noFilter,
    );
    let m: RawVec;
    const C = this.wrapless?.vec;
    if (C === undefined) m = k.raw.computedMovement();
    else {
      const wrap = C.__wrap;
      C.__wrap = this.#wrap;
      try {
        m = k.raw.computedMovement();
      } finally {
        C.__wrap = wrap;
      }
    }
    move.x = m.x;
    move.y = m.y;
    move.z = m.z;
    m.free();
  }
}
