// HTML over the Canvas: the connection status screen (with Retry when closed, Reload after a mismatch: a new build) and the
// network panel (conditioner presets, prediction / smoothing / NetGraph / NetDebug toggles, players),
// foldable by its title, folded at start in a window smaller than 1000 × 640 px.
import { useEffect, useState, type ReactNode } from 'react';
import type { Correction } from 'react-netcode';
import { playerColour } from '../shared/systems.ts';
import { useConnection, useGhosts, useNetcode, useNetStats } from './netcode.ts';
import { PRESETS, type Preset } from './network.ts';

const STATUS_TEXT: Record<string, string> = {
  loading: 'Loading physics…', // the provider awaits RAPIER.init() (WASM) before connecting
  connecting: 'Connecting to the server…',
  connected: 'Connected, joining…',
  joining: 'Joining the game…',
  reconnecting: 'Connection lost, reconnecting…',
  closed: 'Disconnected',
};

export interface HudProps {
  preset: Preset;
  onPreset: (preset: Preset) => void;
  showGraph: boolean;
  onShowGraph: (show: boolean) => void;
  showDebug: boolean;
  onShowDebug: (show: boolean) => void;
  /** Predict the local player and nearby balls (off: they are interpolated like everything else). */
  prediction: boolean;
  onPrediction: (on: boolean) => void;
  /** Render through the smoothed view (off: raw simulated state, corrections snap). */
  smoothing: boolean;
  onSmoothing: (on: boolean) => void;
  onLeave: () => void;
}

export function Hud(props: HudProps): ReactNode {
  return (
    <>
      <StatusScreen onLeave={props.onLeave} />
      <NetworkPanel {...props} />
    </>
  );
}

function StatusScreen({ onLeave }: { onLeave: () => void }): ReactNode {
  const c = useConnection();
  if (c.status === 'in-game') return null;
  return (
    <div data-testid="status" style={overlay}>
      <div style={{ background: 'rgba(20, 24, 28, 0.9)', padding: 24, borderRadius: 8, minWidth: 280, textAlign: 'center' }}>
        <div style={{ fontSize: 18, marginBottom: 8 }}>{STATUS_TEXT[c.status] ?? c.status}</div>
        <div style={{ opacity: 0.7, fontSize: 12 }}>status: {c.status}</div>
        {c.closeCode === 'mismatch' && <div style={{ marginTop: 8 }}>A new version of the game is out: reload the page.</div>}
        {c.closeReason !== undefined && <div style={{ marginTop: 8, color: '#ef9a9a' }}>{c.closeReason}</div>}
        {c.joinError !== undefined && <div style={{ marginTop: 8, color: '#ef9a9a' }}>join refused: {c.joinError}</div>}
        {c.error !== undefined && <div style={{ marginTop: 8, color: '#ffcc80', fontSize: 12 }}>{c.error}</div>}
        <div style={{ marginTop: 16, display: 'flex', gap: 8, justifyContent: 'center' }}>
          {c.status === 'closed' && c.closeCode === 'mismatch' && (
            <button onClick={() => location.reload()} style={btn}>
              Reload
            </button>
          )}
          {c.status === 'closed' && c.closeCode !== 'mismatch' && (
            <button onClick={() => c.connect()} style={btn}>
              Retry
            </button>
          )}
          <button onClick={onLeave} style={btn}>
            Back to the lobby
          </button>
        </div>
      </div>
    </div>
  );
}

