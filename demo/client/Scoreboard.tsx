// The match HUD, read from the `match` ghost at UI rate (5 times a second, never per
// frame): the score and clock at the top centre, the kickoff countdown, a goal banner,
// the results screen with the teams and a Rematch button, and a button to change team.
import { useEffect, useState, type ReactNode } from 'react';
import { matchOf, PHASE_KICKOFF, PHASE_RESULTS, TEAM_BLUE, TEAM_COLOURS, TEAM_NAMES, TEAM_RED, type Team } from '../shared/match.ts';
import { playerColour } from '../shared/systems.ts';
import { useConnection, useGhosts, useNetcode, useSendRpc } from './netcode.ts';
import { playGoal } from './sound.ts';

interface MatchView {
  phase: number;
  clock: number;
  red: number;
  blue: number;
  goals: number;
  lastGoalTeam: number;
}

const GOAL_BANNER_MS = 2500;

function useMatch(): MatchView | undefined {
  const { client } = useNetcode();
  const [view, setView] = useState<MatchView | undefined>(undefined);
  useEffect(() => {
    let seen = '';
    const id = setInterval(() => {
      const m = matchOf(client.world);
      if (m === undefined) return;
      const next = { phase: m.phase, clock: Math.ceil(m.clock), red: m.red, blue: m.blue, goals: m.goals, lastGoalTeam: m.lastGoalTeam };
      const key = JSON.stringify(next);
      if (key !== seen) {
        seen = key;
        setView(next);
      }
    }, 200);
    return () => clearInterval(id);
  }, [client]);
  return view;
}

const clockText = (s: number): string => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

export function Scoreboard(): ReactNode {
  const match = useMatch();
  const [goal, setGoal] = useState<{ team: number; at: number } | undefined>(undefined);
  const [goalsSeen, setGoalsSeen] = useState<number | undefined>(undefined);
  useEffect(() => {
    if (match === undefined) return undefined;
    if (goalsSeen !== undefined && match.goals > goalsSeen) {
      setGoal({ team: match.lastGoalTeam, at: performance.now() });
      playGoal();
    }
    setGoalsSeen(match.goals);
    return undefined;
  }, [match, goalsSeen]);
  useEffect(() => {
    if (goal === undefined) return undefined;
    const t = setTimeout(() => setGoal(undefined), GOAL_BANNER_MS);
    return () => clearTimeout(t);
  }, [goal]);
  if (match === undefined) return null;
  return (
    <>
      <div data-testid="scoreboard" style={board}>
        <span style={{ color: TEAM_COLOURS[TEAM_RED] }}>
          {TEAM_NAMES[TEAM_RED]} <span data-testid="score-red">{match.red}</span>
        </span>
        <span style={{ opacity: 0.9 }}>{match.phase === PHASE_RESULTS ? 'full time' : clockText(match.clock)}</span>
        <span style={{ color: TEAM_COLOURS[TEAM_BLUE] }}>
          <span data-testid="score-blue">{match.blue}</span> {TEAM_NAMES[TEAM_BLUE]}
        </span>
      </div>
      {match.phase === PHASE_KICKOFF && <div style={banner}>Kickoff in {Math.max(1, match.clock)}</div>}
      {goal !== undefined && match.phase !== PHASE_RESULTS && (
        <div data-testid="goal" style={{ ...banner, color: TEAM_COLOURS[goal.team as Team] ?? '#fff' }}>GOAL! {TEAM_NAMES[goal.team as Team] ?? ''}</div>
      )}
      {match.phase === PHASE_RESULTS && <Results match={match} />}
    </>
  );
}

function Results({ match }: { match: MatchView }): ReactNode {
  const rematch = useSendRpc('rematch');
  const players = useGhosts('player');
  const winner = match.red === match.blue ? 'A draw' : `${TEAM_NAMES[match.red > match.blue ? TEAM_RED : TEAM_BLUE]} wins`;
  return (
    <div data-testid="results" style={overlay} onPointerDown={(e) => e.stopPropagation()}>
      <div style={card}>
        <div style={{ fontSize: 22, fontWeight: 700 }}>{winner}</div>
        <div style={{ fontSize: 28, margin: '4px 0 12px' }}>
          <span style={{ color: TEAM_COLOURS[TEAM_RED] }}>{match.red}</span> – <span style={{ color: TEAM_COLOURS[TEAM_BLUE] }}>{match.blue}</span>
        </div>
        <div style={{ display: 'flex', gap: 24, justifyContent: 'center', textAlign: 'left' }}>
          {([TEAM_RED, TEAM_BLUE] as const).map((team) => (
            <div key={team}>
              <div style={{ color: TEAM_COLOURS[team], fontWeight: 600 }}>{TEAM_NAMES[team]}</div>
              {players.filter((p) => p.components.team === team).map((p) => (
                <div key={p.handle} style={{ color: playerColour(p.components.colour) }}>{p.components.name}</div>
              ))}
            </div>
          ))}
        </div>
        <button type="button" style={{ ...button, marginTop: 16 }} onClick={() => rematch({})}>
          Rematch
        </button>
        <div style={{ opacity: 0.7, fontSize: 12, marginTop: 6 }}>next match in {match.clock} s</div>
      </div>
    </div>
  );
}

/** "Switch team" under the scoreboard. */
export function TeamButton(): ReactNode {
  const switchTeam = useSendRpc('switchTeam');
  const { networkId } = useConnection();
  const players = useGhosts('player');
  const me = players.find((p) => p.owner === networkId);
  if (me === undefined) return null;
  const team = me.components.team as Team;
  return (
    <button type="button" style={{ ...button, ...teamButton, background: TEAM_COLOURS[team] ?? '#455a64' }} onPointerDown={(e) => e.stopPropagation()} onClick={() => switchTeam({})}>
      {TEAM_NAMES[team] ?? '?'} · switch
    </button>
  );
}

const board = {
  position: 'absolute', top: 8, left: '50%', transform: 'translateX(-50%)', zIndex: 12, display: 'flex', gap: 14, padding: '4px 14px',
  borderRadius: 6, background: 'rgba(0, 0, 0, 0.6)', font: '600 16px system-ui, sans-serif', whiteSpace: 'nowrap',
} as const;
const banner = {
  position: 'absolute', top: '28%', left: 0, right: 0, textAlign: 'center', zIndex: 12, pointerEvents: 'none',
  font: '800 40px system-ui, sans-serif', textShadow: '0 2px 6px rgba(0,0,0,0.7)',
} as const;
const overlay = { position: 'absolute', inset: 0, display: 'flex', alignItems: 'center', justifyContent: 'center', background: 'rgba(0,0,0,0.45)', zIndex: 19 } as const;
const card = { background: 'rgba(20, 24, 28, 0.92)', padding: 20, borderRadius: 8, minWidth: 260, textAlign: 'center' } as const;
const button = { padding: '6px 14px', borderRadius: 4, border: 0, background: '#4caf50', color: '#fff' } as const;
const teamButton = { position: 'absolute', top: 44, left: '50%', transform: 'translateX(-50%)', zIndex: 12, padding: '2px 10px', font: '12px system-ui, sans-serif' } as const;
