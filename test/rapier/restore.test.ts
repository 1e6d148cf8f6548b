// The in-place world restore (src/rapier/restore.ts): a world restored in place from its own
// snapshot steps exactly like one restored by World.restoreSnapshot, keeps the wrappers of
// the bodies it still has, frees what it replaced, and the adapter falls back to
// World.restoreSnapshot (with the same predicted results) where the layout check fails.
import RAPIER from '@dimforge/rapier3d-compat';
import { describe, expect, it, vi } from 'vitest';
import { isSnapshotTick, type InputValues, type Values } from '../../src/index.ts';
import { EngineWorld, SystemRunner } from '../../src/internals.ts';
import { createPhysics, type Rapier } from '../../src/rapier/index.ts';
import { capabilities } from '../../src/rapier/raw.ts';
import { hasInPlaceLayout, inPlaceRestores } from '../../src/rapier/restore-probes.ts';
import { restoreInPlace, roundTripBroadPhase, snapshotWith } from '../../src/rapier/restore.ts';
import { boxStart, HALF, sceneProtocol, sceneSystems } from './scene.ts';

await RAPIER.init();

const minor = Number(/^0\.(\d+)/.exec(RAPIER.version())?.[1] ?? 0);

const rng = (seed: number) => () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);

/** `n` boxes (0.5 m) in shifted layers of 5 × 5 on a floor, so the pile topples and its boxes touch. */
function pile(R: Rapier, n: number) {
  const world = new R.World({ x: 0, y: -9.81, z: 0 });
  world.timestep = 1 / 60;
  world.createCollider(R.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0));
  const handles: number[] = [];
  for (let i = 0; i < n; i++) {
    const layer = Math.floor(i / 25);
    const at = R.RigidBodyDesc.dynamic().setTranslation((i % 5) * 0.55 + layer * 0.13, 0.26 + layer * 0.52, Math.floor((i % 25) / 5) * 0.55 - layer * 0.07);
    const body = world.createRigidBody(at);
    world.createCollider(R.ColliderDesc.cuboid(0.25, 0.25, 0.25), body);
    handles.push(body.handle);
  }
  const kick = (r: () => number): void => {
    for (let k = 0; k < 10; k++) world.getRigidBody(handles[Math.floor(r() * handles.length)]!)?.applyImpulse({ x: r() - 0.5, y: 0.2, z: r() - 0.5 }, true);
  };
  return { world, handles, kick };
}

function state(b: RAPIER.RigidBody): number[] {
  const [t, q, l, a] = [b.translation(), b.rotation(), b.linvel(), b.angvel()];
  return [t.x, t.y, t.z, q.x, q.y, q.z, q.w, l.x, l.y, l.z, a.x, a.y, a.z];
}

/** Bodies whose 13 state numbers differ (Object.is) between the two worlds. */
function differing(a: RAPIER.World, b: RAPIER.World, handles: number[]): number {
  let n = 0;
  for (const h of handles) {
    const [sa, sb] = [state(a.getRigidBody(h)), state(b.getRigidBody(h))];
    if (sa.some((v, k) => !Object.is(v, sb[k]))) n++;
  }
  return n;
}

/** Every collider's contact partners, as one string. */
function contacts(world: RAPIER.World): string {
  const out: string[] = [];
  world.colliders.forEach((c) => {
    const with_: number[] = [];
    world.narrowPhase.contactPairsWith(c.handle, (o) => with_.push(o));
    out.push(`${c.handle}:${with_.sort((x, y) => x - y).join(',')}`);
  });
  return out.sort().join(' ');
}

const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

