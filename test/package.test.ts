// The published shape: build with tsc, then import every subpath export by the
// package's own name (Node's self-reference through "exports") and check that
// each declares its types. Proves the emitted ESM runs (relative .ts imports are
// rewritten) and that no entry is missing from package.json.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  type: string;
  exports: Record<string, { types: string; import: string } | string>;
};

const expected: Record<string, string[]> = {
  '.': ['defineProtocol', 'field', 'rpc', 'ghost', 'defineSystems', 'system', 'createServer', 'createClient', 'LoopbackNetwork', 'conditionClient', 'conditionServer', 'NetcodeError', 'tickDiff', 'spawnId'],
  './internals': ['HistoryBuffer', 'FixedStepAccumulator', 'BitWriter', 'BitReader', 'createRng', 'SnapshotEncoder', 'ClientPrediction', 'EngineWorld'],
  './socket-io': ['createSocketIoServerTransport', 'createSocketIoClientTransport'],
  './socket-io/client': ['createSocketIoClientTransport'],
  './socket-io/server': ['createSocketIoServerTransport'],
  './testing': ['createStepper', 'Stepper', 'LoopbackNetwork', 'VirtualScheduler'],
  './react': ['createNetcode', 'NetcodeProvider', 'useConnection', 'useGhosts', 'useInput', 'useNetStats', 'NetGraph'],
  './r3f': ['NetcodeFrame', 'VisualProxy', 'NetDebug'],
  './rapier': ['createPhysics', 'createLagCompensation'],
};

describe('package exports', () => {
  beforeAll(() => {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'pipe' });
  }, 60_000);

  it('is an ESM package named react-netcode', () => {
    expect(pkg.name).toBe('react-netcode');
    expect(pkg.type).toBe('module');
  });

  for (const [subpath, names] of Object.entries(expected)) {
    it(`exports ${subpath} with types and runnable code`, () => {
      const entry = pkg.exports[subpath];
      expect(typeof entry).toBe('object');
      if (typeof entry !== 'object') return;
      expect(existsSync(join(root, entry.types))).toBe(true);
      expect(existsSync(join(root, entry.import))).toBe(true);
      const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m)))`], { cwd: root, encoding: 'utf8' });
      const keys = JSON.parse(out) as string[];
      for (const name of names) expect(keys).toContain(name);
    });
  }
});
