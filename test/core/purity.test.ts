// House rules 1 and 2 (docs/architecture.md), proven on the real import graph: bundle every module of
// src/core with esbuild and check (a) every input file of the bundle lies in
// src/core — no react, three, rapier, socket.io or DOM package is reachable — and
// (b) the emitted code never reads a wall clock, Math.random or DOM globals.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const coreDir = join(import.meta.dirname, '../../src/core');
const entries = readdirSync(coreDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(coreDir, f));

/** Bundle; every bare (package) import is recorded and left external instead of bundled. */
async function bundleCore(extraEntries: string[] = []) {
  const packages = new Set<string>();
  const result = await build({
    plugins: [
      {
        name: 'record-packages',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => {
            packages.add(args.path);
            return { path: args.path, external: true };
          });
        },
      },
    ],
    entryPoints: [...entries, ...extraEntries],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'neutral',
    outdir: 'out',
    // Drops comments (prose like "the window." must not count), keeps identifiers.
    minifyWhitespace: true,
    logLevel: 'silent',
  });
  return { ...result, packages };
}

describe('src/core purity', () => {
  it('has a non-trivial module list', () => {
    expect(entries.length).toBeGreaterThan(10);
  });

  it('imports nothing outside src/core', async () => {
    const result = await bundleCore();
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.length).toBeGreaterThanOrEqual(entries.length);
    const outside = inputs.filter((p) => !p.replace(/\\/g, '/').includes('src/core/'));
    expect(outside).toEqual([]);
    expect([...result.packages]).toEqual([]);
    for (const output of Object.values(result.metafile.outputs)) {
      expect(output.imports.filter((i) => i.external)).toEqual([]);
    }
  });

  it('never reads a wall clock, Math.random or DOM globals', async () => {
    const result = await bundleCore();
    const code = result.outputFiles.map((f) => f.text).join('\n');
    expect(code.length).toBeGreaterThan(10_000);
    // Globals only: `scheduler.setTimeout(` (an injected timer) is allowed, a bare `setTimeout(` is not.
    const forbidden = [/\bDate\.now\b/, /\bperformance\.now\b/, /\bMath\.random\b/, /\bnew Date\(/, /(?<![.\w$])window\./, /(?<![.\w$])document\./, /(?<![.\w$])requestAnimationFrame\b/, /(?<![.\w$])setTimeout\(/, /(?<![.\w$])setInterval\(/];
    for (const pattern of forbidden) expect(code).not.toMatch(pattern);
  });

  it('would catch a framework import (the check can fail)', async () => {
    const bad = join(import.meta.dirname, 'fixtures/impure-core.ts');
    const result = await bundleCore([bad]);
    expect([...result.packages]).toEqual(['socket.io']);
    const code = result.outputFiles.map((f) => f.text).join('\n');
    expect(code).toMatch(/\bDate\.now\b/);
  });
});