describe('in-place world restore', () => {
  it('is what the adapter uses on 0.19 (the layout check and the probe pass there)', () => {
    expect(inPlaceRestores(RAPIER)).toBe(minor === 19);
    expect(capabilities(RAPIER).inPlaceRestore).toBe(minor === 19);
  });

  it.runIf(minor === 19)('a world restored in place steps bit for bit like one restored by World.restoreSnapshot, contacts included', () => {
    const { world, handles, kick } = pile(RAPIER, 100);
    const warm = rng(7);
    for (let i = 0; i < 30; i++) {
      kick(warm);
      world.step();
    }
    const bytes = world.takeSnapshot();
    const copy = RAPIER.World.restoreSnapshot(bytes);
    // The live world runs on: 25 more kicked steps, one body removed, one body added.
    for (let i = 0; i < 25; i++) {
      kick(warm);
      world.step();
    }
    const kept = world.getRigidBody(handles[0]!);
    const added = world.createRigidBody(RAPIER.RigidBodyDesc.dynamic().setTranslation(8, 1, 8));
    world.createCollider(RAPIER.ColliderDesc.ball(0.3), added);
    const gone = handles[5]!;
    world.removeRigidBody(world.getRigidBody(gone));
    expect(differing(world, copy, handles.filter((h) => h !== gone))).toBeGreaterThan(50);

    restoreInPlace(RAPIER, world, bytes);

    expect(world.getRigidBody(handles[0]!)).toBe(kept); // the same wrapper, on the restored body set
    expect(world.getRigidBody(gone)?.handle).toBe(gone); // back, as in the snapshot
    expect(world.getRigidBody(gone).collider(0).parent()).toBe(world.getRigidBody(gone)); // its collider too, on the new wrapper
    expect(world.getRigidBody(added.handle)).toBeNull(); // not in the snapshot
    expect(world.bodies.len()).toBe(copy.bodies.len());
    expect(world.colliders.len()).toBe(copy.colliders.len());
    expect(world.getRigidBody(handles[3]!).collider(0).parent()).toBe(world.getRigidBody(handles[3]!));
    // (Rapier's bytes are not canonical: a restored world does not serialize to the bytes it came from.)
    expect(bytesEqual(world.takeSnapshot(), copy.takeSnapshot())).toBe(true);
    const touching = contacts(copy);
    expect(touching.split(' ').filter((s) => !s.endsWith(':')).length).toBeGreaterThan(60); // a pile in contact (measured: 82 of 101 colliders)
    expect(contacts(world)).toBe(touching);

    const [ra, rb] = [rng(99), rng(99)];
    let mismatches = 0;
    for (let i = 0; i < 120; i++) {
      kick(ra);
      for (let k = 0; k < 10; k++) copy.getRigidBody(handles[Math.floor(rb() * handles.length)]!).applyImpulse({ x: rb() - 0.5, y: 0.2, z: rb() - 0.5 }, true);
      world.step();
      copy.step();
      mismatches += differing(world, copy, handles);
    }
    expect(mismatches).toBe(0);
    expect(bytesEqual(world.takeSnapshot(), copy.takeSnapshot())).toBe(true);
    world.free();
    copy.free();
  });

  it.runIf(minor === 19)('does not make a restored world continue like the original on 0.19 (so recording keeps its round trip)', () => {
    // Two identical piles stay bit-identical; one of them restored in place from its own bytes
    // then drifts from the other, as a World.restoreSnapshot copy does (rapier#910).
    const a = pile(RAPIER, 200);
    const b = pile(RAPIER, 200);
    const [wa, wb] = [rng(7), rng(7)];
    for (let i = 0; i < 30; i++) {
      a.kick(wa);
      b.kick(wb);
      a.world.step();
      b.world.step();
    }
    expect(differing(a.world, b.world, a.handles)).toBe(0);
    restoreInPlace(RAPIER, b.world, b.world.takeSnapshot());
    let steps = 0;
    for (; steps < 60 && differing(a.world, b.world, a.handles) === 0; steps++) {
      a.kick(wa);
      b.kick(wb);
      a.world.step();
      b.world.step();
    }
    expect(differing(a.world, b.world, a.handles)).toBeGreaterThan(0);
    expect(capabilities(RAPIER).restoreContinues).toBe(false);
    a.world.free();
    b.world.free();
  });

  it.runIf(minor === 19)('records with the caller\'s gravity vector the bytes of takeSnapshot, and restores through reused wrappers that leave the classes as they were', () => {
    const a = pile(RAPIER, 50);
    const r = rng(5);
    for (let i = 0; i < 30; i++) {
      a.kick(r);
      a.world.step();
    }
    const gravity = RAPIER.VectorOps.intoRaw({ x: 0, y: 0, z: 0 });
    const bytes = snapshotWith(a.world, gravity)!;
    expect(bytesEqual(bytes, a.world.takeSnapshot())).toBe(true);
    const copy = RAPIER.World.restoreSnapshot(bytes);
    for (let k = 0; k < 3; k++) {
      for (let i = 0; i < 10; i++) a.world.step();
      restoreInPlace(RAPIER, a.world, bytes); // the first restore learns the classes, the next ones reuse their objects
      expect(bytesEqual(snapshotWith(a.world, gravity)!, copy.takeSnapshot())).toBe(true);
    }
    // Each part alternates between two objects of its class: none is built per restore.
    const raws = () => [a.world.bodies, a.world.colliders, a.world.broadPhase, a.world.narrowPhase, a.world.islands].map((p) => (p as unknown as { raw: object }).raw);
    const r0 = raws();
    restoreInPlace(RAPIER, a.world, bytes);
    const r1 = raws();
    restoreInPlace(RAPIER, a.world, bytes);
    expect(raws()).toEqual(r0);
    for (let i = 0; i < r0.length; i++) {
      expect(raws()[i]).toBe(r0[i]);
      expect(r1[i]).not.toBe(r0[i]);
    }
    expect(a.world.getRigidBody(a.handles[0]!).translation()).toEqual(copy.getRigidBody(a.handles[0]!).translation());
    // The classes wrap as before outside a restore: a new object per call, each freed on its own.
    const pipeline = a.world.serializationPipeline.raw as unknown as { deserializeAll(b: Uint8Array): { free(): void; __wbg_ptr: number } };
    const d1 = pipeline.deserializeAll(bytes);
    const d2 = pipeline.deserializeAll(bytes);
    expect(d1).not.toBe(d2);
    expect(d1.__wbg_ptr).not.toBe(d2.__wbg_ptr);
    d1.free();
    d2.free();
    const v1 = RAPIER.VectorOps.intoRaw({ x: 1, y: 2, z: 3 });
    expect(v1.x).toBe(1);
    v1.free();
    gravity.free();
    copy.free();
    const parts = raws() as { __wbg_ptr: number }[];
    a.world.free();
    for (const p of parts) expect(p.__wbg_ptr).toBe(0); // freed with the world: nothing left for the finalizer
  });

  it.runIf(minor === 19)('a round trip of the broad phase alone makes a world continue like one restored from its snapshot (what a recording needs on 0.19)', () => {
    // Snapshots after 1, 30 and 100 kicked steps of the 200-box pile, each compared over 120 kicked steps, bit for bit.
    // A twin of the pile that skips the round trip drifts from the restored copy within those steps (it is why a recording needs one).
    const donor = new RAPIER.World({ x: 0, y: 0, z: 0 });
    let drifted = 0;
    for (const after of [1, 30, 100]) {
      const [a, twin] = [pile(RAPIER, 200), pile(RAPIER, 200)];
      const [ra, rt] = [rng(after), rng(after)];
      for (let i = 0; i < after; i++) {
        a.kick(ra);
        twin.kick(rt);
        a.world.step();
        twin.world.step();
      }
      const bytes = a.world.takeSnapshot();
      const copy = RAPIER.World.restoreSnapshot(bytes);
      const gravity = RAPIER.VectorOps.intoRaw({ x: 0, y: 0, z: 0 });
      roundTripBroadPhase(RAPIER, a.world, donor, gravity);
      gravity.free();
      expect(bytesEqual(a.world.takeSnapshot(), copy.takeSnapshot())).toBe(true); // serialized alike (the BVH's pair map re-read)
      const [ka, kc, kt] = [rng(99), rng(99), rng(99)];
      const kickCopy = (r: () => number): void => {
        for (let k = 0; k < 10; k++) copy.getRigidBody(a.handles[Math.floor(r() * a.handles.length)]!).applyImpulse({ x: r() - 0.5, y: 0.2, z: r() - 0.5 }, true);
      };
      let differ = 0;
      let twinDiffers = false;
      for (let i = 0; i < 120; i++) {
        a.kick(ka);
        kickCopy(kc);
        twin.kick(kt);
        a.world.step();
        copy.step();
        twin.world.step();
        differ += differing(a.world, copy, a.handles);
        if (differing(twin.world, copy, a.handles) > 0) twinDiffers = true;
      }
      expect(differ).toBe(0);
      if (twinDiffers) drifted++;
      for (const w of [a.world, twin.world, copy]) w.free();
    }
    expect(drifted).toBeGreaterThanOrEqual(2);
    expect(capabilities(RAPIER).broadPhaseRoundTrip).toBe(true);
    donor.free();
  });

  it.runIf(minor === 19)('frees what it replaces: 1000 restores of a 100-box world leave the wasm memory as it was, and the world still steps', () => {
    const { world, handles, kick } = pile(RAPIER, 100);
    const r = rng(3);
    for (let i = 0; i < 20; i++) {
      kick(r);
      world.step();
    }
    const early = world.takeSnapshot();
    for (let i = 0; i < 20; i++) {
      kick(r);
      world.step();
    }
    const late = world.takeSnapshot();
    // Warm up (the wasm heap grows to what one restore needs), then measure.
    for (let i = 0; i < 20; i++) restoreInPlace(RAPIER, world, i % 2 ? early : late);
    const before = process.memoryUsage().external; // includes the wasm memory, which never shrinks
    for (let i = 0; i < 1000; i++) {
      restoreInPlace(RAPIER, world, i % 2 ? early : late);
      if (i % 10 === 0) world.step();
    }
    const grown = process.memoryUsage().external - before;
    // A leak of the replaced parts would be ≥ the snapshot's size per restore: ≥ 70 MB here.
    expect(early.length).toBeGreaterThan(60_000);
    expect(grown).toBeLessThan(4 << 20);
    restoreInPlace(RAPIER, world, late);
    const copy = RAPIER.World.restoreSnapshot(late);
    expect(bytesEqual(world.takeSnapshot(), copy.takeSnapshot())).toBe(true);
    for (let i = 0; i < 30; i++) {
      world.step();
      copy.step();
    }
    expect(differing(world, copy, handles)).toBe(0);
    expect(world.bodies.len()).toBe(100);
    world.free();
    copy.free();
  });
});

