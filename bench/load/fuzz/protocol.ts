// The fuzzer's game: a protocol with every field kind in its input, join payload and
// RPCs (with bounds: min/max, maxLength, maxPerTick, enums, strings), systems that read
// every input field, and invariant checks on the server and the good client: whatever
// the fuzzer sends, no system, handler or replicated ghost may ever see a value outside
// its declared bounds. Violations are counted (the fuzzer's "state errors").
import { defineProtocol, defineSystems, field, ghost, rpc, system } from '../../../src/index.ts';
import type { Connection, Field, NetServer, Schema } from '../../../src/index.ts';
import type { SchemaCodec } from '../../../src/internals.ts';

export const fuzzProtocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost({
      pos: field.vec3({ quantize: 100 }),
      move: field.vec2({ quantize: 100 }),
      look: field.vec3(),
      aim: field.f32({ quantize: 1000 }),
      throttle: field.f32(),
      weapon: field.u8(),
      turn: field.i32(),
      facing: field.quat(),
      mode: field.enum(['walk', 'run', 'crouch']),
      shots: field.u32(),
      name: field.string(16),
    }),
    shot: ghost({ pos: field.vec3({ quantize: 100 }), life: field.u8() }, { modes: ['interpolated'] }),
  },
  input: {
    move: field.vec2({ quantize: 100, maxLength: 1 }),
    look: field.vec3({ maxLength: 2 }),
    aim: field.f32({ quantize: 1000, min: -3, max: 3 }),
    throttle: field.f32({ min: 0, max: 1 }),
    weapon: field.u8({ min: 1, max: 4 }),
    turn: field.i32({ min: -1000, max: 1000 }),
    slot: field.u16(),
    big: field.u32(),
    facing: field.quat(),
    mode: field.enum(['walk', 'run', 'crouch']),
    sprint: field.bool(),
    fire: field.event(),
    jump: field.event({ maxPerTick: 2 }),
  },
  join: {
    name: field.string(16),
    team: field.u8({ max: 1 }),
    color: field.enum(['red', 'green', 'blue']),
    spawn: field.vec2({ quantize: 10, maxLength: 50 }),
    token: field.string(64),
  },
  rpcs: {
    say: rpc.toServer({ text: field.string(100) }),
    aim: rpc.toServer({ dir: field.vec2({ quantize: 100, maxLength: 1 }), power: field.f32({ quantize: 10, min: 0, max: 5 }) }),
    buy: rpc.toServer({ item: field.enum(['sword', 'shield', 'potion']), count: field.u8({ min: 1, max: 10 }) }, { maxBytes: 4 }),
    blob: rpc.toServer({ data: field.string(2000) }, { maxBytes: 3000 }),
    ready: rpc.toServer({}),
    said: rpc.toClient({ from: field.u16(), text: field.string(100) }),
  },
});
export type FuzzProtocol = typeof fuzzProtocol;

/** Values outside their field's bounds seen where they must never be (by where). */
export const violations = { input: 0, join: 0, rpc: 0, examples: [] as string[] };

const LENGTH_SLACK = 1e-9;

/** A problem with `value` for `f` (type, finiteness, min/max, maxLength, enum), or null. */
export function outOfBounds(f: Field<unknown>, value: unknown): string | null {
  const problem = f.kind === 'event' ? (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= (f.maxPerTick ?? 32) ? null : `presses ${String(value)}`) : f.validate(value);
  if (problem !== null) return problem;
  const { min, max, maxLength } = f.options;
  if (typeof value === 'number' && ((min !== undefined && value < min) || (max !== undefined && value > max))) return `${value} outside ${String(min)}..${String(max)}`;
  if (maxLength !== undefined && typeof value === 'object' && value !== null) {
    const v = value as Record<string, number>;
    const len = Math.hypot(v.x!, v.y!, v.z ?? 0);
    if (len > maxLength * (1 + LENGTH_SLACK)) return `length ${len} over ${maxLength}`;
  }
  return null;
}

export function checkValues(where: keyof Omit<typeof violations, 'examples'>, codec: SchemaCodec<Schema>, values: Record<string, unknown>): void {
  for (const key of codec.keys) {
    const problem = outOfBounds(codec.schema[key]!, values[key]);
    if (problem === null) continue;
    violations[where]++;
    if (violations.examples.length < 10) violations.examples.push(`${where}.${key}: ${problem}`);
  }
}

export const fuzzSystems = defineSystems(fuzzProtocol, [
  system.shared('move', (world, ctx) => {
    for (const p of world.query('player')) {
      const i = ctx.input(p);
      if (ctx.isServer) checkValues('input', fuzzProtocol.input as unknown as SchemaCodec<Schema>, i as unknown as Record<string, unknown>);
      const c = p.components;
      c.pos.x = clampWorld(c.pos.x + i.move.x * (i.sprint ? 8 : 4) * ctx.dt);
      c.pos.z = clampWorld(c.pos.z + i.move.y * (i.sprint ? 8 : 4) * ctx.dt);
      c.pos.y = clampWorld(c.pos.y + i.jump * 0.1 - (c.pos.y > 0 ? 0.05 : 0));
      c.move.x = i.move.x;
      c.move.y = i.move.y;
      c.look.x = i.look.x;
      c.look.y = i.look.y;
      c.look.z = i.look.z;
      c.aim = i.aim;
      c.throttle = i.throttle;
      c.weapon = i.weapon;
      c.turn = i.turn;
      c.facing.x = i.facing.x;
      c.facing.y = i.facing.y;
      c.facing.z = i.facing.z;
      c.facing.w = i.facing.w;
      c.mode = i.mode;
    }
  }),
  system.server('fire', (world, ctx) => {
    for (const p of world.query('player')) {
      const presses = ctx.input(p).fire;
      p.components.shots = (p.components.shots + presses) >>> 0;
      // One short-lived shot per tick at most: spawns and despawns every tick, without a crowd of ghosts.
      if (presses > 0) ctx.spawn('shot', { pos: { x: p.components.pos.x, y: p.components.pos.y, z: p.components.pos.z }, life: 3 }, { owner: p.owner });
    }
    for (const s of world.query('shot')) if (--s.components.life <= 0) ctx.despawn(s);
  }),
]);

/** Positions stay inside ±100 km (quantize 100 fits int32 up to ±21,474 km). */
function clampWorld(v: number): number {
  return v > 1e5 ? 1e5 : v < -1e5 ? -1e5 : v;
}

/** Server side of the game: onJoin and RPC handlers that check what reaches them, a player per joined connection. */
export function fuzzServerOptions() {
  return {
    onJoin: (_c: Connection, payload: Record<string, unknown>) => {
      checkValues('join', fuzzProtocol.join as unknown as SchemaCodec<Schema>, payload);
      return payload.token === 'refuse-me' ? { reject: 'token refused' } : true;
    },
  };
}

export function attachFuzzHandlers(server: NetServer<FuzzProtocol>): void {
  server.events.on('join', (c) => server.spawn('player', { name: c.joinPayload?.name ?? '' }, { owner: c.networkId }));
  for (const entry of fuzzProtocol.rpcList) {
    if (entry.def.direction !== 'toServer') continue;
    server.onRpc(entry.name as 'say', (c, payload) => {
      checkValues('rpc', entry.codec, payload as unknown as Record<string, unknown>);
      if (entry.name === 'say') server.send(c, 'said', { from: c.networkId, text: (payload as { text: string }).text });
    });
  }
}
