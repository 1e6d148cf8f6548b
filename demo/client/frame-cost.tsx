// The netcode's own work per rendered frame, measured in the page: the time from just
// before <NetcodeFrame> steps the engine (receive, prediction ticks and rollbacks,
// interpolation) to just after the visual proxies wrote their transforms — the two
// marks are useFrame callbacks on either side of the library's priorities, so the
// scene's own callbacks and the WebGL render are not counted. Samples go into a
// preallocated ring (no allocation per frame); the median and p95 are computed at UI
// rate, shown under the net graph and read by the tests through `window.__demo`, which
// also get them apart for the frames that rolled back and the others.
import { useFrame } from '@react-three/fiber';
import { useEffect, useState, type ReactNode } from 'react';
import { NETCODE_STEP_PRIORITY, NETCODE_VIEW_PRIORITY } from 'react-netcode/r3f';
import { useNetcode } from './netcode.ts';

const SIZE = 600; // the last 600 frames
const samples = new Float64Array(SIZE);
const sorted = new Float64Array(SIZE);
/** 1 where that frame rolled back (resimulated). */
const rolled = new Uint8Array(SIZE);
let count = 0;
let next = 0;
let startedAt = 0;
let rollbacksAt = 0;

/**
 * `?debug&nodraw`: the scene is updated every frame but never drawn (a useFrame of positive priority takes
 * the render over from R3F and does nothing). For measuring the netcode's frame cost at a player's frame
 * rate where software WebGL would take the whole main thread; the canvas stays blank.
 */
export const NO_DRAW = typeof window !== 'undefined' && /[?&]debug\b/.test(window.location.search) && new URLSearchParams(window.location.search).has('nodraw');

function SkipDraw(): null {
  useFrame(() => undefined, 1);
  return null;
}

/** Mount inside the Canvas, next to <NetcodeFrame>. */
export function FrameCostProbe(): ReactNode {
  return (
    <>
      <Marks />
      {NO_DRAW && <SkipDraw />}
    </>
  );
}

function Marks(): null {
  const { client } = useNetcode();
  useFrame(() => {
    rollbacksAt = client.prediction?.stats.rollbacks ?? 0;
    startedAt = performance.now();
  }, NETCODE_STEP_PRIORITY - 1);
  useFrame(() => {
    samples[next] = performance.now() - startedAt;
    rolled[next] = (client.prediction?.stats.rollbacks ?? 0) !== rollbacksAt ? 1 : 0;
    next = (next + 1) % SIZE;
    if (count < SIZE) count++;
  }, NETCODE_VIEW_PRIORITY + 1);
  return null;
}

export interface FrameCost {
  /** Frames sampled (at most 600). */
  frames: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
}

/** The frames that rolled back (`rolledBack`) or not, with their median and p95. */
export interface FrameCostSplit {
  frames: number;
  medianMs: number;
  p95Ms: number;
}

/** The median, p95 and max of the samples where `which(i)` holds, sorted in `sorted`. */
function quantiles(which: (i: number) => boolean): FrameCost {
  let n = 0;
  for (let i = 0; i < count; i++) if (which(i)) sorted[n++] = samples[i]!;
  const view = sorted.subarray(0, n);
  view.sort();
  const at = (q: number): number => (n === 0 ? 0 : view[Math.min(n - 1, Math.floor(q * n))]!);
  return { frames: n, medianMs: at(0.5), p95Ms: at(0.95), maxMs: n === 0 ? 0 : view[n - 1]! };
}

export function frameCost(): FrameCost {
  return quantiles(() => true);
}

/** frameCost() of the frames that rolled back and of the others (for the tests; allocates). */
export function frameCostSplit(): { rolledBack: FrameCostSplit; others: FrameCostSplit } {
  const split = ({ frames, medianMs, p95Ms }: FrameCost): FrameCostSplit => ({ frames, medianMs, p95Ms });
  return { rolledBack: split(quantiles((i) => rolled[i] === 1)), others: split(quantiles((i) => rolled[i] === 0)) };
}

export function resetFrameCost(): void {
  count = next = 0;
}

/** "netcode 0.4 ms/frame (p95 0.9)" under the net graph, once a second. */
export function FrameCostLine(): ReactNode {
  const [cost, setCost] = useState<FrameCost | undefined>(undefined);
  useEffect(() => {
    const id = setInterval(() => setCost(frameCost()), 1000);
    return () => clearInterval(id);
  }, []);
  if (cost === undefined || cost.frames === 0) return null;
  return (
    <div data-testid="frame-cost" style={{ font: '11px system-ui, sans-serif', color: '#b0bec5' }} title="the netcode's work per rendered frame: engine step, rollbacks, proxies (last 600 frames)">
      netcode {cost.medianMs.toFixed(2)} ms/frame · p95 {cost.p95Ms.toFixed(2)}
    </div>
  );
}