/** A Rapier module whose World has one member more than 0.19's (as a later version might): the layout check must refuse it. */
class WiderWorld extends RAPIER.World {
  futurePart: unknown = null;
}
const wider = { ...RAPIER, World: WiderWorld } as unknown as Rapier;

type P = typeof sceneProtocol;
type State = Values<P['ghosts']['box']['fields']>;

/** A smoothed client of the scene (player walking into 50 boxes) on module `R`, rolled back every 3rd tick. */
function client(R: Rapier) {
  const physics = createPhysics(R, {
    mode: 'smoothed',
    level: (world, M) => void world.createCollider(M.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0)),
    bodies: {
      player: { kind: 'character', collider: { capsule: [0.5, 0.3] } },
      box: { kind: 'dynamic', collider: { cuboid: [HALF, HALF, HALF] }, density: 1, friction: 0.5 },
    },
  });
  const world = new EngineWorld(sceneProtocol, { isServer: false, localNetworkId: 1 });
  world.add('player', 1, 1, 0, { position: { x: 0, y: 0.81, z: 0 } });
  for (let i = 0; i < 50; i++) world.add('box', 2 + i, 0, 0, { position: boxStart(i) });
  const input = sceneProtocol.input.defaults() as InputValues<P>;
  let current = 0;
  const runner = new SystemRunner(world, sceneSystems(physics), {
    seed: 1,
    input: () => {
      input.move.x = current < 120 ? 1 : -0.5;
      input.move.y = Math.sin(current / 20) * 0.8;
      return input;
    },
    allocateId: () => 0,
  });
  const ghosts = [...world.all()];
  const states: State[][] = [];
  const history: number[] = []; // every component number after every tick run, first predictions and resimulations
  const run = (t: number, isResimulating = false) => {
    current = t;
    runner.run('prediction', t, isResimulating ? { isResimulating } : undefined);
    states[t] = ghosts.map((g) => structuredClone(g.components) as State);
    for (const s of states[t]) {
      const { position: p, rotation: q, linvel: l, angvel: a } = s as State;
      if (q) history.push(p.x, p.y, p.z, q.x, q.y, q.z, q.w, l.x, l.y, l.z, a.x, a.y, a.z);
      else history.push(p.x, p.y, p.z);
    }
  };
  let rollbacks = 0;
  for (let t = 1; t <= 180; t++) {
    run(t);
    if (t % 3 !== 0 || t < 15) continue;
    let s = t - 4 - (rollbacks % 7);
    while (!isSnapshotTick(sceneProtocol, s)) s--;
    // The confirmed state: the prediction, except one box 1 mm off every other time (a misprediction to correct).
    ghosts.forEach((g, i) => Object.assign(g.components, structuredClone(states[s]![i]!)));
    if (rollbacks % 2 === 1) (ghosts[1 + (rollbacks % 50)]!.components as State).position.x += 0.001;
    rollbacks++;
    for (let u = s + 1; u <= t; u++) run(u, true);
  }
  const moved = ghosts.filter((g, i) => g.type === 'box' && Math.abs((g.components as State).position.x - boxStart(i - 1).x) > 0.05).length;
  const stats = physics.stats(world)!;
  physics.dispose(world);
  return { history, rollbacks, moved, stats };
}

