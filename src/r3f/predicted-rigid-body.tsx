// <PredictedRigidBody>: renders a ghost that react-netcode/rapier simulates as a
// predicted Rapier body. The body lives in the engine's own headless world (not in
// @react-three/rapier's <Physics>, whose refs break when a rollback or an exact-mode
// rebuild swaps bodies); its state is written to the ghost's fields each tick, and this
// component shows it through <VisualProxy> — frame-interpolated, with VisualCorrection.

import type { ReactNode, Ref } from 'react';
import type { Group } from 'three';
import type { Ghost, GhostNames, Protocol } from '../index.ts';
import type { PhysicsAdapter } from '../rapier/physics.ts';
import type { QuatFieldOf, Vec3FieldOf } from './transform.ts';
import { VisualProxy, type VisualProxyProps } from './visual-proxy.tsx';
import { NetcodeError } from '../core/errors.ts';

export type PredictedRigidBodyProps<P extends Protocol = Protocol, K extends GhostNames<P> = GhostNames<P>> = Omit<VisualProxyProps<P, K>, 'positionField' | 'rotationField'> & {
  /** The adapter from createPhysics (only its body field mapping is read here: no Rapier import). */
  physics: Pick<PhysicsAdapter, 'fields'>;
  ghost: Ghost<P, K>;
  children?: ReactNode;
  ref?: Ref<Group>;
};

/** `<PredictedRigidBody ghost={box} physics={physics}><mesh … /></PredictedRigidBody>` */
export function PredictedRigidBody<P extends Protocol = Protocol, K extends GhostNames<P> = GhostNames<P>>(
  { physics, ghost, ...rest }: PredictedRigidBodyProps<P, K>,
) {
  const fields = physics.fields(ghost.type);
  if (!fields) {
    throw new NetcodeError('usage', `react-netcode: <PredictedRigidBody> got a "${ghost.type}" ghost, which has no body in createPhysics({ bodies }); add one, or render it with <VisualProxy>.`);
  }
  // The default rotation field applies only when the ghost type has one (a body without it has its rotations locked).
  const rotation = fields.rotation;
  return (
    <VisualProxy
      {...(rest as Omit<VisualProxyProps<P, K>, 'ghost'>)}
      ghost={ghost}
      positionField={(fields.position ?? 'position') as Vec3FieldOf<P, K>}
      rotationField={(rotation !== undefined && rotation in (ghost.components as object) ? rotation : null) as QuatFieldOf<P, K> | null}
    />
  );
}
