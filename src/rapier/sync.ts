// Components ↔ bodies around the step: writing the components that changed into the
// bodies (the per-body restore after a rollback, a teleport), writing every one of them
// (a rebuild), moving obstacles to their shown pose, and reading the simulated bodies
// back. This is the adapter's per-body work of every tick, so it calls the raw body set
// with reused buffers (raw.ts) and never allocates on its own.

import type { Quat, Vec3 } from '../core/field.ts';
import { comp, eqQ, eqV, handleOf, setQ, setV, type Entry } from './body.ts';
import { toRaw, type RawBodies, type RawVec, type StateReader } from './raw.ts';

/**
 * Write every state component into the body, changed or not (a rebuild from the template:
 * the body sits at the origin, at rest). `vec` is the peer's reusable wasm vector.
 */
export function writeAll(e: Entry, rotation: Quat | undefined, raw: RawBodies, vec: RawVec): void {
  const body = e.body!;
  const { spec } = e;
  const pos = comp<Vec3>(e, spec.position.key);
  body.setTranslation(pos, true);
  setV(e.pos, pos);
  if (spec.rotation) {
    const rot = rotation ?? comp<Quat>(e, spec.rotation.key);
    body.setRotation(rot, true);
    setQ(e.rot, rot);
  }
  if (spec.options.kind !== 'dynamic' || !e.simulated) return;
  if (spec.linvel) {
    const v = comp<Vec3>(e, spec.linvel.key);
    raw.rbSetLinvel(body.handle, toRaw(v, vec), true);
    setV(e.lin, v);
  }
  if (spec.angvel) {
    const v = comp<Vec3>(e, spec.angvel.key);
    raw.rbSetAngvel(body.handle, toRaw(v, vec), true);
    setV(e.ang, v);
  }
}

/**
 * Write the components that differ from what the body holds (a rollback's restore, a teleport);
 * unchanged ones cost a compare. Returns whether it wrote anything.
 */
export function writeChanged(e: Entry, raw: RawBodies, vec: RawVec): boolean {
  const body = e.body!;
  const { spec } = e;
  let wrote = false;
  const pos = comp<Vec3>(e, spec.position.key);
  if (!eqV(pos, e.pos)) {
    body.setTranslation(pos, true);
    setV(e.pos, pos);
    wrote = true;
  }
  if (spec.rotation) {
    const rot = comp<Quat>(e, spec.rotation.key);
    if (!eqQ(rot, e.rot)) {
      body.setRotation(rot, true);
      setQ(e.rot, rot);
      wrote = true;
    }
  }
  if (spec.options.kind !== 'dynamic') return wrote;
  if (spec.linvel) {
    const v = comp<Vec3>(e, spec.linvel.key);
    if (!eqV(v, e.lin)) {
      raw.rbSetLinvel(body.handle, toRaw(v, vec), true);
      setV(e.lin, v);
      wrote = true;
    }
  }
  if (spec.angvel) {
    const v = comp<Vec3>(e, spec.angvel.key);
    if (!eqV(v, e.ang)) {
      raw.rbSetAngvel(body.handle, toRaw(v, vec), true);
      setV(e.ang, v);
      wrote = true;
    }
  }
  return wrote;
}

/** An obstacle that is not simulated here: move it to its shown pose during the step. */
export function followShown(e: Entry): void {
  const body = e.body!;
  body.setNextKinematicTranslation(comp<Vec3>(e, e.spec.position.key));
  if (e.spec.rotation) body.setNextKinematicRotation(comp<Quat>(e, e.spec.rotation.key));
}

/**
 * Read the body's state after the step into the cache and the components (one raw getter call
 * each). No float crosses a call here (the handle is the entry's tagged copy, `handleOf`): a
 * float passed to a call V8 does not inline becomes a new heap number.
 */
export function readBack(e: Entry, raw: RawBodies, reader: StateReader): void {
  const h = handleOf(e);
  const { spec } = e;
  const c = e.ghost.components as Record<string, unknown>;
  reader.translation(raw, h, e.pos, c[spec.position.key] as Vec3);
  if (spec.rotation) reader.rotation(raw, h, e.rot, c[spec.rotation.key] as Quat);
  if (spec.options.kind === 'dynamic') {
    if (spec.linvel) reader.linvel(raw, h, e.lin, c[spec.linvel.key] as Vec3);
    if (spec.angvel) reader.angvel(raw, h, e.ang, c[spec.angvel.key] as Vec3);
  }
}

/** Kinematic and character bodies: the velocity of this tick's move into the linvel component. */
export function readMoveVelocity(e: Entry, dt: number): void {
  const { spec } = e;
  const c = e.ghost.components as Record<string, unknown>;
  if (spec.options.kind !== 'dynamic' && spec.linvel) {
    // Kinematic and character bodies: the velocity of this tick's move.
    const l = c[spec.linvel.key] as Vec3;
    const { cmd } = e;
    l.x = cmd.hasMove ? cmd.move.x / dt : 0;
    l.y = cmd.hasMove ? cmd.move.y / dt : 0;
    l.z = cmd.hasMove ? cmd.move.z / dt : 0;
  }
}
