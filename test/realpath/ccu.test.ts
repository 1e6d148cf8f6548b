// The CCU load tool (`npm run load`, bench/load/ccu/), end to end, in the timing-sensitive group
// (vitest.timing.config.ts: real sockets, child processes, real time). It runs the tool as a user
// would — 10 clients, 3 s measured after 1 s, react-netcode then the Colyseus peer — and checks
// that its last line is the BENCH JSON with a row per system whose server saw the clients' inputs
// and sent them updates. Bounds are loose: the machine is shared, so only "it worked" is asserted,
// never a speed. Takes ≈ 20–30 s.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CaseRow, Summary } from '../../bench/load/ccu/load.ts';
import { REPO_ROOT } from '../../bench/load/library.ts';

const CLIENTS = 10;
/** Inputs per client-second the server should see: react-netcode stores one per tick (60 Hz), Colyseus handles one message per frame (30 fps). */
const EXPECTED = { 'react-netcode': 60, colyseus: 30 } as const;

describe('npm run load (the ccu bench)', () => {
  it('runs 10 clients against react-netcode and Colyseus and prints a BENCH line whose servers saw the inputs', { timeout: 150_000 }, () => {
    const tsx = createRequire(join(REPO_ROOT, 'package.json')).resolve('tsx/cli');
    const run = spawnSync(process.execPath, [tsx, 'bench/load/ccu/cli.ts', '--clients', String(CLIENTS), '--seconds', '3', '--warmup', '1', '--system', 'both'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 140_000 });
    const out = `${run.stdout}\n${run.stderr}`;
    expect(run.status, out).toBe(0);
    const last = run.stdout.trim().split('\n').at(-1) ?? '';
    expect(last.startsWith('BENCH '), out).toBe(true);
    const bench = JSON.parse(last.slice('BENCH '.length)) as { bench: string; results: (CaseRow | Summary)[] };
    expect(bench.bench).toBe('ccu');
    for (const system of ['react-netcode', 'colyseus'] as const) {
      const row = bench.results.find((r): r is CaseRow => r.system === system && r.case !== 'ccu per core');
      expect(row, out).toBeDefined();
      expect(row!.clients).toBe(CLIENTS);
      expect(row!.inputsPerClientSecond, `${system}: ${out}`).toBeGreaterThan(0.3 * EXPECTED[system]); // the server saw the clients' inputs (a loaded machine may cost frames)
      expect(row!.downBytesPerSecPerClient, out).toBeGreaterThan(0); // and sent them snapshots / patches
      expect(row!.serverUsPerClientSecond, out).toBeGreaterThan(0);
      expect(Number.isFinite(row!.tickMsP99), out).toBe(true);
      expect(bench.results.some((r) => r.system === system && r.case === 'ccu per core'), out).toBe(true);
    }
  });
});
