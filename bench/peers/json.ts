// JSON peer for the snapshot benchmark (a simplicity floor): each snapshot is
// JSON.stringify of [id, ...10 integers] for every ghost whose integers changed since
// the previous snapshot, encoded once and sent to every client (reliable, ordered).
import { performance } from 'node:perf_hooks';
import { mismatch, type SnapshotPeer, type SnapshotSample } from './peer.ts';
import { INTS, type World } from './world.ts';

export function createJsonPeer(world: World, clients: number): SnapshotPeer {
  const system = 'JSON';
  const sent = new Int32Array(world.ints); // what the clients have
  const mirror = new Int32Array(world.ints); // client 0's decoded state (the join sends the full state)
  const encoder = new TextEncoder();

  return {
    system,
    snapshot(): SnapshotSample {
      const t0 = performance.now();
      const ints = world.ints;
      const changed: number[][] = [];
      for (let i = 0, o = 0; i < world.count; i++, o += INTS) {
        let same = true;
        for (let k = 0; k < INTS; k++) {
          if (ints[o + k] !== sent[o + k]) { same = false; break; }
        }
        if (same) continue;
        const row = [i + 1];
        for (let k = 0; k < INTS; k++) row.push(ints[o + k]!);
        sent.set(ints.subarray(o, o + INTS), o);
        changed.push(row);
      }
      const payload = encoder.encode(JSON.stringify(changed));
      const encodeMs = performance.now() - t0;
      // Client 0 applies it (not timed).
      for (const row of JSON.parse(new TextDecoder().decode(payload)) as number[][]) {
        mirror.set(row.slice(1), (row[0]! - 1) * INTS);
      }
      return { bytes: new Array<number>(clients).fill(payload.byteLength), encodeMs, otherMs: 0 };
    },
    verify(): void {
      for (let i = 0; i < mirror.length; i++) {
        if (mirror[i] !== world.ints[i]) throw mismatch(system, `ghost ${Math.floor(i / INTS) + 1} integer ${i % INTS}`, world.ints[i], mirror[i]);
      }
    },
  };
}
