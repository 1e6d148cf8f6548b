// Snapshot benchmark: bytes per client, encode time and total server cost per snapshot
// of react-netcode's snapshot encoder against @colyseus/schema (pre-quantized integers)
// and JSON, 1000 ghosts, 1 or 32 clients (acking at once, after their round-trip times,
// or over a lossy link). Run through bench/run.ts; prints a table, the goals and, last,
// one `BENCH {json}` line.
import { performance } from 'node:perf_hooks';
import { createSchemaPeer } from './peers/colyseus.ts';
import { createJsonPeer } from './peers/json.ts';
import { createNetcodePeer, type NetcodePeerOptions } from './peers/netcode.ts';
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
/** Round-trip times of the RTT-spread case's clients, spread evenly (ms). */
const RTT_MS = [20, 250] as const;

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

/** The encoder as configured by default (ack ladder [1, 2, 5]) and, interleaved in the same case, without the ladder. */
const LADDER_OFF = 'react-netcode, ackLadder off';
const withLadderOff = (world: World, options: NetcodePeerOptions): SnapshotPeer[] => [
  createNetcodePeer(world, CLIENTS, options),
  createNetcodePeer(world, CLIENTS, { ...options, ackLadder: false, system: LADDER_OFF }),
];
/** The same, and an encoder with `mergeBehind: false` (clients behind a loss encode alone until back in step). */
const MERGE_BEHIND_OFF = 'react-netcode, mergeBehind off';
const withMergeBehindOff = (world: World, options: NetcodePeerOptions): SnapshotPeer[] => [
  ...withLadderOff(world, options),
  createNetcodePeer(world, CLIENTS, { ...options, mergeBehind: false, system: MERGE_BEHIND_OFF }),
];

const IDEAL = `clients ${CLIENTS}x${GHOSTS} linear`;
const RTT = `${IDEAL}, RTT ${RTT_MS[0]}-${RTT_MS[1]} ms`;
const LOSSY = `${IDEAL}, ${LOSS * 100}% loss`;

const CASES: Case[] = [
  { name: 'static', motion: 'static', clients: 1, peers: all(1) },
  { name: 'linear', motion: 'linear', clients: 1, peers: all(1) },
  { name: 'random', motion: 'random', clients: 1, peers: all(1) },
  { name: IDEAL, motion: 'linear', clients: CLIENTS, peers: all(CLIENTS) },
  { name: RTT, motion: 'linear', clients: CLIENTS, peers: (world) => withLadderOff(world, { loss: 0, seed: SEED, rttMs: RTT_MS }) },
  {
    name: `${RTT}, reference kernel`,
    motion: 'linear',
    clients: CLIENTS,
    peers: (world) => [createNetcodePeer(world, CLIENTS, { loss: 0, seed: SEED, rttMs: RTT_MS, kernels: 'reference' })],
  },
  { name: LOSSY, motion: 'linear', clients: CLIENTS, peers: (world) => withMergeBehindOff(world, { loss: LOSS, seed: SEED }) },
  { name: `${IDEAL}, each owns one`, motion: 'linear', clients: CLIENTS, peers: (world) => [createNetcodePeer(world, CLIENTS, { loss: 0, seed: SEED, owners: true }), createNetcodePeer(world, CLIENTS, { loss: 0, seed: SEED, owners: 'per-owner', system: 'react-netcode, predicted per owner' })] },
  {
    name: `${RTT}, each owns one`,
    motion: 'linear',
    clients: CLIENTS,
    peers: (world) => [
      createNetcodePeer(world, CLIENTS, { loss: 0, seed: SEED, rttMs: RTT_MS, owners: true }),
      createNetcodePeer(world, CLIENTS, { loss: 0, seed: SEED, rttMs: RTT_MS, owners: 'per-owner', system: 'react-netcode, predicted per owner' }),
    ],
  },
  { name: `${IDEAL}, schema StateView`, motion: 'linear', clients: CLIENTS, peers: (world) => [createSchemaPeer(world, CLIENTS, true)] },
];

