// Load harness: one run of react-netcode on the real path. The server runs in the
// ServerProcess (its own Node process); the players run here, each on its own frame
// loop. Phases: connect and join → every player ready (in game, predicting) → warm-up
// (clock sync settles) → mark → active (input scripts play; injected stalls) →
// settle (sticks centred, until the server ran the last moving input and both sides
// rest) → server report → drain →
// player reports. `analyse` turns the reports into per-client results.
import { analyse, type ClientResult } from './analysis.ts';
import { makeGame } from './game.ts';
import type { ServerReport } from './ipc.ts';
import { loadLibrary } from './library.ts';
import { sleep } from './measure.ts';
import { HeadlessPlayer, type PlayerReport } from './player.ts';
import type { ServerProcess } from './server-control.ts';

export interface ClientSpec {
  fps: number;
  /** Frame-time jitter, a fraction of the frame interval (FrameLoopOptions.jitter). */
  jitter?: number;
  /** Frame stalls injected during the active phase, `atMs` after it began. */
  stalls?: readonly { atMs: number; durationMs: number }[];
  name?: string;
}

export interface Scenario {
  clients: readonly ClientSpec[];
  /** Library checkout (default: this repository), e.g. a worktree of an older commit. */
  root?: string;
  /** Input scripts play for this long (ms). */
  activeMs: number;
  /** After every player is ready, before the mark (ms, default 1500). */
  warmupMs?: number;
  /** Sticks centred before the server reports (ms, default 1000), beyond the clients' lead + input delay. */
  settleMs?: number;
  /** Between the server's report and the players' (ms, default 300): what was sent arrives. */
  drainMs?: number;
  /** Longest wait for every player to be ready (ms, default 20,000). */
  readyTimeoutMs?: number;
  seed?: number;
}

export interface ScenarioRun {
  server: ServerReport;
  players: PlayerReport[];
  clients: ClientResult[];
  /** ms from the mark to the server's report. */
  measuredMs: number;
}

async function until(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > end) throw new Error(`react-netcode: timed out after ${timeoutMs} ms waiting for ${what()}`);
    await sleep(20);
  }
}

export async function runScenario(server: ServerProcess, scenario: Scenario): Promise<ScenarioRun> {
  const port = await server.start({ mode: 'netcode', ...(scenario.root !== undefined ? { root: scenario.root } : {}) });
  const players: HeadlessPlayer[] = [];
  const timers: ReturnType<typeof setTimeout>[] = [];
  try {
    const lib = await loadLibrary(scenario.root);
    const game = makeGame(lib.core);
    const seed = scenario.seed ?? 1;
    scenario.clients.forEach((spec, i) => {
      const name = spec.name ?? `c${i}@${spec.fps}fps`;
      players.push(new HeadlessPlayer({ url: `http://127.0.0.1:${port}`, lib, game, name, frames: { fps: spec.fps, jitter: spec.jitter ?? 0, seed: seed * 7919 + i }, seed: seed * 104_729 + i }));
    });
    for (const p of players) p.start();
    await until(
      () => players.every((p) => p.ready),
      scenario.readyTimeoutMs ?? 20_000,
      () => `every player to be in game and predicting (${players.filter((p) => !p.ready).map((p) => `${p.report().name}: ${p.client.status}`).join(', ')})`,
    );
    await sleep(scenario.warmupMs ?? 1500);
    await server.mark();
    for (const p of players) p.mark();
    const markedAt = performance.now();
    scenario.clients.forEach((spec, i) => {
      for (const s of spec.stalls ?? []) timers.push(setTimeout(() => players[i]!.loop.pause(s.durationMs), s.atMs));
    });
    for (const p of players) p.script.active = true;
    await sleep(scenario.activeMs);
    for (const p of players) p.script.active = false;
    // The last moving inputs are for ticks up to lead + input delay ahead of the server: wait until it ran them.
    const stepMs = 1000 / game.protocol.tickRate;
    const ahead = Math.max(...players.map((p) => (p.client.clock.leadTicks + p.client.clock.inputDelayTicks) * stepMs));
    await sleep((scenario.settleMs ?? 1000) + ahead);
    const report = await server.report();
    const measuredMs = performance.now() - markedAt;
    await sleep(scenario.drainMs ?? 300);
    const reports = players.map((p) => p.report());
    return { server: report, players: reports, clients: analyse(report, reports), measuredMs };
  } finally {
    for (const t of timers) clearTimeout(t);
    for (const p of players) p.stop();
    await server.stop();
  }
}
