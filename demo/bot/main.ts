// Headless bot players for the demo server: `npm run bots -- [url] [count]` (default
// http://localhost:3000, 2 bots), or `node --import tsx demo/bot/main.ts`. Each bot is
// a netcode client without systems (it predicts nothing: the server simulates it like
// any player) over real socket.io; it decides its input 60 times a second from what it
// sees (demo/bot/brain.ts). BOT_BALLS=n makes the first bot drop balls until there are n.
// Bots matchmake like players: quick play (the fullest open match, or a new one), or with
// BOT_ROOM=CODE the private match of that code.
import { createClient } from '../../src/index.ts';
import { createMatchmakerClient, seatedTransport, type Seat } from '../../src/rooms/index.ts';
import { createSocketIoClientTransport } from '../../src/socket-io/index.ts';
import { protocol } from '../shared/protocol.ts';
import { decide } from './brain.ts';

const url = process.argv[2] ?? process.env.DEMO_URL ?? 'http://localhost:3000';
const count = Number(process.argv[3] ?? process.env.BOTS ?? 2);
const balls = Number(process.env.BOT_BALLS ?? 0);
const code = process.env.BOT_ROOM?.trim().toUpperCase() || undefined;
const matchmaker = createMatchmakerClient(`${url.replace(/\/+$/, '')}/matchmake`);
const FRAME_MS = 1000 / 60;
const KICK_EVERY_FRAMES = 10;

function startBot(index: number, seat: Seat): void {
  console.log(`bot ${index + 1} seated in room ${seat.roomId}`);
  const transport = seatedTransport(createSocketIoClientTransport(seat.url ?? url), seat);
  const client = createClient({ protocol, transport, now: () => performance.now() /* messages timestamped on arrival: the RTT measures the link, not the frame rate */, log: (level, message) => level !== 'debug' && console.log(`bot ${index}: ${message}`) });
  const decision = { move: { x: 0, y: 0 }, kick: false };
  let frame = 0;
  client.connect();
  let joined = false;
  client.events.on('status', ({ status }) => {
    if (status === 'connected' && !joined) {
      joined = true;
      client.join({ name: `bot ${index + 1}` });
    }
    if (status === 'in-game') console.log(`bot ${index + 1} in game (networkId ${client.networkId})`);
  });
  setInterval(() => {
    client.update(performance.now());
    if (client.status !== 'in-game' || client.networkId === undefined) return;
    frame++;
    decide(client.world, client.networkId, decision);
    client.input.current.move = decision.move;
    if (decision.kick && frame % KICK_EVERY_FRAMES === 0) client.input.press('kick');
    if (index === 0 && balls > 0 && frame % 15 === 0 && [...client.world.query('ball')].length < balls) client.input.press('spawnBall');
  }, FRAME_MS);
}

for (let i = 0; i < count; i++) {
  // One after the other, so that quick play seats them together (until the room is full).
  try {
    startBot(i, await (code === undefined ? matchmaker.joinOrCreate('arena') : matchmaker.joinByCode(code)));
  } catch (error) {
    console.error(`bot ${i + 1}: ${error instanceof Error ? error.message : String(error)} (is the demo server running at ${url}?)`);
    process.exit(1);
  }
}
console.log(`${count} bot(s) playing on ${url}${code === undefined ? '' : ` in the private match ${code}`}`);
