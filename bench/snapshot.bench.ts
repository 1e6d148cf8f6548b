// Snapshot benchmark: bytes per client and encode time of react-netcode's snapshot
// encoder against @colyseus/schema (pre-quantized integers) and JSON, 1000 ghosts.
// Run through bench/run.ts; prints a table and, last, one `BENCH {json}` line.
import { performance } from 'node:perf_hooks';
import { createSchemaPeer } from './peers/colyseus.ts';
import { createJsonPeer } from './peers/json.ts';
import { createNetcodePeer } from './peers/netcode.ts';
import type { SnapshotPeer } from './peers/peer.ts';
import { World, type Motion } from './peers/world.ts';

const GHOSTS = 1000;
const CLIENTS = 32;
/** 60 Hz simulation, a snapshot every 3rd tick (20 Hz). */
const TICKS_PER_SNAPSHOT = 3;
const WARM_UP = 40;
const MEASURED = 100;
const SEED = 0x5eed;
const LOSS = 0.05;

type Result = { case: string; system: string } & Record<string, number | string | null>;

interface Case {
  name: string;
  motion: Motion;
  clients: number;
  /** Which systems run; the world is shared, so they see identical states. */
  peers: (world: World) => SnapshotPeer[];
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const all = (clients: number) => (world: World): SnapshotPeer[] => [
  createNetcodePeer(world, clients, { loss: 0, seed: SEED }),
  createSchemaPeer(world, clients, false),
  createJsonPeer(world, clients),
];

const CASES: Case[] = [
  { name: 'static', motion: 'static', clients: 1, peers: all(1) },
  { name: 'linear', motion: 'linear', clients: 1, peers: all(1) },
  { name: 'random', motion: 'random', clients: 1, peers: all(1) },
  { name: `clients ${CLIENTS}x${GHOSTS} linear`, motion: 'linear', clients: CLIENTS, peers: all(CLIENTS) },
  {
    name: `clients ${CLIENTS}x${GHOSTS} linear, ${LOSS * 100}% loss`,
    motion: 'linear',
    clients: CLIENTS,
    peers: (world) => [createNetcodePeer(world, CLIENTS, { loss: LOSS, seed: SEED })],
  },
  {
    name: `clients ${CLIENTS}x${GHOSTS} linear, schema StateView`,
    motion: 'linear',
    clients: CLIENTS,
    peers: (world) => [createSchemaPeer(world, CLIENTS, true)],
  },
];

interface Totals { bytes: number; encodeMs: number[]; otherMs: number }

/** One world, every system fed the same snapshots; the order rotates each snapshot so no system always runs first. */
function runCase(c: Case): Result[] {
  const world = new World(c.motion, GHOSTS, SEED);
  const peers = c.peers(world);
  const totals: Totals[] = peers.map(() => ({ bytes: 0, encodeMs: [], otherMs: 0 }));
  for (let n = 0; n < WARM_UP + MEASURED; n++) {
    const tick = (n + 1) * TICKS_PER_SNAPSHOT;
    world.step(tick);
    for (let k = 0; k < peers.length; k++) {
      const index = (n + k) % peers.length;
      const peer = peers[index]!;
      const sample = peer.snapshot(tick);
      peer.verify();
      if (n < WARM_UP) continue;
      const t = totals[index]!;
      for (const b of sample.bytes) t.bytes += b;
      t.encodeMs.push(sample.encodeMs);
      t.otherMs += sample.otherMs;
    }
  }
  return peers.map((peer, i) => {
    const t = totals[i]!;
    const perClient = t.bytes / (MEASURED * c.clients);
    return {
      case: c.name,
      system: peer.system,
      clients: c.clients,
      bytesPerClientPerSnapshot: round(perClient, 1),
      bytesPerEntity: round(perClient / GHOSTS, 3),
      encodeMsPerSnapshot: round(t.encodeMs.reduce((a, b) => a + b, 0) / MEASURED, 3),
      encodeMsMedian: round(median(t.encodeMs), 3),
      otherMsPerSnapshot: round(t.otherMs / MEASURED, 3),
    };
  });
}

/** react-netcode rows get their bytes and encode time relative to the schema row of the same case (the plain linear one for variants). */
function addRatios(results: Result[]): void {
  const schemaRow = (name: string): Result | undefined =>
    results.find((r) => r.system === '@colyseus/schema' && r.case === name) ??
    results.find((r) => r.system === '@colyseus/schema' && name.startsWith(r.case) && !r.case.includes('StateView'));
  for (const r of results) {
    if (r.system !== 'react-netcode') continue;
    const s = schemaRow(r.case);
    const rb = r.bytesPerClientPerSnapshot;
    const sb = s?.bytesPerClientPerSnapshot;
    r.ratioToSchema = typeof rb === 'number' && typeof sb === 'number' && sb > 0 ? round(rb / sb, 3) : null;
    const re = r.encodeMsPerSnapshot;
    const se = s?.encodeMsPerSnapshot;
    r.encodeRatioToSchema = typeof re === 'number' && typeof se === 'number' && se > 0 ? round(re / se, 2) : null;
  }
}

export async function run(): Promise<void> {
  const started = performance.now();
  const results: Result[] = [];
  for (const c of CASES) results.push(...runCase(c));
  addRatios(results);

  console.table(results.map(({ case: name, system, ...metrics }) => ({ case: name, system, ...metrics })));
  const find = (name: string, system: string): Result | undefined => results.find((r) => r.case === name && r.system === system);
  const linear = find('linear', 'react-netcode');
  const clientsName = `clients ${CLIENTS}x${GHOSTS} linear`;
  const rn32 = find(clientsName, 'react-netcode');
  const sc32 = find(clientsName, '@colyseus/schema');
  const ratio = linear?.ratioToSchema;
  console.log(`goal 1, linear bytes <= 1/3 of schema's: ${typeof ratio === 'number' ? `${ratio <= 1 / 3 ? 'MET' : 'MISSED'} (ratio ${ratio})` : 'n/a'}`);
  const e1 = rn32?.encodeMsPerSnapshot;
  const e2 = sc32?.encodeMsPerSnapshot;
  console.log(
    `goal 2, ${CLIENTS}-client total encode <= schema's: ${typeof e1 === 'number' && typeof e2 === 'number' ? `${e1 <= e2 ? 'MET' : 'MISSED'} (${e1} ms vs ${e2} ms per snapshot)` : 'n/a'}`,
  );
  const view = find(`clients ${CLIENTS}x${GHOSTS} linear, schema StateView`, '@colyseus/schema')?.encodeMsPerSnapshot;
  if (typeof view === 'number') console.log(`  (for reference, schema with one StateView per client: ${view} ms per snapshot)`);
  console.log(
    `${GHOSTS} ghosts, 60 Hz ticks, a snapshot every ${TICKS_PER_SNAPSHOT}rd tick; ${MEASURED} snapshots measured after ${WARM_UP} warm-up ones; every snapshot verified on one client.`,
  );
  console.log('encodeMs: all clients of the snapshot (schema: the shared patch once + discardChanges; JSON: diff + stringify once); otherMs: schema setters (change tracking), react-netcode acks.');
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'snapshot', results })}`);
}
