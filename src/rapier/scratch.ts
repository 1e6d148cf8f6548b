// wasm-bindgen's JS objects for returned pointers, without one per call. A 0.19 class's static
// `__wrap(ptr)` builds the object of a pointer wasm returns and registers it with a
// FinalizationRegistry (an object and a registry cell per call). Where the object lives only
// for the call that received it (a getter's vector, a deserialized world that is taken apart and
// freed), the class's `__wrap` is swapped for the duration of the call for one that points a
// reused, unregistered object of the class at the pointer. Its `free()` frees the pointer as the
// usual object's does (unregistering an object that was never registered does nothing).

/** A wasm-bindgen class (RawVector, RawRotation, RawDeserializedWorld): its results are built by its static `__wrap(ptr)`. */
export interface WrapClass {
  __wrap(ptr: number): unknown;
  readonly prototype: object;
}

/** The wasm-bindgen class of `v` if it has the shape the swap relies on (a pointer field, a writable static `__wrap`), else undefined. */
export function wrapClassOf(v: unknown): WrapClass | undefined {
  if (typeof v !== 'object' || v === null || typeof (v as { free?: unknown }).free !== 'function') return undefined;
  if (typeof (v as { __wbg_ptr?: unknown }).__wbg_ptr !== 'number') return undefined;
  const ctor: unknown = (v as { constructor?: unknown }).constructor;
  if (typeof ctor !== 'function') return undefined;
  const C = ctor as unknown as WrapClass;
  if (typeof C.__wrap !== 'function' || Object.getPrototypeOf(v) !== C.prototype) return undefined;
  const d = Object.getOwnPropertyDescriptor(C, '__wrap');
  return d !== undefined && d.writable === true ? C : undefined;
}

/** One reused object of a wasm-bindgen class, that `begin()`…`end()` makes the class's `__wrap` return. */
export class ScratchWrap<T extends object = object> {
  #saved: ((ptr: number) => unknown) | undefined;
  readonly #wrap = (ptr: number): T => {
    (this.object as { __wbg_ptr: number }).__wbg_ptr = ptr >>> 0;
    return this.object;
  };

  #object: T;
  constructor(readonly C: WrapClass, object?: T) {
    this.#object = object ?? Object.assign(Object.create(C.prototype) as T, { __wbg_ptr: 0 });
  }

  get object(): T {
    return this.#object;
  }

  /** Wrap into `object` from now on (an unregistered object of the class). */
  retarget(object: T): void {
    this.#object = object;
  }

  /** From now until `end()`, the class wraps every returned pointer in `object`. */
  begin(): void {
    this.#saved = this.C.__wrap;
    this.C.__wrap = this.#wrap;
  }

  end(): void {
    if (this.#saved !== undefined) this.C.__wrap = this.#saved;
    this.#saved = undefined;
  }
}