interface Totals { bytes: number; encodeMs: number[]; otherMs: number; encodes: number | undefined; heap: number[] }

/** One world, every system fed the same snapshots; the order rotates each snapshot so no system always runs first. */
function runCase(c: Case): Result[] {
  const world = new World(c.motion, GHOSTS, SEED);
  const peers = c.peers(world);
  const totals: Totals[] = peers.map(() => ({ bytes: 0, encodeMs: [], otherMs: 0, encodes: undefined, heap: [] }));
  for (let n = 0; n < WARM_UP + MEASURED; n++) {
    const tick = (n + 1) * TICKS_PER_SNAPSHOT;
    world.step(tick);
    for (let k = 0; k < peers.length; k++) {
      const index = (n + k) % peers.length;
      const peer = peers[index]!;
      const heapBefore = process.memoryUsage().heapUsed;
      const sample = peer.snapshot(tick);
      const heapGrowth = process.memoryUsage().heapUsed - heapBefore; // negative when a collection ran meanwhile
      peer.verify();
      if (n < WARM_UP) continue;
      const t = totals[index]!;
      t.heap.push(heapGrowth);
      for (const b of sample.bytes) t.bytes += b;
      t.encodeMs.push(sample.encodeMs);
      t.otherMs += sample.otherMs;
      if (sample.encodes !== undefined) t.encodes = (t.encodes ?? 0) + sample.encodes;
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
      totalMsPerSnapshot: round((t.encodeMs.reduce((a, b) => a + b, 0) + t.otherMs) / MEASURED, 3),
      encodesPerSnapshot: t.encodes === undefined ? null : round(t.encodes / MEASURED, 2),
      heapBytesPerSnapshotMedian: round(median(t.heap), 0),
    };
  });
}

/**
 * react-netcode rows get their bytes and encode time relative to the schema row of the same case (the plain linear
 * one for variants), and the 32-client variants their encode time relative to the ideal 32-client row.
 */
function addRatios(results: Result[]): void {
  const idealRow = results.find((r) => r.system === 'react-netcode' && r.case === IDEAL);
  const [ideal, idealMedian] = [idealRow?.encodeMsPerSnapshot, idealRow?.encodeMsMedian];
  const schemaRow = (name: string): Result | undefined =>
    results.find((r) => r.system === '@colyseus/schema' && r.case === name) ??
    results.find((r) => r.system === '@colyseus/schema' && name.startsWith(r.case) && !r.case.includes('StateView'));
  for (const r of results) {
    if (!r.system.startsWith('react-netcode')) continue;
    const s = schemaRow(r.case);
    const rb = r.bytesPerClientPerSnapshot;
    const sb = s?.bytesPerClientPerSnapshot;
    r.ratioToSchema = typeof rb === 'number' && typeof sb === 'number' && sb > 0 ? round(rb / sb, 3) : null;
    const re = r.encodeMsPerSnapshot;
    const se = s?.encodeMsPerSnapshot;
    r.encodeRatioToSchema = typeof re === 'number' && typeof se === 'number' && se > 0 ? round(re / se, 2) : null;
    if (r.case === IDEAL || !r.case.startsWith(IDEAL) || typeof re !== 'number' || typeof ideal !== 'number') continue;
    r.encodeRatioToIdeal = round(re / ideal, 2);
    if (typeof r.encodeMsMedian === 'number' && typeof idealMedian === 'number') r.encodeMedianRatioToIdeal = round(r.encodeMsMedian / idealMedian, 2);
  }
}

