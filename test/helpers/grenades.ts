// The NFE grenade sample, shrunk for tests: players throw grenades with an InputEvent;
// grenades carry a spawnId (owner slot << 16 | press count); the fuse is not predicted
// (Infinity on clients); the server destroys them; clients count a one-shot effect.
import { defineProtocol, defineSystems, field, ghost, spawnIdClassifier, system, type SpawnClassifier } from '../../src/index.ts';

export function grenadeProtocol(classify?: SpawnClassifier) {
  return defineProtocol({
    tickRate: 60,
    snapshotRate: 20,
    ghosts: {
      player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted', 'interpolated'] }),
      grenade: ghost(
        {
          position: field.vec3({ quantize: 1000 }),
          velocity: field.vec3({ quantize: 1000 }),
          spawnId: field.u32(),
          fuse: field.f32({ replicated: false }),
        },
        classify ? { modes: ['predicted', 'interpolated'], classify } : { modes: ['predicted', 'interpolated'] },
      ),
    },
    input: { fire: field.event(), aim: field.f32({ quantize: 100 }) },
    join: { name: field.string(8) },
  });
}

export const withSpawnId = () => grenadeProtocol(spawnIdClassifier());
export type GrenadeProtocol = ReturnType<typeof grenadeProtocol>;

/** One-shot client effects (a "sound" per predicted throw), and how many were reverted. */
export const effects = { played: 0, reverted: 0 };

export function grenadeSystems(protocol: GrenadeProtocol) {
  return defineSystems(protocol, [
    system.shared('throw', (world, ctx) => {
      for (const p of world.query('player')) {
        const aim = ctx.input(p).aim;
        const ids = ctx.spawnIds(p, 'fire');
        for (let i = 0; i < ids.length; i++) {
          const g = ctx.spawn(
            'grenade',
            {
              position: { x: p.components.position.x, y: 1, z: 0 },
              velocity: { x: aim + i, y: 5, z: 10 },
              spawnId: ids[i]!,
              fuse: ctx.isServer ? 3 : Infinity, // not predicted: only the server explodes grenades
            },
            { owner: p.owner },
          );
          if (ctx.isClient && ctx.isFirstTimeFullyPredictingTick) {
            effects.played++;
            ctx.revertIfRejected(g, () => effects.reverted++);
          }
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
