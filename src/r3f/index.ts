// Public entry `react-netcode/r3f`: react-three-fiber bindings. <NetcodeFrame/> steps the
// engine from the R3F render loop, <VisualProxy> renders a ghost's smoothed transform,
// <NetDebug> overlays predicted paths, confirmed samples and rendered positions.
// <PredictedRigidBody> renders a body simulated by react-netcode/rapier through <VisualProxy>.

export { NetcodeFrame } from './netcode-frame.tsx';
export type { NetcodeFrameProps } from './netcode-frame.tsx';
export { VisualProxy } from './visual-proxy.tsx';
export type { VisualProxyProps } from './visual-proxy.tsx';
export { NetDebug } from './net-debug.tsx';
export type { NetDebugProps } from './net-debug.tsx';
export { NET_DEBUG_COLORS, NET_DEBUG_NAMES } from './debug-objects.ts';
export { frameClockMs, MonotonicTime, NETCODE_STEP_PRIORITY, NETCODE_VIEW_PRIORITY } from './frame-order.ts';
export type { QuatFieldOf, Vec3FieldOf } from './transform.ts';
export { PredictedRigidBody } from './predicted-rigid-body.tsx';
export { hideR3fClockWarning } from './three-console.ts';
export type { PredictedRigidBodyProps } from './predicted-rigid-body.tsx';
