// @colyseus/schema peer for the snapshot benchmark: a MapSchema of flat Ghost schemas
// holding pre-quantized integers (int32 mm, int32 mm/s, uint8 + 3 × int16 smallest-three
// codes); one shared patch per snapshot, or per-client StateView patches in view mode.
import { performance } from 'node:perf_hooks';
import { Decoder, Encoder, StateView, schema, t, type SchemaType } from '@colyseus/schema';
import { mismatch, type SnapshotPeer, type SnapshotSample } from './peer.ts';
import { INTS, type World } from './world.ts';

// Field order = the INTS layout of World.ints.
const KEYS = ['px', 'py', 'pz', 'qi', 'qa', 'qb', 'qc', 'vx', 'vy', 'vz'] as const;

const Ghost = schema({
  px: t.int32(), py: t.int32(), pz: t.int32(),
  qi: t.uint8(), qa: t.int16(), qb: t.int16(), qc: t.int16(),
  vx: t.int32(), vy: t.int32(), vz: t.int32(),
}, 'Ghost');
type Ghost = SchemaType<typeof Ghost>;
const State = schema({ ghosts: t.map(Ghost) }, 'State');
type State = SchemaType<typeof State>;

// The same ghost with every field tagged `.view()`: only StateViews that added it receive it.
const ViewGhost = schema({
  px: t.int32().view(), py: t.int32().view(), pz: t.int32().view(),
  qi: t.uint8().view(), qa: t.int16().view(), qb: t.int16().view(), qc: t.int16().view(),
  vx: t.int32().view(), vy: t.int32().view(), vz: t.int32().view(),
}, 'ViewGhost');
type ViewGhost = SchemaType<typeof ViewGhost>;
const ViewState = schema({ ghosts: t.map(ViewGhost) }, 'ViewState');
type ViewState = SchemaType<typeof ViewState>;

type AnyGhost = Ghost | ViewGhost;

// The whole-state encode of 1000 ghosts is ~19 KB; size the shared buffer so it never regrows.
Encoder.BUFFER_SIZE = 256 * 1024;

function assign(ghost: AnyGhost, ints: Int32Array, o: number): void {
  ghost.px = ints[o]!;
  ghost.py = ints[o + 1]!;
  ghost.pz = ints[o + 2]!;
  ghost.qi = ints[o + 3]!;
  ghost.qa = ints[o + 4]!;
  ghost.qb = ints[o + 5]!;
  ghost.qc = ints[o + 6]!;
  ghost.vx = ints[o + 7]!;
  ghost.vy = ints[o + 8]!;
  ghost.vz = ints[o + 9]!;
}

/**
 * `views: false`: every client sees everything, so the one shared `encode()` patch is sent
 * to all clients (encoded once). `views: true`: every field is `.view()`-filtered and each
 * client has a StateView holding all ghosts, so each snapshot is the shared pass plus one
 * `encodeView` per client (the per-client work a filtered Colyseus room does).
 */
export function createSchemaPeer(world: World, clients: number, views: boolean): SnapshotPeer {
  const system = '@colyseus/schema';
  const state: State | ViewState = views ? new ViewState() : new State();
  const ghosts: AnyGhost[] = [];
  for (let i = 0; i < world.count; i++) {
    const ghost = views ? new ViewGhost() : new Ghost();
    assign(ghost, world.ints, i * INTS);
    ghosts.push(ghost);
    (state.ghosts as Map<string, AnyGhost>).set(String(i + 1), ghost);
  }
  const encoder = new Encoder(state);
  const stateViews: StateView[] = [];
  const it = { offset: 0 };
  const client: State | ViewState = views ? new ViewState() : new State();
  const decoder = new Decoder(client);

  // Join: the full state for every client (not measured); client 0 decodes it.
  encoder.encodeAll(it);
  if (views) {
    const sharedOffset = it.offset;
    for (let c = 0; c < clients; c++) {
      const view = new StateView();
      for (const ghost of ghosts) view.add(ghost);
      stateViews.push(view);
      it.offset = sharedOffset;
      const full = encoder.encodeAllView(view, sharedOffset, it);
      if (c === 0) decoder.decode(full);
    }
  } else decoder.decode(encoder.sharedBuffer.subarray(0, it.offset));
  // Everything so far is in the full state: later patches carry only changes.
  encoder.discardChanges();

  return {
    system,
    snapshot(): SnapshotSample {
      // Change tracking happens in the setters (a no-op for an unchanged value).
      let t0 = performance.now();
      const ints = world.ints;
      for (let i = 0; i < ghosts.length; i++) assign(ghosts[i]!, ints, i * INTS);
      const otherMs = performance.now() - t0;

      const bytes: number[] = [];
      let forClient0: Uint8Array;
      t0 = performance.now();
      it.offset = 0;
      const shared = encoder.encode(it);
      if (views) {
        const sharedOffset = it.offset;
        forClient0 = shared;
        for (let c = 0; c < clients; c++) {
          it.offset = sharedOffset;
          const payload = encoder.encodeView(stateViews[c]!, sharedOffset, it);
          bytes.push(payload.byteLength);
          if (c === 0) forClient0 = payload;
        }
      } else {
        forClient0 = shared;
        for (let c = 0; c < clients; c++) bytes.push(shared.byteLength); // one buffer, broadcast
      }
      const encodeMs = performance.now() - t0;
      decoder.decode(forClient0); // before discardChanges / the next encode reuse the shared buffer
      t0 = performance.now();
      encoder.discardChanges();
      return { bytes, encodeMs: encodeMs + (performance.now() - t0), otherMs };
    },
    verify(): void {
      const map = client.ghosts as Map<string, AnyGhost>;
      if (map.size !== world.count) throw mismatch(system, 'ghost count', world.count, map.size);
      for (let i = 0; i < world.count; i++) {
        const ghost = map.get(String(i + 1));
        if (ghost === undefined) throw mismatch(system, `ghost ${i + 1}`, 'a ghost', undefined);
        for (let k = 0; k < INTS; k++) {
          const key = KEYS[k]!;
          if (ghost[key] !== world.ints[i * INTS + k]) throw mismatch(system, `ghost ${i + 1}.${key}`, world.ints[i * INTS + k], ghost[key]);
        }
      }
    },
  };
}
