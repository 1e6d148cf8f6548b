// One game session, loaded lazily once the lobby has a seat (App.tsx), in the seat's room: the
// NetcodeProvider (which awaits Rapier's WASM, `init`, before connecting), the scene,
// the HUD and the tuning corner. This module and what it imports — three, R3F, the
// netcode, the shared systems and Rapier (its own chunk, demo/vite.config.ts) — are
// not part of the page's first load; leva (the tuning panel) loads only when opened.
import { lazy, Suspense, useCallback, useRef, useState, type ReactNode } from 'react';
import { NetGraph } from 'react-netcode/react';
import type { ConditionedClientTransport } from 'react-netcode';
import type { Seat } from 'react-netcode/rooms';
import { DEMO_CLIENT_OPTIONS } from './client-options.ts';
import { FrameCostLine } from './frame-cost.tsx';
import { Hud } from './Hud.tsx';
import { NetcodeProvider } from './netcode.ts';
import { createDemoTransport, linkOptions, PRESETS, type Preset } from './network.ts';
import { Scene } from './Scene.tsx';
import { Scoreboard, TeamButton } from './Scoreboard.tsx';
import { TouchControls, touchWanted } from './Touch.tsx';
import { initRapier } from '../shared/rapier-init.ts';


/** leva and the panels built with it: a chunk of its own, fetched when the tuning button is first pressed. */
/** Below 1000 × 640 px the HUD starts compact (Hud.tsx folds the network panel too). */
export const smallWindow = (): boolean => window.innerWidth < 1000 || window.innerHeight < 640;

const TuningPanel = lazy(() => import('./TuningPanel.tsx'));

export default function Session({ name, seat, onLeave }: { name: string; seat: Seat; onLeave: () => void }): ReactNode {
  const transportRef = useRef<ConditionedClientTransport | null>(null);
  // `?preset=150` starts with that network preset (its id: none, 50, 150, 300).
  const [preset, setPreset] = useState<Preset>(() => PRESETS.find((p) => p.id === new URLSearchParams(window.location.search).get('preset')) ?? PRESETS[0]!);
  const presetRef = useRef(preset);
  // A small window (a phone, a laptop's half screen) starts with the net graph off and the network panel folded: the game first.
  const [showGraph, setShowGraph] = useState(() => !smallWindow());
  const [touch] = useState(touchWanted);
  const [showDebug, setShowDebug] = useState(false);
  const [prediction, setPrediction] = useState(true);
  const [smoothing, setSmoothing] = useState(true);
  // Called once, by the engine that connects (read at mount only).
  const transport = useCallback(() => {
    const t = createDemoTransport(presetRef.current, seat);
    transportRef.current = t;
    return t;
  }, [seat]);
  const choosePreset = (p: Preset): void => {
    presetRef.current = p;
    setPreset(p);
    transportRef.current?.setOptions(linkOptions(p));
  };
  return (
    <NetcodeProvider key={seat.token} transport={transport} join={{ name }} clientOptions={DEMO_CLIENT_OPTIONS} init={initRapier}>
      <div style={{ position: 'fixed', inset: 0 }}>
        <Scene showDebug={showDebug} prediction={prediction} smoothing={smoothing} />
        <Scoreboard />
        <TeamButton />
        {seat.code !== undefined && <MatchCode code={seat.code} />}
        {touch ? <TouchControls /> : <TuningCorner />}
        {showGraph && (
          <div style={graphBox}>
            <NetGraph style={{ position: 'relative', top: 0, left: 0 }} />
            <FrameCostLine />
          </div>
        )}
        <Hud
          preset={preset}
          onPreset={choosePreset}
          showGraph={showGraph}
          onShowGraph={setShowGraph}
          showDebug={showDebug}
          onShowDebug={setShowDebug}
          prediction={prediction}
          onPrediction={setPrediction}
          smoothing={smoothing}
          onSmoothing={setSmoothing}
          onLeave={onLeave}
        />
      </div>
    </NetcodeProvider>
  );
}


/** Top centre, in a private match: its code, and the link that joins it, to share. */
function MatchCode({ code }: { code: string }): ReactNode {
  return (
    <div data-testid="match-code" style={codeBox}>
      private match — code <b>{code}</b> (or share this page's link)
    </div>
  );
}

/** Bottom left: a "tuning" button that loads and opens the leva panel (grenade config, ball switching); clicks and keys in it are not game input. */
function TuningCorner(): ReactNode {
  const [open, setOpen] = useState(false);
  return (
    <div style={tuningBox} onPointerDown={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()}>
      {open ? (
        <Suspense fallback={<span style={tuningButton}>loading tuning…</span>}>
          <TuningPanel />
        </Suspense>
      ) : (
        <button type="button" style={tuningButton} onClick={() => setOpen(true)}>
          tuning
        </button>
      )}
    </div>
  );
}

const tuningBox = { position: 'absolute', left: 8, bottom: 8, width: 300, zIndex: 11 } as const;
const tuningButton = { font: '12px system-ui, sans-serif', padding: '4px 10px', borderRadius: 4, border: 0, background: 'rgba(24, 28, 32, 0.85)', color: '#eee' } as const;
const codeBox = { position: 'absolute', bottom: 8, left: '50%', transform: 'translateX(-50%)', zIndex: 10, font: '13px system-ui, sans-serif', padding: '4px 10px', borderRadius: 4, background: 'rgba(24, 28, 32, 0.85)', color: '#eee' } as const;
const graphBox = { position: 'absolute', top: 8, left: 8, zIndex: 10, display: 'flex', flexDirection: 'column', gap: 2 } as const;
