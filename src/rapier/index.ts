// Public entry `react-netcode/rapier`: predicted Rapier physics with rollback, as a
// shared system. Needs `@dimforge/rapier3d-compat` 0.19.2 or 0.21.0 (a peer dependency):
// `import RAPIER from '@dimforge/rapier3d-compat'; await initRapier(RAPIER);` (RAPIER.init() without its loader's warning).
// See docs/physics.md for the two modes ('smoothed', 'exact') and their costs.

export { createPhysics } from './physics.ts';
export { initRapier } from './init.ts';
export type { PhysicsAdapter } from './physics.ts';
export type { PhysicsGhost } from './body.ts';
export type { PhysicsStats } from './peer.ts';
export type { BodyFields, BodyKind, BodyOptions, CharacterOptions, ColliderShape, PhysicsMode, PhysicsOptions, Rapier } from './options.ts';
export { createLagCompensation } from './lag-compensation.ts';
export type {
  ColliderOptions as LagColliderOptions,
  ColliderShape as LagColliderShape,
  LagCompensation,
  LagCompensationOptions,
  RaycastHit,
  RaycastOptions,
  Rewind,
  RewindTarget,
  RewindView,
} from './lag-compensation.ts';
