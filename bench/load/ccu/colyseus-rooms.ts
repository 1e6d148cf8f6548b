// CCU bench, server process side: the Colyseus peer (0.18, @colyseus/core + ws-transport from npm)
// running the same arena as react-netcode's rooms (arena.ts): a `players` map with the demo's
// player fields, BALLS balls and a config, all float32 (what a Colyseus game writes), stepped
// by the same functions at 60 Hz (`setSimulationInterval`) with each client's latest `input`
// message applied every tick, and patched at 20 Hz (`patchRate` 50 ms). R rooms in one process
// (Colyseus's own model), created before the clients come; client i joins room i / P by id.
// Timing per room: each simulation callback, plus the patch (`broadcastPatch`: encode + send to
// every client) that ran before it, is one tick sample — the work react-netcode does in a tick.
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { matchMaker, Room, Server, type Client } from '@colyseus/core';
import { schema, t, type SchemaType } from '@colyseus/schema';
import { WebSocketTransport } from '@colyseus/ws-transport';
import { BALLS, CONFIG, spawnPoint, stepBall, stepPlayer, TICK_RATE } from './arena.ts';
import { clearSamples, type CcuRooms, type RoomSamples } from './rooms.ts';

const Player = schema({ x: t.float32(), y: t.float32(), z: t.float32(), vy: t.float32(), grounded: t.boolean(), facing: t.float32(), colour: t.uint8(), name: t.string() }, 'Player');
type Player = SchemaType<typeof Player>;
const Ball = schema({ px: t.float32(), py: t.float32(), pz: t.float32(), qx: t.float32(), qy: t.float32(), qz: t.float32(), qw: t.float32(), lx: t.float32(), ly: t.float32(), lz: t.float32(), ax: t.float32(), ay: t.float32(), az: t.float32() }, 'Ball');
type Ball = SchemaType<typeof Ball>;
const Config = schema({ grenadeSpeed: t.float32(), fuse: t.float32(), blastRadiusSq: t.float32(), blastPower: t.float32(), verticalClamp: t.float32(), chainFuse: t.float32() }, 'Config');
const ArenaState = schema({ players: t.map(Player), balls: t.array(Ball), config: Config }, 'ArenaState');
type ArenaState = SchemaType<typeof ArenaState>;

/** What a client sends every frame: its stick and its jump presses so far (a running count, like react-netcode's events). */
export interface ColyseusInput {
  x: number;
  y: number;
  jump: number;
}

interface Held {
  input: ColyseusInput;
  lastJump: number;
  /** Mutable views for stepPlayer. */
  state: { position: { x: number; y: number; z: number }; vy: number; grounded: boolean; facing: number };
}

const rooms = new Map<string, ArenaRoom>();

class ArenaRoom extends Room<{ state: ArenaState }> {
  readonly samples: RoomSamples = { tickMs: [], tickCpuMs: [], ticks: 0, inputs: 0, missing: 0, clients: 0, ownP99Ms: null };
  private readonly held = new Map<string, Held>();
  private tick = 0;
  private pendingPatchMs = 0;
  private pendingPatchCpuMs = 0;

  override onCreate(options: { players: number }): void {
    this.maxClients = options.players;
    this.autoDispose = false;
    this.patchRate = 1000 / 20;
    const state = new ArenaState();
    Object.assign(state.config, CONFIG);
    for (let i = 0; i < BALLS; i++) state.balls.push(new Ball());
    this.state = state;
    this.onMessage('input', (client: Client, input: ColyseusInput) => {
      const h = this.held.get(client.sessionId);
      if (h === undefined || typeof input?.x !== 'number' || typeof input.y !== 'number' || typeof input.jump !== 'number') return;
      h.input = input;
      this.samples.inputs++;
    });
    this.setSimulationInterval(() => this.step(), 1000 / TICK_RATE);
    rooms.set(this.roomId, this);
  }

