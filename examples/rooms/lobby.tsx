// The rooms example's client: a lobby (quick play, create a private match, join by code, the
// open rooms with their player counts), then the game of the seat it got. Mount <App url=…/>.
import { useState, type ReactNode } from 'react';
import { createNetcode, MatchmakerProvider, useLobby, useMatchmaker } from 'react-netcode/react';
import { createMatchmakerClient, seatedTransport, type Seat } from 'react-netcode/rooms';
import { createSocketIoClientTransport } from 'react-netcode/socket-io';
import { protocol, systems } from './shared.ts';

const { NetcodeProvider, useConnection, useGhosts } = createNetcode(protocol, systems);

export function App({ url }: { url: string }): ReactNode {
  const [matchmaker] = useState(() => createMatchmakerClient(`${url}/matchmake`));
  return (
    <MatchmakerProvider matchmaker={matchmaker}>
      <Lobby />
    </MatchmakerProvider>
  );
}

function Lobby(): ReactNode {
  const { seat, pending, error, joinOrCreate, create, joinByCode, join, reset } = useMatchmaker();
  const { rooms } = useLobby('arena');
  const [code, setCode] = useState('');
  if (seat) return <Game seat={seat} onLeave={reset} />;
  return (
    <div>
      <button disabled={pending} onClick={() => void joinOrCreate('arena')}>Quick play</button>
      <button disabled={pending} onClick={() => void create('arena', { private: true })}>Create a private match</button>
      <input value={code} onChange={(e) => setCode(e.target.value)} placeholder="code" maxLength={6} />
      <button disabled={pending || code.length !== 6} onClick={() => void joinByCode(code)}>Join by code</button>
      {error && <p role="alert">{error}</p>}
      <ul>
        {rooms.map((r) => (
          <li key={r.roomId}>
            {r.roomId}: {r.clients}/{r.maxClients}{' '}
            <button disabled={pending || r.clients >= r.maxClients} onClick={() => void join(r.roomId)}>Join</button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Game({ seat, onLeave }: { seat: Seat; onLeave: () => void }): ReactNode {
  return (
    <NetcodeProvider key={seat.token} transport={() => seatedTransport(createSocketIoClientTransport(seat.url!), seat)} join={{ name: 'player' }}>
      {seat.code && <p>Private match: share the code {seat.code}</p>}
      <Status onLeave={onLeave} />
    </NetcodeProvider>
  );
}

function Status({ onLeave }: { onLeave: () => void }): ReactNode {
  const { status, closeCode, closeReason } = useConnection();
  const players = useGhosts('player');
  return (
    <p>
      {status} — {players.length} players {closeReason && `(${closeReason})`}{' '}
      {closeCode === 'mismatch' ? <button onClick={() => location.reload()}>Reload: a new version is out</button> : <button onClick={onLeave}>Back to the lobby</button>}
    </p>
  );
}
