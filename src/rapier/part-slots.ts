// The world parts an in-place restore (restore.ts) swaps in, each alternating between two wasm objects
// of its class that no FinalizationRegistry knows, so a restore builds no wrapper per part; the world's
// own registration frees the part in use if the world is collected without `free()`.

import type RAPIER from '@dimforge/rapier3d-compat';
import { NetcodeError } from '../core/errors.ts';
import type { Deserialized, Freeable, Part } from './restore.ts';
import { ScratchWrap, wrapClassOf } from './scratch.ts';

/** Free the raw part `part` holds and put `raw` in its place. */
function swap<Raw extends Freeable>(part: Part<Raw>, raw: Raw | undefined): void {
  if (raw === undefined) throw lacked();
  part.raw.free();
  part.raw = raw;
}

const lacked = (): NetcodeError =>
  new NetcodeError('internal', 'react-netcode: a Rapier world snapshot lacked a world part; the bytes must come from world.takeSnapshot() of the same Rapier version (please report it).');

/** A wasm-bindgen object as its class builds it: the pointer, and the call that unregisters and zeroes it. */
interface WasmObject extends Freeable {
  __wbg_ptr: number;
  __destroy_into_raw(): number;
}

/**
 * One part of one live world (its body set, broad phase…), whose raw object a restore replaces.
 * wasm-bindgen wraps each part a restore takes in a new object registered with a
 * FinalizationRegistry (an object and a registry cell per part and restore). Here the part's raw
 * alternates between two objects of its class that no registry knows: the take fills the spare
 * one (scratch.ts), the one in use is freed and becomes the spare. The world's own registration
 * (PartSlots) frees the one in use if the world is collected without `free()`, as the class's
 * registry would have.
 */
class PartSlot {
  inUse: WasmObject | undefined;
  spare: WasmObject | undefined;
  #wrapper: ScratchWrap | undefined;

  /** Put the part `d[take]()` returns in `part`, freeing the one it held. */
  take(part: Part, d: Deserialized, take: TakeKey): void {
    const wrapper = this.#wrapper;
    if (wrapper === undefined || this.spare === undefined || part.raw !== this.inUse) {
      const raw = d[take]() as unknown as WasmObject | undefined;
      if (raw === undefined) throw lacked();
      this.#adopt(part, raw);
      return;
    }
    const target = this.spare;
    wrapper.retarget(target);
    wrapper.begin();
    let raw: WasmObject | undefined;
    try {
      raw = d[take]() as unknown as WasmObject | undefined;
    } finally {
      wrapper.end();
    }
    if (raw === undefined) throw lacked();
    if (raw !== target) {
      this.#adopt(part, raw); // not wrapped by the class's __wrap after all: as a first take
      return;
    }
    const old = this.inUse!;
    old.free(); // its pointer freed and zeroed: the spare from now on
    part.raw = target;
    this.inUse = target;
    this.spare = old;
  }

  /** The first take (or one after the part changed hands): move the pointer into an unregistered object of its class. */
  #adopt(part: Part, raw: WasmObject): void {
    const C = wrapClassOf(raw);
    if (C === undefined || typeof raw.__destroy_into_raw !== 'function') {
      swap(part, raw as unknown as Freeable);
      this.inUse = this.spare = undefined;
      return;
    }
    const own = Object.assign(Object.create(C.prototype) as WasmObject, { __wbg_ptr: 0 });
    own.__wbg_ptr = raw.__destroy_into_raw(); // unregistered: no finalizer frees this pointer behind our back
    part.raw.free();
    part.raw = own;
    this.inUse = own;
    this.spare = Object.assign(Object.create(C.prototype) as WasmObject, { __wbg_ptr: 0 });
    this.#wrapper = new ScratchWrap(C, this.spare);
  }
}

type TakeKey =
  | 'takeIntegrationParameters' | 'takeIslandManager' | 'takeBroadPhase' | 'takeNarrowPhase'
  | 'takeBodies' | 'takeColliders' | 'takeImpulseJoints' | 'takeMultibodyJoints';

/** The part slots of one live world. */
class PartSlots {
  readonly integrationParameters = new PartSlot();
  readonly islands = new PartSlot();
  readonly broadPhase = new PartSlot();
  readonly narrowPhase = new PartSlot();
  readonly bodies = new PartSlot();
  readonly colliders = new PartSlot();
  readonly impulseJoints = new PartSlot();
  readonly multibodyJoints = new PartSlot();

  /** Free the parts still in use (a world collected without `free()`: World.free() frees them itself and zeroes their pointers). */
  freeAll(): void {
    const all = [
      this.integrationParameters, this.islands, this.broadPhase, this.narrowPhase,
      this.bodies, this.colliders, this.impulseJoints, this.multibodyJoints,
    ];
    for (const slot of all) {
      const o = slot.inUse;
      if (o !== undefined && o.__wbg_ptr !== 0) o.free();
    }
  }
}

const partSlots = new WeakMap<object, PartSlots>();
const collected = new FinalizationRegistry<PartSlots>((slots) => slots.freeAll());

export function slotsOf(world: RAPIER.World): PartSlots {
  let slots = partSlots.get(world);
  if (slots === undefined) {
    partSlots.set(world, (slots = new PartSlots()));
    collected.register(world, slots);
  }
  return slots;
}
