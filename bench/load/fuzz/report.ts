// The fuzzer's tallies and its table: per message kind (the first byte of what was
// sent), packets sent, connections they closed, exceptions that escaped containment
// and ticks lost (tick() calls that did not advance currentTick); per variant, sent and
// closed; and what the well-behaved client playing alongside saw.
import { MESSAGE_KIND_NAMES, MessageKind } from '../../../src/core/wire.ts';
import type { Variant } from './generate.ts';

export const KIND_ROWS = ['Hello', 'Join', 'Rpc', 'Close', 'SnapshotAck', 'Input', 'Ping', 'Batch', 'server→client kind', 'unknown kind', 'empty'] as const;
export type KindLabel = (typeof KIND_ROWS)[number];
const CLIENT_KINDS = new Set<number>([MessageKind.Hello, MessageKind.Join, MessageKind.Rpc, MessageKind.Close, MessageKind.SnapshotAck, MessageKind.Input, MessageKind.Ping, MessageKind.Batch]);

export function kindLabel(bytes: Uint8Array): KindLabel {
  if (bytes.byteLength === 0) return 'empty';
  const kind = bytes[0]!;
  if (CLIENT_KINDS.has(kind)) return MESSAGE_KIND_NAMES[kind] as KindLabel;
  return MESSAGE_KIND_NAMES[kind] !== undefined ? 'server→client kind' : 'unknown kind';
}

export interface KindRow {
  sent: number;
  closed: number;
  escaped: number;
  ticksLost: number;
}

export interface GoodClientResult {
  /** Snapshots the well-behaved client received while in game. */
  snapshots: number;
  /** Snapshot ticks the server should have sent it and it never received (must be 0). */
  snapshotGaps: number;
  /** Duplicate or out-of-order snapshot ticks. */
  outOfOrder: number;
  /** Problems: an `error` event, a rejected snapshot, leaving the game, a replicated value out of bounds (must be none). */
  stateErrors: string[];
}

export interface ServerTally {
  /** tick() calls, exceptions that escaped a tick (or the process), calls that did not advance currentTick. */
  ticks: number;
  escaped: number;
  ticksLost: number;
  /** Per kind label of the messages received in the ticks that lost. */
  byKind: Partial<Record<KindLabel, { escaped: number; ticksLost: number }>>;
  escapes: string[];
  /** Values out of bounds that reached a system, a join or an RPC handler (must be 0). */
  violations: { input: number; join: number; rpc: number; examples: string[] };
  /** Server `error` events (contained failures) and what the limits did. */
  errorEvents: number;
  limits: { droppedMessages: number; droppedBytes: number; refusedPeers: number; closedPeers: number };
}

export interface FuzzReport {
  transport: 'loopback' | 'socket.io';
  seed: number;
  packets: number;
  seconds: number;
  connections: number;
  reconnects: number;
  /** Packets sent after one that closed their connection (never handled; not in `packets`). */
  ignored: number;
  rows: Record<KindLabel, KindRow>;
  variants: Record<Variant, { sent: number; closed: number }>;
  server: ServerTally;
  good: GoodClientResult;
}

export function emptyRows(): Record<KindLabel, KindRow> {
  return Object.fromEntries(KIND_ROWS.map((k) => [k, { sent: 0, closed: 0, escaped: 0, ticksLost: 0 }])) as Record<KindLabel, KindRow>;
}

export function emptyVariants(): Record<Variant, { sent: number; closed: number }> {
  return { valid: { sent: 0, closed: 0 }, extreme: { sent: 0, closed: 0 }, truncated: { sent: 0, closed: 0 }, extended: { sent: 0, closed: 0 }, mutated: { sent: 0, closed: 0 } };
}

/** Merge the server's per-kind escapes and lost ticks into the rows. */
export function mergeServer(rows: Record<KindLabel, KindRow>, server: ServerTally): void {
  for (const [kind, v] of Object.entries(server.byKind)) {
    const row = rows[kind as KindLabel];
    row.escaped += v.escaped;
    row.ticksLost += v.ticksLost;
  }
}

/** True when nothing escaped, no tick was lost, nothing out of bounds got through and the good client saw no gap or error. */
export function clean(r: FuzzReport): boolean {
  const v = r.server.violations;
  return r.server.escaped === 0 && r.server.ticksLost === 0 && v.input + v.join + v.rpc === 0 && r.good.snapshotGaps === 0 && r.good.stateErrors.length === 0 && r.good.snapshots > 0;
}

export function formatReport(r: FuzzReport): string {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const lines = [
    `fuzz over ${r.transport}: ${r.packets} packets handled (+${r.ignored} sent after a close), seed ${r.seed}, ${r.connections} connections (${r.reconnects} reconnects), ${r.seconds.toFixed(1)} s, ${r.server.ticks} server ticks`,
    '',
    `| ${'message kind'.padEnd(18)} | ${pad('sent', 8)} | ${pad('closed', 8)} | ${pad('escaped', 7)} | ${pad('ticks lost', 10)} |`,
    `| ${'-'.repeat(18)} | ${'-'.repeat(8)} | ${'-'.repeat(8)} | ${'-'.repeat(7)} | ${'-'.repeat(10)} |`,
  ];
  const total = { sent: 0, closed: 0, escaped: 0, ticksLost: 0 };
  for (const kind of KIND_ROWS) {
    const row = r.rows[kind];
    for (const k of Object.keys(total) as (keyof KindRow)[]) total[k] += row[k];
    lines.push(`| ${kind.padEnd(18)} | ${pad(row.sent, 8)} | ${pad(row.closed, 8)} | ${pad(row.escaped, 7)} | ${pad(row.ticksLost, 10)} |`);
  }
  lines.push(`| ${'all'.padEnd(18)} | ${pad(total.sent, 8)} | ${pad(total.closed, 8)} | ${pad(r.server.escaped, 7)} | ${pad(r.server.ticksLost, 10)} |`);
  lines.push('', `by variant: ${Object.entries(r.variants).map(([v, x]) => `${v} ${x.sent} sent / ${x.closed} closed`).join(', ')}`);
  const v = r.server.violations;
  lines.push(`out-of-bounds values reaching systems / onJoin / RPC handlers: ${v.input} / ${v.join} / ${v.rpc}${v.examples.length ? ` (${v.examples.join('; ')})` : ''}`);
  lines.push(`server: ${r.server.errorEvents} contained errors reported; limits dropped ${r.server.limits.droppedMessages} messages, refused ${r.server.limits.refusedPeers} peers, closed ${r.server.limits.closedPeers}`);
  if (r.server.escapes.length) lines.push(`escaped: ${r.server.escapes.slice(0, 5).join(' | ')}`);
  const g = r.good;
  lines.push(`well-behaved client: ${g.snapshots} snapshots, ${g.snapshotGaps} snapshot ticks missing, ${g.outOfOrder} out of order, ${g.stateErrors.length} state errors${g.stateErrors.length ? ` (${g.stateErrors.slice(0, 5).join('; ')})` : ''}`);
  lines.push(clean(r) ? 'result: clean' : 'result: FAILED');
  return lines.join('\n');
}
