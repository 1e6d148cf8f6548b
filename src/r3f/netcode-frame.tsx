// <NetcodeFrame/>: the one place the engine is stepped when the app renders with R3F
// (docs/architecture.md, "The client frame"). Inside the Canvas it claims the provider's frame
// driver (the provider's own loop pauses) and calls `frame.step(now)` once per R3F
// frame in useFrame at NETCODE_STEP_PRIORITY, i.e. before the visual proxies copy the
// render values and before any user frame callback. It renders nothing.

import { useFrame, useThree, type RootState } from '@react-three/fiber';
import { useLayoutEffect, useMemo } from 'react';
import { useNetcodeContext } from '../react/context.ts';
import { useInCanvas } from './in-canvas.ts';
import { checkStepPriority, frameClockMs, MonotonicTime, NETCODE_STEP_PRIORITY } from './frame-order.ts';

export interface NetcodeFrameProps {
  /**
   * The frame time in monotonic milliseconds, used as is. Default: the R3F frame clock,
   * read once per frame so every consumer of the frame agrees on it (see `frameClockMs`).
   * Pass it when the provider runs on an injected clock (`<NetcodeProvider clock>`), with
   * `frameloop="never"`, or for deterministic tests — the engine needs one time base
   * across the hand-over between the provider's loop and this component.
   */
  now?: ((state: RootState) => number) | undefined;
  /**
   * useFrame priority of the step (default NETCODE_STEP_PRIORITY = −1000). Must stay below
   * NETCODE_VIEW_PRIORITY (−900) so the engine is stepped before anything renders it.
   */
  priority?: number;
}

/**
 * Steps the netcode engine from the R3F render loop. Mount exactly one inside the
 * `<Canvas>`, under a `<NetcodeProvider>`:
 *
 * ```tsx
 * <Canvas>
 *   <NetcodeFrame />
 *   {ships.map((g) => <VisualProxy key={g.handle} ghost={g}><Ship /></VisualProxy>)}
 * </Canvas>
 * ```
 *
 * Each frame: `frame.step(t)` runs the client engine (receive, fixed ticks of prediction,
 * interpolation, the render values of `client.view(ghost)`). Under `frameloop="demand"` it asks R3F
 * for every next frame (the Canvas renders continuously while it is mounted); to render less often
 * use `frameloop="never"`, call R3F's `advance` yourself and pass `now`. A default-clock reading that
 * jumps back is held at the previous time (see MonotonicTime). On unmount the driver is
 * released and the provider's own loop resumes.
 */
export function NetcodeFrame({ now, priority = NETCODE_STEP_PRIORITY }: NetcodeFrameProps): null {
  const { frame } = useNetcodeContext('<NetcodeFrame>');
  useInCanvas('<NetcodeFrame>', 'without a Canvas <NetcodeProvider> steps the engine itself, so remove <NetcodeFrame/>');
  checkStepPriority(priority);
  const time = useMemo(() => new MonotonicTime(), []);

  // Claimed in a layout effect, like useFrame's own subscription: no frame runs in between. Under
  // frameloop="demand" R3F renders only when asked: the engine must step every frame (network time, inputs,
  // snapshots), so the first frame and each next one are asked for here.
  const invalidate = useThree((s) => s.invalidate);
  const demand = useThree((s) => s.frameloop === 'demand');
  useLayoutEffect(() => {
    const release = frame.claim();
    if (demand) invalidate();
    return release;
  }, [frame, demand, invalidate]);

  useFrame((state) => {
    if (state.frameloop === 'demand') state.invalidate(); // first: a step that throws does not stop the frames
    frame.step(now === undefined ? time.next(frameClockMs(state)) : now(state));
  }, priority);

  return null;
}