  override onJoin(client: Client, options: { name?: string }): void {
    const { x, z, facing } = spawnPoint(this.held.size + 1);
    const p = new Player();
    Object.assign(p, { x, y: 0.92, z, vy: 0, grounded: true, facing, colour: this.held.size % 8, name: String(options?.name ?? '').slice(0, 16) });
    this.state.players.set(client.sessionId, p);
    this.held.set(client.sessionId, { input: { x: 0, y: 0, jump: 0 }, lastJump: 0, state: { position: { x, y: 0.92, z }, vy: 0, grounded: true, facing } });
    this.samples.clients = this.held.size;
  }

  override onLeave(client: Client): void {
    this.state.players.delete(client.sessionId);
    this.held.delete(client.sessionId);
    this.samples.clients = this.held.size;
  }

  override broadcastPatch(): boolean {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const sent = super.broadcastPatch();
    const used = process.cpuUsage(cpu);
    this.pendingPatchMs += performance.now() - started;
    this.pendingPatchCpuMs += (used.user + used.system) / 1000;
    return sent;
  }

  private step(): void {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const dt = 1 / TICK_RATE;
    for (const [id, h] of this.held) {
      const jumps = h.input.jump - h.lastJump;
      h.lastJump = h.input.jump;
      stepPlayer(h.state, h.input.x, h.input.y, jumps, dt);
      const p = this.state.players.get(id);
      if (p === undefined) continue;
      p.x = h.state.position.x;
      p.y = h.state.position.y;
      p.z = h.state.position.z;
      p.vy = h.state.vy;
      p.grounded = h.state.grounded;
      p.facing = h.state.facing;
    }
    this.state.balls.forEach((b: Ball, i: number) => stepBallInto(b, i, this.tick));
    this.tick++;
    this.samples.ticks++;
    const used = process.cpuUsage(cpu);
    this.samples.tickMs.push(performance.now() - started + this.pendingPatchMs);
    this.samples.tickCpuMs.push((used.user + used.system) / 1000 + this.pendingPatchCpuMs);
    this.pendingPatchMs = this.pendingPatchCpuMs = 0;
  }
}

const ball = { position: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 }, linvel: { x: 0, y: 0, z: 0 }, angvel: { x: 0, y: 0, z: 0 } };
function stepBallInto(b: Ball, i: number, tick: number): void {
  stepBall(ball, i, tick);
  b.px = ball.position.x;
  b.py = ball.position.y;
  b.pz = ball.position.z;
  b.qx = ball.rotation.x;
  b.qy = ball.rotation.y;
  b.qz = ball.rotation.z;
  b.qw = ball.rotation.w;
  b.lx = ball.linvel.x;
  b.ly = ball.linvel.y;
  b.lz = ball.linvel.z;
  b.ax = ball.angvel.x;
  b.ay = ball.angvel.y;
  b.az = ball.angvel.z;
}

/** A Colyseus server on 127.0.0.1 with `roomCount` arena rooms of `players` seats, created now. */
export async function startColyseusRooms(roomCount: number, players: number): Promise<CcuRooms> {
  const http = createHttpServer();
  const server = new Server({ transport: new WebSocketTransport({ server: http }), greet: false, gracefullyShutdown: false } as ConstructorParameters<typeof Server>[0]);
  server.define('arena', ArenaRoom);
  await server.listen(0, '127.0.0.1');
  const port = (http.address() as AddressInfo).port;
  const ids: string[] = [];
  for (let i = 0; i < roomCount; i++) ids.push((await matchMaker.createRoom('arena', { players })).roomId);
  return {
    endpoints: ids.map((room) => ({ url: `ws://127.0.0.1:${port}`, room })),
    mark: () => ids.forEach((id) => clearSamples(rooms.get(id)!.samples)),
    samples: () => ids.map((id) => ({ ...rooms.get(id)!.samples })),
    http: [http],
    async stop() {
      for (const id of ids) rooms.delete(id);
      await server.gracefullyShutdown(false);
    },
  };
}
