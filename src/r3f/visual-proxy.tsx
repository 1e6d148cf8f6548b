// <VisualProxy>: the render stage of one ghost (docs/architecture.md, house rule 3). A <group>
// whose transform is rewritten every frame from `client.view(ghost)` — frame-
// interpolated predicted state plus its VisualCorrection, the timeline-interpolated
// state of a remote ghost, or the blend while the ghost switches mode. It only reads
// the engine: the simulated body (ghost.components) is never written, and React
// re-renders only when its props change.

import { useFrame, type ThreeElements } from '@react-three/fiber';
import { useImperativeHandle, useLayoutEffect, useMemo, useRef, type ReactNode, type Ref } from 'react';
import type { Group } from 'three';
import type { Ghost, GhostNames, Protocol } from '../index.ts';
import { useNetcodeContext } from '../react/context.ts';
import { useInCanvas } from './in-canvas.ts';
import { NETCODE_VIEW_PRIORITY } from './frame-order.ts';
import { resolveTransformKeys, writeTransform, type QuatFieldOf, type Vec3FieldOf } from './transform.ts';

/** Props of <VisualProxy>: the ghost, its transform fields, and any other <group> props. */
export type VisualProxyProps<P extends Protocol = Protocol, K extends GhostNames<P> = GhostNames<P>> = Omit<
  ThreeElements['group'],
  'position' | 'rotation' | 'quaternion' | 'ref' | 'children'
> & {
  /** The ghost to render (from the provider's client world). */
  ghost: Ghost<P, K>;
  /** vec3 field copied to the group's position (default 'position'; null leaves the position alone). */
  positionField?: Vec3FieldOf<P, K> | null;
  /**
   * quat field copied to the group's quaternion. Default 'rotation' when the ghost type has
   * such a quat field (else the rotation is left alone); null leaves it alone.
   */
  rotationField?: QuatFieldOf<P, K> | null;
  /**
   * false: place the group at the raw simulated state (`ghost.components`) instead of
   * `client.view(ghost)` — a predicted ghost then moves in tick steps and snaps on every
   * correction (no frame interpolation, no VisualCorrection, no mode-switch blend). For
   * debug views and "smoothing off" toggles; default true.
   */
  smoothed?: boolean;
  /** The visuals: rendered in the ghost's local frame. */
  children?: ReactNode;
  /** The THREE.Group (for cameras, attachments, raycasts). Read it in useFrame, not in render. */
  ref?: Ref<Group>;
};

/**
 * Renders `children` at a ghost's smoothed transform:
 *
 * ```tsx
 * <VisualProxy ghost={ship} positionField="position" rotationField="rotation">
 *   <mesh geometry={hull} material={paint} />
 * </VisualProxy>
 * ```
 *
 * The transform is written in useFrame at NETCODE_VIEW_PRIORITY (after `<NetcodeFrame/>`
 * stepped the engine, before user callbacks at priority 0) and once at mount, so the first
 * frame is already in place. A named field that is not a vec3/quat of the ghost type throws
 * the documented `react-netcode:` error at render.
 */
export function VisualProxy<P extends Protocol = Protocol, K extends GhostNames<P> = GhostNames<P>>({
  ghost,
  positionField,
  rotationField,
  smoothed = true,
  children,
  ref,
  ...group
}: VisualProxyProps<P, K>) {
  const { client } = useNetcodeContext<P>('<VisualProxy>');
  useInCanvas('<VisualProxy>', 'outside a 3D scene read the render values with useGhost, useGhosts or client.view(ghost)');
  const g = ghost as unknown as Ghost;
  const keys = useMemo(
    () =>
      resolveTransformKeys(
        client.protocol,
        g,
        '<VisualProxy>',
        { name: positionField === undefined ? 'position' : positionField, optional: false },
        { name: rotationField === undefined ? 'rotation' : rotationField, optional: rotationField === undefined },
      ),
    [client, g, positionField, rotationField],
  );
  const object = useRef<Group>(null);
  useImperativeHandle(ref, () => object.current!, []);

  const write = (): void => {
    const target = object.current;
    // A despawned ghost keeps its last transform until the parent unmounts this proxy.
    if (target !== null && ghost.alive) writeTransform(target, smoothed ? client.view(ghost) : ghost.components, keys);
  };
  useLayoutEffect(write);
  useFrame(write, NETCODE_VIEW_PRIORITY);

  return (
    <group {...group} ref={object}>
      {children}
    </group>
  );
}
