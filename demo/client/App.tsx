// The demo app: a name form (the lobby: React alone, the page's first load), then one
// game session (Session.tsx), fetched lazily with everything it needs — three, R3F,
// the netcode and Rapier — from the first key typed in the name (at once for
// `?name=`). Leaving unmounts it, which disconnects; joining again mounts a new one.
import { lazy, Suspense, useState, type FormEvent, type ReactNode } from 'react';

const loadSession = () => import('./Session.tsx');
const Session = lazy(loadSession);

const NAME_KEY = 'react-netcode-demo:name';

export function App(): ReactNode {
  // `?name=ann` joins at once (links, tests, screenshots).
  const [name, setName] = useState<string | null>(() => new URLSearchParams(window.location.search).get('name')?.trim().slice(0, 16) || null);
  if (name === null) return <NameForm onSubmit={setName} />;
  return (
    <Suspense fallback={<div style={centered}>Loading the game…</div>}>
      <Session name={name} onLeave={() => setName(null)} />
    </Suspense>
  );
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
        <input autoFocus placeholder="your name" maxLength={16} value={value} onChange={(e) => {
            setValue(e.target.value);
            void loadSession(); // fetch the game while the name is typed: Play then waits less, or not at all
          }} style={input} />
        <button type="submit" disabled={value.trim().length === 0} style={button}>
          Play
        </button>
      </form>
    </div>
  );
}

const centered = { position: 'fixed', inset: 0, display: 'flex', alignItems: 'center', justifyContent: 'center' } as const;
const card = { background: '#2a2f36', padding: 24, borderRadius: 8, display: 'flex', flexDirection: 'column', gap: 8, width: 320 } as const;
const input = { font: 'inherit', padding: '8px 10px', borderRadius: 4, border: '1px solid #555', background: '#111', color: '#eee' } as const;
const button = { padding: '8px 10px', borderRadius: 4, border: 0, background: '#4caf50', color: '#fff' } as const;
