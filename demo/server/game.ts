// The game's server side, apart from HTTP and sockets (demo/server/main.ts) so that
// tests can run it on a Stepper: the config ghost, the starting balls, a player per
// join, and the `say` and `tune` RPCs.
import type { NetServer } from '../../src/index.ts';
import { clampConfig, configOf, DEFAULT_CONFIG } from '../shared/config.ts';
import type { DemoProtocol } from '../shared/protocol.ts';
import { BALL_RADIUS, colourForNetworkId, PLAYER_CENTRE_Y } from '../shared/systems.ts';

/** Balls round the centre at the start, at rest until something pushes them. */
export const BALL_SPOTS: readonly { x: number; z: number }[] = [
  { x: 0, z: 0 },
  { x: 6, z: -6 },
  { x: -6, z: -6 },
  { x: -5, z: 5 },
  { x: 0, z: 9 },
];

/** Spawn point of the player with this networkId: spread on a ring of 4 m, facing the centre. */
export function spawnPoint(networkId: number): { x: number; z: number; facing: number } {
  const angle = (networkId * 2.399963) % (2 * Math.PI);
  return { x: Math.sin(angle) * 4, z: Math.cos(angle) * 4, facing: angle + Math.PI };
}

export interface GameOptions {
  log?: (message: string) => void;
  /** Balls at start (default BALL_SPOTS). */
  balls?: readonly { x: number; z: number }[];
}

export function setupGame(server: NetServer<DemoProtocol>, options: GameOptions = {}): void {
  const log = options.log ?? (() => {});
  server.spawn('config', { ...DEFAULT_CONFIG });
  for (const { x, z } of options.balls ?? BALL_SPOTS) server.spawn('ball', { position: { x, y: BALL_RADIUS, z } });

  server.events.on('join', (connection) => {
    server.send(connection, 'welcome', { players: server.connections.size });
    const name = (connection.joinPayload?.name ?? '').trim().slice(0, 16);
    const { x, z, facing } = spawnPoint(connection.networkId);
    // Despawned automatically when the connection leaves for good.
    server.spawn('player', { position: { x, y: PLAYER_CENTRE_Y + 0.02, z }, colour: colourForNetworkId(connection.networkId), name, facing }, { owner: connection.networkId });
    log(`player ${connection.networkId} joined as "${connection.joinPayload?.name ?? ''}"`);
  });
  server.events.on('leave', (connection, reason) => log(`player ${connection.networkId} left: ${reason}`));
  server.onRpc('say', (connection, { text }) => {
    server.broadcast('said', { from: connection.networkId, name: connection.joinPayload?.name ?? '', text });
  });
  // Live tuning: any player may tune; every value is clamped to CONFIG_LIMITS and rounded as the wire rounds.
  server.onRpc('tune', (connection, requested) => {
    for (const config of server.world.query('config')) {
      Object.assign(config.components, clampConfig(requested, configOf(server.world)));
      log(`player ${connection.networkId} tuned ${JSON.stringify(config.components)}`);
    }
  });
}
