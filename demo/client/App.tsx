// The demo app: the lobby (React and the HTTP matchmaking client alone: the page's first
// load) — a name, then quick play, a new private match (its code is shown in the game), a
// code to join, or one of the open matches with its player count — then one game session
// (Session.tsx) in the room of the seat the matchmaker gave, fetched lazily with everything it
// needs — three, R3F, the netcode and Rapier — from the first key typed in the name (at once
// for `?name=`). Leaving unmounts it, which disconnects; the lobby comes back.
// Links: `?name=ann` quick-plays at once; `?room=CODE` fills in the code (with `?name=` too:
// joins that private match at once); `?name=ann&private` creates a new private match at once.
import { lazy, Suspense, useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { MatchmakerProvider, useLobby, useMatchmaker } from 'react-netcode/react';
import { createMatchmakerClient } from 'react-netcode/rooms';

const loadSession = () => import('./Session.tsx');
const Session = lazy(loadSession);

const NAME_KEY = 'react-netcode-demo:name';
const ROOM_TYPE = 'arena';
const CODE_LENGTH = 6;

const query = (key: string): string | undefined => new URLSearchParams(window.location.search).get(key)?.trim() || undefined;

/** Puts `?room=CODE` in the address bar (a private match's link to share), or takes it out. */
function showRoomInUrl(code: string | undefined): void {
  const url = new URL(window.location.href);
  if (code === undefined) url.searchParams.delete('room');
  else url.searchParams.set('room', code);
  window.history.replaceState(null, '', url);
}

export function App(): ReactNode {
  const [matchmaker] = useState(() => createMatchmakerClient(`${window.location.origin}/matchmake`));
  return (
    <MatchmakerProvider matchmaker={matchmaker}>
      <Lobby />
    </MatchmakerProvider>
  );
}

function Lobby(): ReactNode {
  const mm = useMatchmaker();
  const [name, setName] = useState(() => query('name')?.slice(0, 16) ?? localStorage.getItem(NAME_KEY) ?? '');
  const [code, setCode] = useState(() => query('room')?.toUpperCase().slice(0, CODE_LENGTH) ?? '');
  const auto = useRef(query('name') !== undefined);
  const { joinOrCreate, joinByCode, create } = mm;
  useEffect(() => {
    // `?name=` joins at once (links, tests, screenshots): the code's private match, a new private one, or quick play.
    if (!auto.current) return;
    auto.current = false;
    void loadSession();
    if (code.length === CODE_LENGTH) void joinByCode(code);
    else if (new URLSearchParams(window.location.search).has('private')) void create(ROOM_TYPE, { private: true });
    else void joinOrCreate(ROOM_TYPE);
  }, [code, joinByCode, joinOrCreate, create]);
  useEffect(() => void (mm.seat && showRoomInUrl(mm.seat.code)), [mm.seat]);
  if (mm.seat !== undefined) {
    const leave = (): void => {
      setCode('');
      showRoomInUrl(undefined);
      mm.reset();
    };
    return (
      <Suspense fallback={<div style={centered}>Loading the game…</div>}>
        <Session name={name.trim().slice(0, 16)} seat={mm.seat} onLeave={leave} />
      </Suspense>
    );
  }
  const named = (then: () => unknown) => (): void => {
    if (name.trim().length === 0) return;
    localStorage.setItem(NAME_KEY, name.trim().slice(0, 16));
    void then();
  };
  const quickPlay = named(() => joinOrCreate(ROOM_TYPE));
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    quickPlay();
  };
  const ready = !mm.pending && name.trim().length > 0;
  return (
    <div style={centered}>
      <form onSubmit={submit} style={card}>
        <h1 style={{ margin: '0 0 12px', fontSize: 22 }}>react-netcode demo</h1>
        <p style={{ margin: '0 0 12px', opacity: 0.8 }}>WASD to move, Space to jump, right mouse or F to throw a grenade, B to drop a ball, E to kick it.</p>
        <input autoFocus placeholder="your name" maxLength={16} value={name} onChange={(e) => {
            setName(e.target.value);
            void loadSession(); // fetch the game while the name is typed: Play then waits less, or not at all
          }} style={input} />
        <button type="submit" disabled={!ready} style={button}>Quick play</button>
        <button type="button" disabled={!ready} style={secondary} onClick={named(() => mm.create(ROOM_TYPE, { private: true }))}>Create a private match</button>
        <div style={{ display: 'flex', gap: 8 }}>
          <input placeholder="code" aria-label="match code" maxLength={CODE_LENGTH} value={code} onChange={(e) => setCode(e.target.value.toUpperCase().trim())} style={{ ...input, flex: 1, minWidth: 0 }} />
          <button type="button" disabled={!ready || code.length !== CODE_LENGTH} style={secondary} onClick={named(() => joinByCode(code))}>Join by code</button>
        </div>
        {mm.pending && <p style={note}>Finding a seat…</p>}
        {mm.error !== undefined && <p role="alert" style={{ ...note, color: '#ff8a80' }}>{mm.error}</p>}
        <OpenRooms disabled={!ready} onJoin={(roomId) => named(() => mm.join(roomId))()} />
      </form>
    </div>
  );
}

/** The open (public) matches and their player counts, live (useLobby long-polls the server). */
function OpenRooms({ disabled, onJoin }: { disabled: boolean; onJoin: (roomId: string) => void }): ReactNode {
  const { rooms, loaded } = useLobby(ROOM_TYPE);
  const open = rooms.filter((r) => !r.locked);
  return (
    <div data-testid="open-rooms" style={{ marginTop: 8 }}>
      <div style={{ ...note, opacity: 0.8 }}>{!loaded ? 'Open matches: …' : open.length === 0 ? 'No open match yet: quick play starts one.' : 'Open matches:'}</div>
      {open.map((r) => (
        <div key={r.roomId} style={{ display: 'flex', alignItems: 'center', gap: 8, fontSize: 14 }}>
          <span style={{ flex: 1 }}>match {r.roomId.slice(0, 6)}</span>
          <span data-testid="room-players">{r.clients}/{r.maxClients}</span>
          <button type="button" disabled={disabled || r.clients >= r.maxClients} style={small} onClick={() => onJoin(r.roomId)}>Join</button>
        </div>
      ))}
    </div>
  );
}

const centered = { position: 'fixed', inset: 0, display: 'flex', alignItems: 'center', justifyContent: 'center' } as const;
const card = { background: '#2a2f36', padding: 24, borderRadius: 8, display: 'flex', flexDirection: 'column', gap: 8, width: 320 } as const;
const input = { font: 'inherit', padding: '8px 10px', borderRadius: 4, border: '1px solid #555', background: '#111', color: '#eee' } as const;
const button = { padding: '8px 10px', borderRadius: 4, border: 0, background: '#4caf50', color: '#fff' } as const;
const secondary = { ...button, background: '#3b6ea8' } as const;
const small = { ...secondary, padding: '2px 8px' } as const;
const note = { margin: 0, fontSize: 13 } as const;
