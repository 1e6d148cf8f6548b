// Load harness: from the reports of one run (the server process's and each player's)
// to per-client figures — inputs lost (ticks the server ran without the client's
// input), snapshots lost (ticks written to it and never received), how early inputs
// arrived, bytes per second each way, where the player ended on both sides — and
// which lost inputs a measured stall explains. `formatClient` writes it all out for a
// failure message or a log.
import type { MissingTick, ServerReport } from './ipc.ts';
import { histogramPercentile, round, type Gap } from './measure.ts';
import type { PlayerReport } from './player.ts';

/** A missing tick is explained by a stall longer than the input lead that ended at most this long before it. */
export const EXPLAIN_AFTER_MS = 500;

export interface ClientResult {
  name: string;
  fps: number;
  networkId: number;
  framesPerSec: number;
  /** Ticks the server ran without this client's input since the mark, … */
  inputsMissing: number;
  /** … those a stall explains not, and every one of them. */
  unexplained: MissingTick[];
  missingTicks: MissingTick[];
  inputsLate: number;
  inputsReceived: number;
  /** Ticks run in the window, and those before any input of this client had arrived (an old client whose clock never synced sends none). */
  ticks: number;
  ticksBeforeAnyInput: number;
  /** Snapshot ticks the server wrote to this client in the window, and those it never received. */
  sentSnapshotTicks: number[];
  lostSnapshotTicks: number[];
  /** How early stored inputs arrived before their tick ran, in ticks (null: the library has no histogram). */
  early: { p1: number; p50: number; p99: number } | null;
  /** The input lead stalls are measured against: p1 of `early`, in ms. */
  leadMs: number;
  /** Stalls (client frames and server loop) longer than the lead. */
  stalls: { where: 'client' | 'server'; gap: Gap }[];
  upBytesPerSec: number;
  downBytesPerSec: number;
  upWritesPerSec: number;
  downWritesPerSec: number;
  /** Distance between the client's predicted player and the server's (m; NaN if one is missing). */
  positionError: number;
  presses: number;
  serverJumps: number;
  player: PlayerReport;
}

function explains(gap: Gap, leadMs: number, m: MissingTick): boolean {
  return gap.excessMs > leadMs && m.at >= gap.start && m.at <= gap.end + EXPLAIN_AFTER_MS;
}

export function analyse(server: ServerReport, players: readonly PlayerReport[]): ClientResult[] {
  const stepMs = 1000 / server.tickRate;
  return players.map((player) => {
    const conn = server.connections.find((c) => c.networkId === player.networkId);
    if (!conn) throw new Error(`react-netcode: the server reports no connection for ${player.name} (networkId ${String(player.networkId)}); did it leave or never join?`);
    const seconds = (player.at - player.markAt) / 1000;
    const received = new Set(player.snapshotTicks);
    const arrivals = conn.arrivals;
    const early = arrivals ? { p1: histogramPercentile(arrivals, 0.01), p50: histogramPercentile(arrivals, 0.5), p99: histogramPercentile(arrivals, 0.99) } : null;
    const leadMs = early && Number.isFinite(early.p1) ? early.p1 * stepMs : 0;
    const stalls = [
      ...player.stalls.map((gap) => ({ where: 'client' as const, gap })),
      ...server.stalls.map((gap) => ({ where: 'server' as const, gap })),
    ].filter((s) => s.gap.excessMs > leadMs);
    const p = player.player;
    const q = conn.player;
    return {
      name: player.name,
      fps: player.fps,
      networkId: conn.networkId,
      framesPerSec: round(player.frames / seconds, 1),
      inputsMissing: conn.inputs.missing ?? 0,
      missingTicks: conn.missingTicks,
      unexplained: conn.missingTicks.filter((m) => !stalls.some((s) => explains(s.gap, leadMs, m))),
      inputsLate: conn.inputs.late ?? 0,
      inputsReceived: conn.inputs.received ?? 0,
      ticks: conn.ticks,
      ticksBeforeAnyInput: conn.ticksBeforeAnyInput,
      sentSnapshotTicks: conn.snapshotTicks,
      lostSnapshotTicks: conn.snapshotTicks.filter((t) => !received.has(t)),
      early,
      leadMs,
      stalls,
      upBytesPerSec: round(player.out.bytes / seconds, 0),
      downBytesPerSec: round(player.in.bytes / seconds, 0),
      upWritesPerSec: round(player.out.writes / seconds, 1),
      downWritesPerSec: round(player.in.writes / seconds, 1),
      positionError: p && q ? Math.hypot(p.x - q.x, p.y - q.y, p.z - q.z) : Number.NaN,
      presses: player.presses,
      serverJumps: q?.jumps ?? -1,
      player,
    };
  });
}

const ms = (v: number): string => `${v.toFixed(0)} ms`;
const at = (t: number, origin: number): string => `+${((t - origin) / 1000).toFixed(2)} s`;

/** Everything about one client, for a failure message: losses, lead, stalls with their times. */
export function formatClient(r: ClientResult, server: ServerReport): string {
  const o = r.player.markAt;
  const lines = [
    `${r.name}: ${r.framesPerSec} frames/s${r.player.predicting ? '' : ' (NOT PREDICTING)'}, server ticks ${r.ticks} (${r.ticksBeforeAnyInput} before any input), inputs received ${r.inputsReceived}, missing ${r.inputsMissing} (unexplained ${r.unexplained.length}), late ${r.inputsLate}; ` +
      `snapshots sent ${r.sentSnapshotTicks.length}, lost ${r.lostSnapshotTicks.length}; inputs early p1/p50/p99 ${r.early ? `${r.early.p1}/${r.early.p50}/${r.early.p99}` : 'n/a'} ticks (lead ${ms(r.leadMs)}); ` +
      `position error ${(r.positionError * 1000).toFixed(2)} mm; presses ${r.presses}, server jumps ${r.serverJumps}; rtt ${r.player.rttMs.toFixed(1)} ms; ` +
      `clock slack ${r.player.slackTicks.toFixed(1)}, lead ${r.player.leadTicks.toFixed(1)}, input delay ${r.player.inputDelayTicks} ticks; ` +
      `missing reported to the client since it joined ${r.player.inputReports?.missing ?? 'n/a'}; ` +
      `largest stall client ${ms(r.player.maxStallMs)}, server ${ms(server.maxStallMs)}; corrections ${JSON.stringify(r.player.corrections)}`,
  ];
  if (r.missingTicks.length > 0) lines.push(`  missing ticks (time since mark): ${r.missingTicks.slice(0, 40).map((m) => `${m.tick}@${at(m.at, o)}`).join(', ')}`);
  if (r.lostSnapshotTicks.length > 0) lines.push(`  lost snapshot ticks: ${r.lostSnapshotTicks.slice(0, 40).join(', ')}`);
  if (r.stalls.length > 0) lines.push(`  stalls longer than the lead: ${r.stalls.slice(0, 20).map((s) => `${s.where} ${ms(s.gap.excessMs)} ending ${at(s.gap.end, o)}`).join(', ')}`);
  if (server.warnings.length > 0) lines.push(`  server warnings: ${server.warnings.slice(0, 5).join(' | ')}`);
  return lines.join('\n');
}
