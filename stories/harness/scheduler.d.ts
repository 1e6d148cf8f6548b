// The two entry points of React's `scheduler` package (installed with react-dom and
// @react-three/fiber, which share it) that the deterministic frame loop uses: it runs
// each frame at idle priority, after every render React has queued.
declare module 'scheduler' {
  export const unstable_IdlePriority: number;
  export function unstable_scheduleCallback(priority: number, callback: () => void): unknown;
}
