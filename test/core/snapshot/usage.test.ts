import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { SnapshotDecoder, SnapshotEncoder, type ConnectionSnapshotState, type SnapshotGhost } from '../../../src/core/snapshot/index.ts';
import type { KernelMode } from '../../../src/core/snapshot/kernels.ts';
import { BOX, EVERY, expected, makeGhost, protocol, randomBox } from './harness.ts';

type Ghost = SnapshotGhost & { values: Record<string, unknown> };

interface Scene {
  enc: SnapshotEncoder;
  state: ConnectionSnapshotState;
  dec: SnapshotDecoder;
  ghosts: Ghost[];
  tick: number;
  /** Move every ghost, encode the next snapshot (3 ticks on), decode and check it, ack it. */
  step(): void;
}

/** An encoder in the steady state (every ghost acked, moving) with the given kernels, and its client. */
function steadyScene(kernels: KernelMode): Scene {
  const rng = new Rng(21);
  const enc = new SnapshotEncoder(protocol, { budgetBytes: 60_000, kernels });
  const state = enc.createConnectionState(5);
  const dec = new SnapshotDecoder(protocol, 5);
  // Client 5 owns ghost 4.
  const ghosts = Array.from({ length: 20 }, (_, i) => makeGhost(i + 1, BOX, i === 3 ? 5 : 0, randomBox(rng))) as Ghost[];
  const scene: Scene = {
    enc,
    state,
    dec,
    ghosts,
    tick: 0,
    step() {
      scene.tick += 3;
      for (const g of ghosts) (g.values.position as { x: number }).x += 0.25;
      const s = dec.decode(enc.encode(state, scene.tick, ghosts))!;
      for (const g of [...s.spawns, ...s.updates]) {
        const truth = ghosts.find((x) => x.id === g.id)!;
        expect(g.values).toEqual(expected(protocol, truth.typeId, truth.owner, 5, truth.values));
      }
      enc.ack(state, dec.ackTick, dec.ackMask);
    },
  };
  for (let i = 0; i < 5; i++) scene.step();
  return scene;
}

describe('snapshot encoder usage errors', () => {
  for (const path of ['compiled', 'reference'] as const) {

    it(`rejects unsorted or duplicate ids and non-uint32 ids, then goes on as before (${path})`, () => {
      const s = steadyScene(path);
      const swapped = [...s.ghosts];
      [swapped[4], swapped[5]] = [swapped[5]!, swapped[4]!];
      expect(() => s.enc.encode(s.state, s.tick + 3, swapped)).toThrow(/react-netcode: snapshot ghosts must be sorted by id, unique uint32 ids; got 5 after 6/);
      const dup = [...s.ghosts.slice(0, 3), s.ghosts[2]!, ...s.ghosts.slice(3)];
      expect(() => s.enc.encode(s.state, s.tick + 4, dup)).toThrow(/sorted by id, unique uint32 ids; got 3 after 3/);
      const fractional = [...s.ghosts, { ...s.ghosts[0]!, id: 20.5 }];
      expect(() => s.enc.encode(s.state, s.tick + 5, fractional)).toThrow(/unique uint32 ids; got 20.5/);
      // The rejected calls left nothing half-done: the client goes on decoding exactly.
      s.tick += 5;
      for (let i = 0; i < 4; i++) s.step();
      expect(s.dec.ghostCount).toBe(20);
    });

    it(`rejects a ghost whose typeId or owner changed, naming the ghost (${path})`, () => {
      const s = steadyScene(path);
      const retyped = s.ghosts.map((g) => (g.id === 7 ? { ...g, typeId: EVERY } : g));
      expect(() => s.enc.encode(s.state, s.tick + 3, retyped)).toThrow(/react-netcode: ghost 7 changed its typeId or owner; they are immutable — forget\(7\) and spawn a new ghost/);
      const reowned = s.ghosts.map((g) => (g.id === 4 ? { ...g, owner: 6 } : g));
      expect(() => s.enc.encode(s.state, s.tick + 4, reowned)).toThrow(/ghost 4 changed its typeId or owner/);
      s.tick += 4;
      for (let i = 0; i < 4; i++) s.step();
      expect(s.dec.ghostCount).toBe(20);
    });

    it(`rejects a value its field cannot send, naming the field, and sends the ghost once it is fixed (${path})`, () => {
      const s = steadyScene(path);
      const g = s.ghosts[8]!;
      const good = g.values.position;
      g.values.position = { x: Number.NaN, y: 0, z: 0 };
      expect(() => s.enc.encode(s.state, s.tick + 3, s.ghosts)).toThrow(/position/);
      g.values.position = good;
      // Vectors and quaternions that are not objects.
      const { velocity, rotation } = g.values;
      g.values.velocity = null;
      expect(() => s.enc.encode(s.state, s.tick + 4, s.ghosts)).toThrow(/velocity/);
      g.values.velocity = velocity;
      g.values.rotation = 1;
      expect(() => s.enc.encode(s.state, s.tick + 5, s.ghosts)).toThrow(/rotation/);
      g.values.rotation = { x: 0, y: 0, z: 0, w: Number.POSITIVE_INFINITY };
      expect(() => s.enc.encode(s.state, s.tick + 6, s.ghosts)).toThrow(/rotation/);
      g.values.rotation = rotation;
      s.tick += 6;
      for (let i = 0; i < 4; i++) s.step();
      expect(s.dec.ghostCount).toBe(20);
    });
  }
});
