// Load harness CLI: one client at a time at each frame rate, against the library in
// this repository or in another checkout — the quick before/after comparison.
//
//   npx tsx bench/load/sweep.ts [--root <checkout>] [--fps 5,10,15,20,30,40,60,144,240] [--seconds 5] [--jitter 0]
//
// Prints, per frame rate: inputs lost (ticks the server ran without the client's
// input after the warm-up), snapshots lost, how early inputs arrived, the largest
// stalls, and the client's corrections; then one `SWEEP {json}` line.
import { parseArgs } from 'node:util';
import { formatClient } from './analysis.ts';
import { round } from './measure.ts';
import { runScenario } from './scenario.ts';
import { ServerProcess } from './server-control.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string' },
    fps: { type: 'string', default: '5,10,15,20,30,40,60,144,240' },
    seconds: { type: 'string', default: '5' },
    jitter: { type: 'string', default: '0' },
    verbose: { type: 'boolean', default: false },
  },
});
const rates = values.fps.split(',').map(Number);
const activeMs = Number(values.seconds) * 1000;
const jitter = Number(values.jitter);
if (rates.some((r) => !(r > 0)) || !(activeMs > 0)) throw new Error('react-netcode: --fps takes positive numbers separated by commas and --seconds a positive number.');

const server = ServerProcess.spawn();
const rows: Record<string, number | string | null>[] = [];
try {
  for (const fps of rates) {
    const run = await runScenario(server, { clients: [{ fps, jitter }], activeMs, settleMs: 500, ...(values.root ? { root: values.root } : {}) });
    const c = run.clients[0]!;
    if (values.verbose) console.log(formatClient(c, run.server));
    rows.push({
      fps,
      framesPerSec: c.framesPerSec,
      serverTicks: round((run.measuredMs / 1000) * run.server.tickRate, 0),
      inputsLost: c.inputsMissing + c.ticksBeforeAnyInput,
      inputsMissing: c.inputsMissing,
      unexplainedMissing: c.unexplained.length,
      inputsLate: c.inputsLate,
      snapshotsSent: c.sentSnapshotTicks.length,
      snapshotsLost: c.lostSnapshotTicks.length,
      earlyTicksP1: c.early?.p1 ?? null,
      earlyTicksP50: c.early?.p50 ?? null,
      maxClientStallMs: round(c.player.maxStallMs, 0),
      maxServerStallMs: round(run.server.maxStallMs, 0),
      presses: c.presses,
      serverJumps: c.serverJumps,
      corrections: c.player.corrections?.total ?? null,
    });
  }
} finally {
  await server.exit();
}
console.table(rows);
console.log(`SWEEP ${JSON.stringify({ root: values.root ?? 'this repository', activeMs, rows })}`);
