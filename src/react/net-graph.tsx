// <NetGraph>: a small DOM overlay (SVG) plotting RTT, bandwidth in/out, visual
// corrections and inputs the server went without over the last seconds, from the stats history in the provider's
// store. It re-renders only when a stats sample lands (at most 4 times per
// second), never per frame; put it beside the Canvas, not inside it.

import type { CSSProperties, ReactNode } from 'react';
import { useStore } from 'zustand';
import { useNetcodeContext } from './context.ts';
import type { NetcodeStoreState, NetStatsSample } from './store.ts';

export interface NetGraphProps {
  /** Seconds of history shown (default 10; the store keeps 10 s). */
  seconds?: number;
  /** Plot size in CSS pixels (default 200 × 60). */
  width?: number;
  height?: number;
  className?: string;
  /** Merged over the default overlay style (absolute, top-left, translucent). */
  style?: CSSProperties;
}

interface Series {
  readonly key: 'rtt' | 'in' | 'out' | 'corrections' | 'inputs';
  readonly color: string;
  readonly value: (s: NetStatsSample) => number;
  /** Smallest full scale, so a quiet line stays near the bottom instead of filling the plot. */
  readonly floor: number;
  readonly label: (s: NetStatsSample) => string;
}

const SERIES: readonly Series[] = [
  { key: 'rtt', color: '#4fc3f7', value: (s) => s.rttMs, floor: 50, label: (s) => `RTT ${s.rttMs.toFixed(0)} ms ±${s.jitterMs.toFixed(0)}` },
  { key: 'in', color: '#81c784', value: (s) => s.bytesInPerSec, floor: 1024, label: (s) => `in ${(s.bytesInPerSec / 1024).toFixed(1)} KB/s` },
  { key: 'out', color: '#ffb74d', value: (s) => s.bytesOutPerSec, floor: 1024, label: (s) => `out ${(s.bytesOutPerSec / 1024).toFixed(1)} KB/s` },
  { key: 'corrections', color: '#e57373', value: (s) => s.correctionsPerSec, floor: 1, label: (s) => `corr ${s.correctionsPerSec.toFixed(1)}/s` },
  {
    key: 'inputs',
    color: '#ce93d8',
    value: (s) => s.missingInputsPerSec,
    floor: 1,
    label: (s) => `inputs late ${s.lateInputsPerSec.toFixed(1)}/s missing ${s.missingInputsPerSec.toFixed(1)}/s`,
  },
];

const EMPTY: readonly NetStatsSample[] = Object.freeze([]);

const OVERLAY: CSSProperties = {
  position: 'absolute',
  top: 8,
  left: 8,
  zIndex: 10,
  padding: 6,
  borderRadius: 4,
  background: 'rgba(0, 0, 0, 0.6)',
  color: '#fff',
  font: '11px/1.4 ui-monospace, monospace',
  pointerEvents: 'none',
};

/** SVG polyline points of one series: x by sample time over the window, y scaled to the series' max (at least its floor). */
export function seriesPoints(samples: readonly NetStatsSample[], series: Series, windowMs: number, width: number, height: number): string {
  const last = samples[samples.length - 1];
  if (last === undefined) return '';
  const start = last.at - windowMs;
  let max = series.floor;
  for (const s of samples) max = Math.max(max, series.value(s));
  const points: string[] = [];
  for (const s of samples) {
    if (s.at < start) continue;
    const x = ((s.at - start) / windowMs) * width;
    const y = height - (series.value(s) / max) * height;
    points.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  }
  return points.join(' ');
}

/**
 * A network graph overlay: RTT (blue), bytes/s in (green) and out (orange), corrections/s
 * (red), ticks/s the server ran without our input (violet; the label adds late inputs/s), each scaled to
 * its own maximum over the window, with the latest values as text.
 * Data: the provider's stats history (one sample per 250 ms of step time).
 *
 * @example
 * <NetcodeProvider transport={…}><Canvas>…</Canvas><NetGraph seconds={5} /></NetcodeProvider>
 *
 * @throws `react-netcode: NetGraph must be used inside <NetcodeProvider> …` outside a provider.
 */
export function NetGraph({ seconds = 10, width = 200, height = 60, className, style }: NetGraphProps): ReactNode {
  const { store } = useNetcodeContext('NetGraph');
  const history = useStore(store, (s) => (s as Partial<NetcodeStoreState>).statsHistory ?? EMPTY);
  const windowMs = Math.max(1, seconds) * 1000;
  const last = history[history.length - 1];
  return (
    <div className={className} style={{ ...OVERLAY, ...style }} data-netgraph="">
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label="Network graph: RTT, bandwidth, corrections and missing inputs">
        {SERIES.map((s) => (
          <polyline key={s.key} data-series={s.key} points={seriesPoints(history, s, windowMs, width, height)} fill="none" stroke={s.color} strokeWidth={1.5} />
        ))}
      </svg>
      <div>
        {SERIES.map((s) => (
          <span key={s.key} data-label={s.key} style={{ color: s.color, marginRight: 6 }}>
            {last ? s.label(last) : '…'}
          </span>
        ))}
        {last?.unreliablePath !== undefined && <span data-label="path">{last.unreliablePath === 'webrtc' ? 'udp: webrtc' : 'udp: socket.io'}</span>}
      </div>
    </div>
  );
}
