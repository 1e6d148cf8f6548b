// `react-netcode init`: the dependency it writes (the version, a tarball made by npm pack, or a
// range as given) and its refusals. The packed bin is run end to end in starters.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const scratch = mkdtempSync(join(tmpdir(), 'rn-init-'));

function init(...args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), join(ROOT, 'src/bin/init.ts'), ...args], { cwd: scratch, encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}
const dependencyOf = (dir: string): string =>
  (JSON.parse(readFileSync(join(scratch, dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies['react-netcode']!;

describe('react-netcode init', { timeout: 60_000 }, () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('depends on this version by default and says what to do when the registry does not have it', () => {
    const r = init('init', 'plain');
    expect(r.status).toBe(0);
    expect(dependencyOf('plain')).toBe(`^${version}`);
    expect(r.out).toContain('run init again with --from path/to/react-netcode-x.y.z.tgz');
  });

  it('--from a tarball: a file: dependency relative to the new project; --from a range: kept as given', () => {
    writeFileSync(join(scratch, `react-netcode-${version}.tgz`), '');
    expect(init('init', 'packed', '--from', `react-netcode-${version}.tgz`).status).toBe(0);
    expect(dependencyOf('packed')).toBe(`file:../react-netcode-${version}.tgz`);
    const r = init('--from', '~0.1.2', 'init', 'ranged');
    expect(r.status).toBe(0);
    expect(dependencyOf('ranged')).toBe('~0.1.2');
    expect(r.out).not.toContain('--from');
  });

  it('refuses a missing tarball before copying anything, and a missing folder or stray argument with its usage', () => {
    const missing = init('init', 'nothing', '--from', './nope.tgz');
    expect(missing.status).toBe(1);
    expect(missing.err).toMatch(/^react-netcode: --from \.\/nope\.tgz: .*nope\.tgz does not exist; give the tarball that npm pack made\./);
    expect(existsSync(join(scratch, 'nothing'))).toBe(false);
    for (const args of [['init'], ['init', 'a', 'b'], ['init', 'a', '--from']]) {
      const r = init(...args);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.err).toMatch(/^react-netcode: usage: npx react-netcode init <folder> \[--from /);
    }
  });
});
