// A lone player at a given frame rate over a bad link, for the frame-rate tests: it
// walks (deterministic movement), jumps (an InputEvent) and throws grenades (predicted
// spawns matched by spawnId), while we count, on both sides, every press and every
// grenade, and check at every client frame that no grenade exists twice.
import { defineProtocol, defineSystems, field, ghost, spawnId, spawnIdClassifier, system, type Logger } from '../../src/index.ts';
import { createRng } from '../../src/core/rng.ts';
import { createStepper, type LinkOptions, type StepperClient } from '../../src/testing/index.ts';

export const frameProtocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }), jumps: field.u32(), throws: field.u32() }, { modes: ['predicted', 'interpolated'] }),
    grenade: ghost(
      { position: field.vec3({ quantize: 1000 }), velocity: field.vec3({ quantize: 1000 }), spawnId: field.u32(), fuse: field.f32({ replicated: false }) },
      { modes: ['predicted', 'interpolated'], classify: spawnIdClassifier() },
    ),
  },
  input: { move: field.vec2({ quantize: 100, maxLength: 1 }), jump: field.event(), fire: field.event() },
  join: { name: field.string(8) },
});

/** Presses as the server's systems and the client's first-time prediction saw them. */
export interface PressCounts {
  server: { jump: number; fire: number };
  client: { jump: number; fire: number };
}

export function frameSystems(counts: PressCounts) {
  return defineSystems(frameProtocol, [
    system.shared('walk', (world, ctx) => {
      for (const p of world.query('player')) {
        const input = ctx.input(p);
        p.components.position.x += input.move.x * 4 * ctx.dt;
        p.components.position.z += input.move.y * 4 * ctx.dt;
        p.components.jumps += input.jump;
        const side = ctx.isServer ? counts.server : ctx.isFirstTimeFullyPredictingTick ? counts.client : undefined;
        if (side) {
          side.jump += input.jump;
          side.fire += input.fire;
        }
        for (let i = 0; i < input.fire; i++) {
          p.components.throws++;
          const pos = p.components.position;
          ctx.spawn(
            'grenade',
            { position: { x: pos.x, y: 1, z: pos.z }, velocity: { x: 2, y: 4, z: 6 }, spawnId: spawnId(p.owner, p.components.throws), fuse: ctx.isServer ? 2 : Infinity },
            { owner: p.owner },
          );
        }
      }
    }),
    system.shared('fly', (world, ctx) => {
      for (const g of world.query('grenade')) {
        const v = g.components.velocity;
        g.components.position.x += v.x * ctx.dt;
        g.components.position.y = Math.max(0, g.components.position.y + v.y * ctx.dt);
        g.components.position.z += v.z * ctx.dt;
        v.y -= 9.8 * ctx.dt;
        g.components.fuse -= ctx.dt;
      }
    }),
    system.server('explode', (world, ctx) => {
      for (const g of world.query('grenade')) if (g.components.fuse <= 0) ctx.despawn(g);
    }),
  ]);
}

export interface FrameRunOptions {
  fps: number;
  /** Frame-time variation (± fraction of the period). */
  frameJitter?: number;
  link?: LinkOptions;
  seconds: number;
  seed?: number;
  /** Stall the client's thread (or the server's) for these many ms at these seconds into the run. */
  stalls?: readonly { atSecond: number; ms: number; server?: boolean }[];
  log?: Logger;
  /** Called once the player is in game, before the measured run (to attach listeners). */
  onReady?: (c: StepperClient<typeof frameProtocol>, s: ReturnType<typeof createStepper<typeof frameProtocol>>) => void;
}

export interface FrameRunResult {
  presses: { jump: number; fire: number };
  counts: PressCounts;
  /** Client frames at which some spawnId existed twice. */
  doubled: number;
  /** Our grenades that reached the client from a snapshot without a predicted twin (a pop-in). */
  popIns: number;
  matched: number;
  rejected: number;
  corrections: number;
  causes: Record<string, number>;
  inputs: { missing: number; late: number };
  skippedTicks: number;
  frames: number;
  /** Server ticks dropped by its catch-up clamp. */
  serverDroppedTicks: number;
  c: StepperClient<typeof frameProtocol>;
}

