// The game's server side, apart from HTTP and sockets (demo/server/main.ts) so that
// tests can run it on a Stepper: the config and match ghosts, the starting balls, a
// player per join (in the smaller team, in a colour of its palette, on a free kickoff spot
// of that team), and the `say`,
// `tune`, `rematch` and `switchTeam` RPCs. The match itself runs in the shared
// systems' server-only `match` system (demo/shared/systems.ts).
import type { NetServer } from '../../src/index.ts';
import { clampConfig, configOf, DEFAULT_CONFIG } from '../shared/config.ts';
import type { DemoProtocol } from '../shared/protocol.ts';
import { BALL_SPOTS, freeColour, freeKickoffSpot, KICKOFF_SECONDS, matchOf, PHASE_KICKOFF, PHASE_RESULTS, smallerTeam, TEAM_BLUE, TEAM_RED } from '../shared/match.ts';
import { BALL_RADIUS, placePlayer, PLAYER_CENTRE_Y } from '../shared/systems.ts';

export { BALL_SPOTS } from '../shared/match.ts';

export interface GameOptions {
  log?: (message: string) => void;
  /** Balls at start (default BALL_SPOTS). */
  balls?: readonly { x: number; z: number }[];
}

export function setupGame(server: NetServer<DemoProtocol>, options: GameOptions = {}): void {
  const log = options.log ?? (() => {});
  server.spawn('config', { ...DEFAULT_CONFIG });
  server.spawn('match', { phase: PHASE_KICKOFF, clock: KICKOFF_SECONDS, red: 0, blue: 0, goals: 0, lastGoalTeam: 0, round: 1 });
  for (const { x, z } of options.balls ?? BALL_SPOTS) server.spawn('ball', { position: { x, y: BALL_RADIUS, z } });

  server.events.on('join', (connection) => {
    server.send(connection, 'welcome', { players: server.connections.size });
    const name = (connection.joinPayload?.name ?? '').trim().slice(0, 16);
    // On a free kickoff spot of its team, whatever the phase: in its own half, facing the other goal.
    // Despawned automatically when the connection leaves for good.
    const team = smallerTeam(server.world);
    const colour = freeColour(server.world, team);
    const { x, z, facing } = freeKickoffSpot(server.world, team);
    server.spawn('player', { position: { x, y: PLAYER_CENTRE_Y + 0.02, z }, colour, name, facing, team }, { owner: connection.networkId });
    log(`player ${connection.networkId} joined as "${connection.joinPayload?.name ?? ''}"`);
  });
  server.events.on('leave', (connection, reason) => log(`player ${connection.networkId} left: ${reason}`));
  server.onRpc('say', (connection, { text }) => {
    server.broadcast('said', { from: connection.networkId, name: connection.joinPayload?.name ?? '', text });
  });
  // The results screen's Rematch: the next match starts at the next tick.
  server.onRpc('rematch', () => {
    for (const m of server.world.query('match')) if (m.components.phase === PHASE_RESULTS) m.components.clock = 0;
  });
  server.onRpc('switchTeam', (connection) => {
    for (const p of server.world.query('player')) {
      if (p.owner !== connection.networkId) continue;
      const team = p.components.team === TEAM_RED ? TEAM_BLUE : TEAM_RED;
      p.components.colour = freeColour(server.world, team);
      p.components.team = team;
      // During the kickoff the player crosses to a free kickoff spot of its new team.
      if (matchOf(server.world)?.phase === PHASE_KICKOFF) placePlayer(p, freeKickoffSpot(server.world, team, p));
    }
  });
  // Live tuning: any player may tune; every value is clamped to CONFIG_LIMITS and rounded as the wire rounds.
  server.onRpc('tune', (connection, requested) => {
    for (const config of server.world.query('config')) {
      Object.assign(config.components, clampConfig(requested, configOf(server.world)));
      log(`player ${connection.networkId} tuned ${JSON.stringify(config.components)}`);
    }
  });
}
