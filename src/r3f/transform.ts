// Render stage helpers shared by <VisualProxy> and <NetDebug>: which fields of a ghost
// hold its transform (checked once against the protocol, at UI rate), and copying a
// ghost's view values into THREE objects each frame without allocating.

import type { Object3D } from 'three';
import { NetcodeError, type Ghost, type GhostNames, type GhostValues, type Protocol, type Quat, type Vec3 } from '../index.ts';

type FieldsOf<P extends Protocol, K extends GhostNames<P>, T, Not = never> = {
  [F in keyof GhostValues<P, K>]-?: GhostValues<P, K>[F] extends T
    ? ([Not] extends [never] ? F : GhostValues<P, K>[F] extends Not ? never : F)
    : never;
}[keyof GhostValues<P, K>] &
  string;

/** Names of the vec3 fields of ghost type K (any string for an untyped protocol). */
// A Quat {x,y,z,w} is structurally a Vec3 too.
export type Vec3FieldOf<P extends Protocol, K extends GhostNames<P>> =
  string extends keyof GhostValues<P, K> ? string : FieldsOf<P, K, Vec3, Quat>;

/** Names of the quat fields of ghost type K (any string for an untyped protocol). */
export type QuatFieldOf<P extends Protocol, K extends GhostNames<P>> =
  string extends keyof GhostValues<P, K> ? string : FieldsOf<P, K, Quat>;

/** The fields a transform is read from; undefined = not written. */
export interface TransformKeys {
  readonly position: string | undefined;
  readonly rotation: string | undefined;
}

/**
 * Resolve the transform fields of `ghost`'s type. A field named explicitly must exist with
 * the right kind (vec3 for position, quat for rotation) or this throws; a defaulted one
 * (`optional`) that is missing or of another kind is skipped silently; `null` turns it off.
 */
export function resolveTransformKeys(
  protocol: Protocol,
  ghost: Ghost,
  component: string,
  position: { name: string | null; optional: boolean },
  rotation: { name: string | null; optional: boolean },
): TransformKeys {
  const entry = protocol.ghostByName.get(ghost.type);
  if (entry === undefined) {
    throw new NetcodeError('usage', `react-netcode: ${component} got a ghost of type "${ghost.type}" that this client's protocol does not declare; pass a ghost from this client's world.`);
  }
  const schema = entry.codec.schema;
  const pick = (which: string, spec: { name: string | null; optional: boolean }, kind: 'vec3' | 'quat'): string | undefined => {
    if (spec.name === null) return undefined;
    if (schema[spec.name]?.kind === kind) return spec.name;
    if (spec.optional) return undefined;
    const candidates = entry.codec.keys.filter((k) => schema[k]?.kind === kind);
    throw new NetcodeError(
      'usage',
      `react-netcode: ${component} ${which}="${spec.name}" is not a ${kind} field of ghost type "${ghost.type}" (its ${kind} fields: ${candidates.join(', ') || '(none)'}); name one of them, or pass ${which}={null} to leave it alone.`,
    );
  };
  return { position: pick('positionField', position, 'vec3'), rotation: pick('rotationField', rotation, 'quat') };
}

/** Copy the transform fields of `view` (a ghost's render values) into `object`. Allocates nothing. */
export function writeTransform(object: Object3D, view: Readonly<Record<string, unknown>>, keys: TransformKeys): void {
  if (keys.position !== undefined) {
    const p = view[keys.position] as Vec3 | undefined;
    if (p !== undefined) object.position.set(p.x, p.y, p.z);
  }
  if (keys.rotation !== undefined) {
    const q = view[keys.rotation] as Quat | undefined;
    if (q !== undefined) object.quaternion.set(q.x, q.y, q.z, q.w);
  }
}

/** Write vec3 `v` at vertex `index` of a packed xyz array. */
export function writeVertex(array: Float32Array, index: number, v: Readonly<Vec3>): void {
  const o = index * 3;
  array[o] = v.x;
  array[o + 1] = v.y;
  array[o + 2] = v.z;
}