const quiet: Logger = () => {};

/** Join, settle 3 s, then play for `seconds` of true time; returns what both sides saw. */
export function frameRun(o: FrameRunOptions): FrameRunResult {
  const counts: PressCounts = { server: { jump: 0, fire: 0 }, client: { jump: 0, fire: 0 } };
  const link = o.link;
  const s = createStepper({
    protocol: frameProtocol,
    systems: frameSystems(counts),
    seed: o.seed ?? 7,
    log: o.log ?? quiet,
    clients: [{ clock: { framePeriodMs: 1000 / o.fps, frameJitter: o.frameJitter ?? 0 }, ...(link ? { link: { up: link, down: link } } : {}) }],
  });
  s.server.events.on('join', (c) => s.server.spawn('player', {}, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  const c = s.clients[0]!;
  const client = c.client;
  s.until(() => client.world.size === 1 && client.prediction!.lastTick !== undefined, 10_000, 'prediction to start');
  s.advance(3000); // clock sync, slack and interpolation delay settle
  counts.server.jump = counts.server.fire = counts.client.jump = counts.client.fire = 0;
  o.onReady?.(c, s);
  const corrections0 = client.corrections.total;
  const connection = s.server.connections.get(client.networkId!)!;
  const inputs0 = { ...s.server.inputStats(connection)! };
  let popIns = 0;
  const spawns0 = { ...client.spawns.stats };
  client.ghosts.events.on('spawn', (g) => {
    if (g.type === 'grenade' && g.owner === client.networkId && g.origin === 'snapshot') popIns++;
  });
  const rng = createRng(o.seed ?? 7, 0xa11);
  const presses = { jump: 0, fire: 0 };
  const stalls = [...(o.stalls ?? [])].sort((a, b) => a.atSecond - b.atSecond);
  let doubled = 0;
  const start = s.now;
  let nextChange = 0;
  let nextFire = 1000;
  let nextJump = 1700;
  const frameMs = 1000 / o.fps;
  const frames0 = c.frames;
  while (s.now - start < o.seconds * 1000) {
    const t = s.now - start;
    if (t >= nextChange) {
      // A new direction every 0.5–3 s, on the wire's 0.01 grid; sometimes standing still.
      const a = rng.range(0, 2 * Math.PI);
      const still = rng.chance(0.15);
      client.input.current.move = still ? { x: 0, y: 0 } : { x: Math.round(Math.cos(a) * 100) / 100, y: Math.round(Math.sin(a) * 100) / 100 };
      nextChange = t + rng.range(500, 3000);
    }
    if (t >= nextFire) {
      client.input.press('fire');
      presses.fire++;
      nextFire = t + rng.range(700, 2500);
    }
    if (t >= nextJump) {
      client.input.press('jump');
      presses.jump++;
      nextJump = t + rng.range(300, 2000);
    }
    if (stalls.length > 0 && t >= stalls[0]!.atSecond * 1000) {
      const stall = stalls.shift()!;
      s.stall(stall.server ? s.serverPeer : c, stall.ms);
    }
    s.advance(frameMs);
    const ids = [...client.world.query('grenade')].map((g) => g.components.spawnId);
    if (new Set(ids).size !== ids.length) doubled++;
  }
  client.input.current.move = { x: 0, y: 0 };
  s.advance(3000); // the last presses reach the server and their snapshots come back
  const stats = s.server.inputStats(connection)!;
  return {
    presses,
    counts,
    doubled,
    popIns,
    matched: client.spawns.stats.matched - spawns0.matched,
    rejected: client.spawns.stats.rejected - spawns0.rejected,
    corrections: client.corrections.total - corrections0,
    causes: Object.fromEntries(Object.entries(client.corrections.byCause).filter(([, n]) => n > 0)),
    inputs: { missing: stats.missing - inputs0.missing, late: stats.late - inputs0.late },
    skippedTicks: client.prediction!.stats.skippedTicks,
    frames: c.frames - frames0,
    serverDroppedTicks: s.server.stats.droppedTicks,
    c,
  };
}
