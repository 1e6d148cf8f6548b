// The demo app: a name form, then one NetcodeProvider session (scene + HUD + the
// leva tuning panel). The provider awaits Rapier's WASM (`init`) before connecting.
// Leaving unmounts the provider, which disconnects; joining again mounts a new one.
import RAPIER from '@dimforge/rapier3d-compat';
import { Leva } from 'leva';
import { useCallback, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { NetGraph } from 'react-netcode/react';
import type { ConditionedClientTransport } from 'react-netcode';
import { Hud } from './Hud.tsx';
import { NetcodeProvider } from './netcode.ts';
import { createDemoTransport, linkOptions, PRESETS, type Preset } from './network.ts';
import { Scene } from './Scene.tsx';
import { Tuning } from './Tuning.tsx';

const NAME_KEY = 'react-netcode-demo:name';
/** The 300 ms ± 50 ms preset with 10 % loss can delay a grenade's spawn record: give predicted grenades 0.5 s to be matched. */
const CLIENT_OPTIONS = { spawning: { graceTicks: 30 } };
/** Rapier's WASM, loaded once per page (the provider shows status 'loading' meanwhile). */
let rapierReady: Promise<void> | undefined;
const initPhysics = (): Promise<void> => (rapierReady ??= RAPIER.init());

export function App(): ReactNode {
  // `?name=ann` joins at once (links, tests, screenshots).
  const [name, setName] = useState<string | null>(() => new URLSearchParams(window.location.search).get('name')?.trim().slice(0, 16) || null);
  if (name === null) return <NameForm onSubmit={setName} />;
  return <Session name={name} onLeave={() => setName(null)} />;
}

function NameForm({ onSubmit }: { onSubmit: (name: string) => void }): ReactNode {
  const [value, setValue] = useState(() => localStorage.getItem(NAME_KEY) ?? '');
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const name = value.trim().slice(0, 16);
    if (name.length === 0) return;
    localStorage.setItem(NAME_KEY, name);
    onSubmit(name);
  };
  return (
    <div style={centered}>
      <form onSubmit={submit} style={card}>
        <h1 style={{ margin: '0 0 12px', fontSize: 22 }}>react-netcode demo</h1>
        <p style={{ margin: '0 0 12px', opacity: 0.8 }}>WASD to move, Space to jump, right mouse or F to throw a grenade, B to drop a ball, E to kick it.</p>
        <input autoFocus placeholder="your name" maxLength={16} value={value} onChange={(e) => setValue(e.target.value)} style={input} />
        <button type="submit" disabled={value.trim().length === 0} style={button}>
          Play
        </button>
      </form>
    </div>
  );
}

function Session({ name, onLeave }: { name: string; onLeave: () => void }): ReactNode {
  const transportRef = useRef<ConditionedClientTransport | null>(null);
  // `?preset=150` starts with that network preset (its id: none, 50, 150, 300).
  const [preset, setPreset] = useState<Preset>(() => PRESETS.find((p) => p.id === new URLSearchParams(window.location.search).get('preset')) ?? PRESETS[0]!);
  const presetRef = useRef(preset);
  const [showGraph, setShowGraph] = useState(true);
  const [showDebug, setShowDebug] = useState(false);
  const [prediction, setPrediction] = useState(true);
  const [smoothing, setSmoothing] = useState(true);
  // Called once, by the engine that connects (read at mount only).
  const transport = useCallback(() => {
    const t = createDemoTransport(presetRef.current);
    transportRef.current = t;
    return t;
  }, []);
  const choosePreset = (p: Preset): void => {
    presetRef.current = p;
    setPreset(p);
    transportRef.current?.setOptions(linkOptions(p));
  };
  return (
    <NetcodeProvider transport={transport} join={{ name }} clientOptions={CLIENT_OPTIONS} init={initPhysics}>
      <div style={{ position: 'fixed', inset: 0 }}>
        <Scene showDebug={showDebug} prediction={prediction} smoothing={smoothing} />
        <Tuning />
        {/* leva's panel, bottom left, collapsed until opened (its arrow); clicks and keys in it are not game input */}
        <div style={levaBox} onPointerDown={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()}>
          <Leva fill collapsed titleBar={{ title: 'tuning', filter: false }} />
        </div>
        {showGraph && <NetGraph style={{ top: 8, left: 8 }} />}
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

const levaBox = { position: 'absolute', left: 8, bottom: 8, width: 300, zIndex: 11 } as const;
const centered = { position: 'fixed', inset: 0, display: 'flex', alignItems: 'center', justifyContent: 'center' } as const;
const card = { background: '#2a2f36', padding: 24, borderRadius: 8, display: 'flex', flexDirection: 'column', gap: 8, width: 320 } as const;
const input = { font: 'inherit', padding: '8px 10px', borderRadius: 4, border: '1px solid #555', background: '#111', color: '#eee' } as const;
const button = { padding: '8px 10px', borderRadius: 4, border: 0, background: '#4caf50', color: '#fff' } as const;