describe('in-place restore in the adapter, and its fallback', () => {
  it('the layout check refuses a World with another layout, and a wrapper that does not point at its set', () => {
    expect(inPlaceRestores(wider)).toBe(false);
    expect(capabilities(wider).inPlaceRestore).toBe(false);
    const w = new RAPIER.World({ x: 0, y: -9.81, z: 0 });
    const body = w.createRigidBody(RAPIER.RigidBodyDesc.dynamic());
    const collider = w.createCollider(RAPIER.ColliderDesc.ball(0.5), body);
    expect(hasInPlaceLayout(w, body, collider)).toBe(minor === 19);
    delete (body as unknown as { rawSet?: unknown }).rawSet;
    expect(hasInPlaceLayout(w, body, collider)).toBe(false);
    w.free();
  });

  it.runIf(minor === 19)('a smoothed client predicts exactly the same with the in-place restore as with World.restoreSnapshot (forced fallback), rollbacks and corrections included', () => {
    const restores = vi.spyOn(RAPIER.World, 'restoreSnapshot');
    const inPlace = client(RAPIER);
    const inPlaceCalls = restores.mock.calls.length;
    const fallback = client(wider);
    const fallbackCalls = restores.mock.calls.length - inPlaceCalls;
    restores.mockRestore();

    expect(inPlace.rollbacks).toBe(56);
    expect(inPlace.moved).toBeGreaterThanOrEqual(5); // the player pushed boxes around
    expect(inPlace.stats.worldRestores).toBe(56); // every rollback restored a recorded world
    expect(fallback.stats).toEqual(inPlace.stats);
    // The in-place client called World.restoreSnapshot once (its capability probe); the fallback at every recording and rollback.
    expect(inPlaceCalls).toBe(1);
    expect(fallbackCalls).toBeGreaterThan(56 + 60);
    expect(inPlace.history.length).toBe(fallback.history.length);
    let differ = 0;
    for (let i = 0; i < inPlace.history.length; i++) if (!Object.is(inPlace.history[i], fallback.history[i])) differ++;
    expect(differ).toBe(0);
  });
});
