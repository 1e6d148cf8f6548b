// Benchmark runner: runs every bench/*.bench.ts module in sequence (or those whose
// file name contains one of the command-line arguments), each in a process of its own.
// Each module exports `run(): Promise<void>`, prints a table and, last, one `BENCH {json}` line.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CHILD_FLAG = 'REACT_NETCODE_BENCH_CHILD';

// Heap figures need a forced gc: re-run once under --expose-gc when it is missing.
if (typeof (globalThis as { gc?: unknown }).gc !== 'function' && process.env[CHILD_FLAG] === undefined) {
  const child = spawnSync(process.execPath, [...process.execArgv, '--expose-gc', ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, [CHILD_FLAG]: '1' },
  });
  process.exit(child.status ?? 1);
}

const dir = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

if (files.length === 0) {
  console.error(`react-netcode: no bench/*.bench.ts module matches ${JSON.stringify(filters)}.`);
  process.exitCode = 1;
}

const FILE_FLAG = 'REACT_NETCODE_BENCH_FILE';
const only = process.env[FILE_FLAG];

if (only === undefined && files.length > 1) {
  // Each module in a process of its own: what one module leaves in the process (optimized code, a heap profiler that ran,
  // e.g. client-frame's, after which calls allocate that allocate nothing otherwise) never shows in the next one's figures.
  for (const file of files) {
    const child = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
      stdio: 'inherit',
      env: { ...process.env, [CHILD_FLAG]: '1', [FILE_FLAG]: file },
    });
    if (child.status !== 0) process.exitCode = 1;
  }
} else {
  for (const file of only === undefined ? files : [only]) await runModule(file);
}

async function runModule(file: string): Promise<void> {
  console.log(`\n## bench/${file}\n`);
  const mod = (await import(pathToFileURL(join(dir, file)).href)) as { run?: unknown };
  if (typeof mod.run !== 'function') {
    console.error(`react-netcode: bench/${file} must export \`async function run(): Promise<void>\`.`);
    process.exitCode = 1;
    return;
  }
  try {
    await (mod.run as () => Promise<void>)();
  } catch (error) {
    console.error(`react-netcode: bench/${file} failed:`, error);
    process.exitCode = 1;
  }
}
