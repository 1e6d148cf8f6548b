// The starter's game on a plain 2D canvas, without React: the core client, a
// requestAnimationFrame loop and the keyboard. Seen from above: x right, z down.
import { createClient, type Ghost } from 'react-netcode';
import { createSocketIoClientTransport } from 'react-netcode/socket-io';
import { ARENA, colourOf, protocol, systems } from './shared.ts';

const canvas = document.querySelector('canvas')!;
const g = canvas.getContext('2d')!;
const hud = document.getElementById('hud')!;
const name = new URLSearchParams(location.search).get('name') ?? 'player';

const held = new Set<string>();
const client = createClient({
  protocol,
  systems,
  transport: createSocketIoClientTransport(location.origin),
  now: () => performance.now(), // messages are timestamped on arrival: RTT measures the network
  onInput: (input) => {
    // Called once per predicted tick: the move axes from the keys held (diagonals of length 1).
    const x = Number(held.has('KeyD')) - Number(held.has('KeyA'));
    const y = Number(held.has('KeyW')) - Number(held.has('KeyS'));
    const length = Math.hypot(x, y) || 1;
    input.move = { x: x / length, y: y / length };
  },
});
addEventListener('keydown', (e) => {
  held.add(e.code);
  if (e.code === 'Space' && !e.repeat) client.input.press('shoot'); // counted at the key press
});
addEventListener('keyup', (e) => held.delete(e.code));
addEventListener('blur', () => held.clear());

client.events.on('status', (state) => {
  if (state.status === 'connected') client.join({ name });
  // closeCode is for the logic, closeReason for people: a mismatch means a new build is deployed, so reload.
  if (state.closeCode === 'mismatch') hud.textContent = 'A new version is out: reload the page.';
  else if (state.status === 'closed') hud.textContent = `closed: ${state.closeReason ?? ''}`;
});
client.connect();

const scale = (): number => canvas.width / (ARENA * 2 + 2); // pixels per metre
const toScreen = (v: number): number => (v + ARENA + 1) * scale();

function draw(ghost: Ghost<typeof protocol>, size: number, colour: string): void {
  const { position } = client.view(ghost) as { position: { x: number; z: number } }; // the shown transform
  g.fillStyle = colour;
  g.fillRect(toScreen(position.x) - size / 2, toScreen(position.z) - size / 2, size, size);
}

function frame(now: number): void {
  client.update(now); // receive, predict the ticks due, interpolate the others
  g.fillStyle = '#556b2f';
  g.fillRect(0, 0, canvas.width, canvas.height);
  const players = [...client.world.query('player')];
  for (const p of players) draw(p, scale(), colourOf(p.components.colour));
  const balls = [...client.world.query('ball')];
  for (const b of balls) draw(b, scale() / 2, 'white');
  const status = client.state.status;
  const { predicted, matched } = client.spawns.stats; // balls this client predicted, and those the server confirmed
  Object.assign(hud.dataset, { status, players: players.length, balls: balls.length, predicted, matched });
  hud.textContent = `${name} · ${status} · ${players.length} players · balls predicted ${predicted}, matched ${matched} · WASD to move, Space to shoot`;
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
