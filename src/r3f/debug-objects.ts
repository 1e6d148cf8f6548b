// The THREE objects behind <NetDebug> (render stage, debug only): per ghost a line
// through its recent predicted positions, points at its confirmed (server) samples and
// a point at its rendered position. Buffers are allocated once per ghost at a fixed
// capacity; each frame only rewrites their contents and draw ranges.

import { BufferAttribute, BufferGeometry, DynamicDrawUsage, Line, LineBasicMaterial, Points, PointsMaterial, type Material } from 'three';
import type { TickHistory } from '../core/history.ts';
import type { Vec3 } from '../core/field.ts';
import { writeVertex } from './transform.ts';

/** Colours of the debug views (hex RGB): blue predicted path, orange confirmed samples, magenta rendered position. */
export const NET_DEBUG_COLORS = Object.freeze({
  /** The predicted path: prediction history of the ghost, one vertex per recent predicted tick. */
  predicted: 0x2196f3,
  /** Confirmed server positions: one point per authoritative sample in the ghost's confirmed history. */
  confirmed: 0xff9800,
  /** Where the ghost is drawn this frame: `client.view(ghost)`, smoothing and correction included. */
  rendered: 0xe040fb,
});

/** Object names, so tests and tools can find them under the ghost's debug group. */
export const NET_DEBUG_NAMES = Object.freeze({ predicted: 'predicted-path', confirmed: 'confirmed-samples', rendered: 'rendered-position' });

export interface DebugObjects {
  readonly predicted: Line;
  readonly confirmed: Points;
  readonly rendered: Points;
}

function geometry(vertices: number): BufferGeometry {
  const g = new BufferGeometry();
  const attribute = new BufferAttribute(new Float32Array(vertices * 3), 3);
  attribute.setUsage(DynamicDrawUsage); // rewritten every frame
  g.setAttribute('position', attribute);
  g.setDrawRange(0, 0);
  return g;
}

function overlay<T extends Line | Points>(object: T, name: string): T {
  object.name = name;
  object.frustumCulled = false; // the bounds change every frame; not worth recomputing for a debug view
  object.renderOrder = 1000; // drawn over the scene (depthTest is off)
  return object;
}

/** Allocate the three objects for one ghost: `capacity` vertices for the path and for the samples. */
export function createDebugObjects(capacity: number, pointSize: number): DebugObjects {
  return {
    predicted: overlay(
      new Line(geometry(capacity), new LineBasicMaterial({ color: NET_DEBUG_COLORS.predicted, depthTest: false, transparent: true })),
      NET_DEBUG_NAMES.predicted,
    ),
    confirmed: overlay(
      new Points(
        geometry(capacity),
        new PointsMaterial({ color: NET_DEBUG_COLORS.confirmed, size: pointSize, depthTest: false, transparent: true }),
      ),
      NET_DEBUG_NAMES.confirmed,
    ),
    rendered: overlay(
      new Points(
        geometry(1),
        new PointsMaterial({ color: NET_DEBUG_COLORS.rendered, size: pointSize * 1.5, depthTest: false, transparent: true }),
      ),
      NET_DEBUG_NAMES.rendered,
    ),
  };
}

export function disposeDebugObjects(objects: DebugObjects): void {
  for (const o of [objects.predicted, objects.confirmed, objects.rendered]) {
    o.geometry.dispose();
    (o.material as Material).dispose();
  }
}

/**
 * Copies the newest `capacity` samples of a history into a geometry, oldest first. One
 * instance per geometry; its visitor is bound once, so a fill allocates nothing.
 */
export class HistoryFiller {
  private array: Float32Array = new Float32Array(0);
  private field = '';
  private skip = 0;
  private count = 0;
  private capacity = 0;

  private readonly visit = (value: Readonly<Record<string, unknown>>): void => {
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    const p = value[this.field] as Vec3 | undefined;
    if (p !== undefined && this.count < this.capacity) writeVertex(this.array, this.count++, p);
  };

  /** Fill `target` from `history` (undefined = empty); returns the vertex count drawn. */
  fill(target: BufferGeometry, history: TickHistory<Readonly<Record<string, unknown>>> | undefined, field: string): number {
    const attribute = target.getAttribute('position') as BufferAttribute;
    this.array = attribute.array as Float32Array;
    this.field = field;
    this.count = 0;
    this.capacity = attribute.count;
    this.skip = history === undefined ? 0 : Math.max(0, history.size - this.capacity);
    history?.forEach(this.visit);
    target.setDrawRange(0, this.count);
    attribute.needsUpdate = true;
    return this.count;
  }
}

/** Put the single rendered-position vertex at `p` (or hide it when undefined). */
export function placePoint(target: BufferGeometry, p: Readonly<Vec3> | undefined): void {
  const attribute = target.getAttribute('position') as BufferAttribute;
  if (p !== undefined) writeVertex(attribute.array as Float32Array, 0, p);
  target.setDrawRange(0, p === undefined ? 0 : 1);
  attribute.needsUpdate = true;
}