function NetworkPanel({ preset, onPreset, showGraph, onShowGraph, showDebug, onShowDebug, prediction, onPrediction, smoothing, onSmoothing, onLeave }: HudProps): ReactNode {
  const stats = useNetStats();
  const { networkId } = useConnection();
  const players = useGhosts('player');
  const [open, setOpen] = useState(() => !(window.innerWidth < 1000 || window.innerHeight < 640));
  if (!open) {
    return (
      <button type="button" data-testid="network-open" style={{ ...panel, ...btn, minWidth: 0, padding: '4px 10px' }} onPointerDown={(e) => e.stopPropagation()} onClick={() => setOpen(true)}>
        Network ▸
      </button>
    );
  }
  return (
    <div style={panel} onPointerDown={(e) => e.stopPropagation()}>
      <div style={{ fontWeight: 600, marginBottom: 4, cursor: 'pointer' }} onClick={() => setOpen(false)} title="fold the panel">
        Network ▾
      </div>
      {PRESETS.map((p) => (
        <label key={p.id} style={row}>
          <input type="radio" name="preset" checked={p.id === preset.id} onChange={() => onPreset(p)} /> {p.label}
        </label>
      ))}
      <div style={{ marginTop: 6 }}>
        <label style={row} title="Off: your player and the balls near you are interpolated (you see your own moves a round trip late; your grenades arrive black, unpredicted)">
          <input type="checkbox" data-testid="prediction" checked={prediction} onChange={(e) => onPrediction(e.target.checked)} /> prediction
        </label>
        <label style={row} title="Off: predicted objects are drawn at their raw simulated state: tick steps, corrections snap">
          <input type="checkbox" data-testid="smoothing" checked={smoothing} onChange={(e) => onSmoothing(e.target.checked)} /> smoothing
        </label>
        <label style={row}>
          <input type="checkbox" checked={showGraph} onChange={(e) => onShowGraph(e.target.checked)} /> NetGraph
        </label>
        <label style={row}>
          <input type="checkbox" checked={showDebug} onChange={(e) => onShowDebug(e.target.checked)} /> NetDebug (paths)
        </label>
      </div>
      <div style={{ marginTop: 6, opacity: 0.8 }}>
        RTT {stats.rttMs.toFixed(0)} ms ±{stats.jitterMs.toFixed(0)} · corr {stats.correctionsPerSec.toFixed(1)}/s
      </div>
      <Corrections />
      <div style={{ fontWeight: 600, margin: '8px 0 4px' }}>Players</div>
      {players.map((p) => (
        <div key={p.handle} style={row}>
          <span style={{ display: 'inline-block', width: 10, height: 10, borderRadius: 5, background: playerColour(p.components.colour) }} />{' '}
          {p.components.name}
          {p.owner === networkId ? ' (you)' : ''}
        </div>
      ))}
      <button onClick={onLeave} style={{ ...btn, marginTop: 8 }}>
        Leave
      </button>
    </div>
  );
}

interface CorrectionSummary {
  total: number;
  byCause: [string, number][];
  last: Correction | undefined;
}

function summarize(corrections: { total: number; byCause: Record<string, number>; recent: readonly Correction[] }): CorrectionSummary {
  return { total: corrections.total, byCause: Object.entries(corrections.byCause).filter(([, n]) => n > 0), last: corrections.recent[corrections.recent.length - 1] };
}

/** Corrections of predicted ghosts since joining, by cause (client.corrections), and the newest one; refreshed at most 4 times a second. */
function Corrections(): ReactNode {
  const { client } = useNetcode();
  const [summary, setSummary] = useState(() => summarize(client.corrections));
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = client.events.on('correction', () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        setSummary(summarize(client.corrections));
      }, 250);
    });
    return () => {
      off();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [client]);
  const { total, byCause, last } = summary;
  return (
    <div data-testid="corrections" style={{ opacity: 0.8 }}>
      corrections {total}
      {byCause.length > 0 && `: ${byCause.map(([cause, n]) => `${cause} ${n}`).join(' · ')}`}
      {last !== undefined && (
        <div title={last.detail} style={{ opacity: 0.8 }}>
          last: {last.type} {(last.distance * 1000).toFixed(0)} mm, {last.cause}
        </div>
      )}
    </div>
  );
}

const overlay = { position: 'absolute', inset: 0, display: 'flex', alignItems: 'center', justifyContent: 'center', background: 'rgba(0,0,0,0.35)', zIndex: 20 } as const;
const panel = {
  position: 'absolute',
  top: 8,
  right: 8,
  zIndex: 10,
  padding: 10,
  borderRadius: 6,
  background: 'rgba(0, 0, 0, 0.6)',
  font: '12px/1.5 system-ui, sans-serif',
  minWidth: 200,
} as const;
const row = { display: 'flex', alignItems: 'center', gap: 4, cursor: 'pointer' } as const;
const btn = { padding: '6px 12px', borderRadius: 4, border: 0, background: '#455a64', color: '#fff' } as const;