/** The goals, as measured in this run. */
function printGoals(results: Result[]): void {
  const get = (name: string, system: string, metric: string): number | undefined => {
    const v = results.find((r) => r.case === name && r.system === system)?.[metric];
    return typeof v === 'number' ? v : undefined;
  };
  const rn = (name: string, metric: string) => get(name, 'react-netcode', metric);
  const sc = (name: string, metric: string) => get(name, '@colyseus/schema', metric);
  const verdict = (ok: boolean | undefined): string => (ok === undefined ? 'n/a' : ok ? 'MET' : 'MISSED');
  const ratio = rn('linear', 'ratioToSchema');
  console.log(`goal 1, linear bytes <= 1/3 of schema's: ${verdict(ratio === undefined ? undefined : ratio <= 1 / 3)} (ratio ${ratio})`);
  const [e1, e2] = [rn(IDEAL, 'encodeMsPerSnapshot'), sc(IDEAL, 'encodeMsPerSnapshot')];
  console.log(`goal 2, ${CLIENTS}-client encode <= schema's: ${verdict(e1 === undefined || e2 === undefined ? undefined : e1 <= e2)} (${e1} vs ${e2} ms per snapshot)`);
  const total = (name: string, system: string) => get(name, system, 'totalMsPerSnapshot');
  for (const name of [RTT, LOSSY]) {
    const [r, m] = [rn(name, 'encodeRatioToIdeal'), rn(name, 'encodeMedianRatioToIdeal')];
    console.log(
      `goal 3, "${name}" encode <= 2x the ideal row: ${verdict(r === undefined ? undefined : r <= 2)} (mean ${rn(name, 'encodeMsPerSnapshot')} ms, ${r}x; ` +
        `median snapshot ${m}x; total server cost ${total(name, 'react-netcode')} ms)`,
    );
  }
  for (const name of [RTT, LOSSY]) {
    const off = (metric: string) => get(name, LADDER_OFF, metric);
    console.log(
      `ack ladder on vs off, "${name}": encode ${rn(name, 'encodeMsMedian')} vs ${off('encodeMsMedian')} ms (median snapshot), ` +
        `${rn(name, 'encodeMsPerSnapshot')} vs ${off('encodeMsPerSnapshot')} ms (mean); ${rn(name, 'bytesPerEntity')} vs ${off('bytesPerEntity')} B/entity`,
    );
  }
  const mb = (system: string, metric: string) => get(LOSSY, system, metric);
  console.log(
    `merge behind on vs off, "${LOSSY}": ${rn(LOSSY, 'encodesPerSnapshot')} vs ${mb(MERGE_BEHIND_OFF, 'encodesPerSnapshot')} encodes per snapshot, ` +
      `encode ${rn(LOSSY, 'encodeMsMedian')} vs ${mb(MERGE_BEHIND_OFF, 'encodeMsMedian')} ms (median snapshot), ${rn(LOSSY, 'bytesPerEntity')} vs ${mb(MERGE_BEHIND_OFF, 'bytesPerEntity')} B/entity`,
  );
  console.log(
    `total server cost per snapshot: react-netcode (encode + acks) ${total(IDEAL, 'react-netcode')} ms ideal, ${total(RTT, 'react-netcode')} ms RTT spread, ` +
      `${total(LOSSY, 'react-netcode')} ms 5% loss; schema (setters + encode) ${total(IDEAL, '@colyseus/schema')} ms, with StateViews ${total(`${IDEAL}, schema StateView`, '@colyseus/schema')} ms`,
  );
}

export async function run(): Promise<void> {
  const started = performance.now();
  const results: Result[] = [];
  for (const c of CASES) results.push(...runCase(c));
  addRatios(results);

  console.table(results.map(({ case: name, system, ...metrics }) => ({ case: name, system, ...metrics })));
  printGoals(results);
  console.log(
    `${GHOSTS} ghosts, 60 Hz ticks, a snapshot every ${TICKS_PER_SNAPSHOT}rd tick; ${MEASURED} snapshots measured after ${WARM_UP} warm-up ones; every snapshot verified on one client.`,
  );
  console.log('encodesPerSnapshot (react-netcode): messages actually encoded per snapshot (connections in one group take a copy).');
  console.log('encodeMs: all clients of the snapshot (schema: the shared patch once + discardChanges; JSON: diff + stringify once); otherMs: schema setters (change tracking), react-netcode ack calls; totalMs: both.');
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'snapshot', results })}`);
}
