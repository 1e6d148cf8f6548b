// What ships: `npm pack --dry-run --json` (its `prepack` builds dist/ first) lists the
// files of the package; it runs on a copy of the package's inputs (stage.ts). Checked here:
//  - only dist/, src/ (the sources the source maps point at), docs/, the starter that
//    `npx react-netcode init` copies (not its build), README.md, CHANGELOG.md and
//    package.json ship; no tests; every "exports" target and the bin are there;
//  - every source map's sources are in the package;
//  - every relative link in README.md and docs/*.md resolves inside the package, and every
//    file the docs name is there (src/, dist/, docs/) or, for the paths the docs call the
//    repository's own (test/, bench/, demo/, stories/, examples/), in the repository;
//  - CHANGELOG.md's newest entry is package.json's version (semver).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, stagePackage } from './stage.ts';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string>; exports: Record<string, Record<string, string> | string> };
const SHIPPED_TOP = new Set(['dist', 'src', 'docs', 'examples', 'README.md', 'CHANGELOG.md', 'package.json', 'LICENSE']);
const REPOSITORY_ONLY = ['test', 'bench', 'demo', 'stories', 'examples'];
/** A path the docs name: a top-level folder of the repository, then a file or folder name. */
const PATH_MENTION = new RegExp(String.raw`(?<![\w./-])((?:src|dist|docs|${REPOSITORY_ONLY.join('|')})/[\w./-]*\w)`, 'g');
/** A markdown link's target: [text](target) */
const LINK = /\]\(([^)\s]+)\)/g;

describe('the packed file list (npm pack --dry-run)', { timeout: 120_000 }, () => {
  let files: Set<string>;
  let docs: string[];
  const stage = stagePackage();

  beforeAll(() => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: stage, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const [report] = JSON.parse(out) as { files: { path: string }[] }[];
    files = new Set(report!.files.map((f) => f.path));
    docs = [...files].filter((f) => f === 'README.md' || /^docs\/.*\.md$/.test(f));
  }, 120_000);
  afterAll(() => rmSync(stage, { recursive: true, force: true }));

  const has = (path: string): boolean => files.has(path) || [...files].some((f) => f.startsWith(`${path}/`));

  it('ships dist, src, docs, the starter, README.md, CHANGELOG.md and package.json, and no tests', () => {
    const outside = [...files].filter((f) => !SHIPPED_TOP.has(f.split('/')[0]!));
    expect(outside).toEqual([]);
    const examples = [...files].filter((f) => f.startsWith('examples/')).sort();
    const starter = execFileSync('git', ['ls-files', 'examples/starter'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
    expect(examples).toEqual(starter);
    expect(files.has(pkg.bin['react-netcode'] ?? 'no bin')).toBe(true);
    for (const f of ['README.md', 'CHANGELOG.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'src/index.ts']) expect(files.has(f), f).toBe(true);
    expect([...files].filter((f) => /\.test(-d)?\.tsx?$|(^|\/)test\//.test(f))).toEqual([]);
    const repoDocs = execFileSync('git', ['ls-files', 'docs'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    for (const doc of repoDocs) expect(files.has(doc), doc).toBe(true);
  });

  it('holds every target of "exports"', () => {
    const targets = Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e)));
    expect(targets.length).toBeGreaterThan(10);
    for (const target of targets) expect(files.has(normalize(target)), target).toBe(true);
  });

  it('react-netcode/webrtc: both halves ship, and the browser half (client.js) never reaches node-datachannel or the socket.io server', () => {
    for (const f of ['dist/webrtc/index.js', 'dist/webrtc/client.js', 'dist/webrtc/server.js', 'dist/webrtc/index.d.ts']) expect(files.has(f), f).toBe(true);
    expect(pkg.exports['./webrtc']).toEqual({ types: './dist/webrtc/index.d.ts', browser: './dist/webrtc/client.js', import: './dist/webrtc/index.js' });
    const client = readFileSync(join(stage, 'dist/webrtc/client.js'), 'utf8');
    const imports = [...client.matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((i) => /node-datachannel|^socket\.io$|server|^node:/.test(i!))).toEqual([]);
  });

  it('holds the sources of every source map', () => {
    const maps = [...files].filter((f) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(join(stage, map), 'utf8')) as { sources: string[] };
      for (const source of sources) if (!files.has(normalize(join(dirname(map), source)))) missing.push(`${map} → ${source}`);
    }
    expect(missing).toEqual([]);
  });

  it('every relative link in README.md and docs/*.md resolves inside the package', () => {
    expect(docs.length).toBeGreaterThan(10);
    const broken: string[] = [];
    for (const doc of docs) {
      for (const [, target] of readFileSync(join(ROOT, doc), 'utf8').matchAll(LINK)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue; // absolute URLs, anchors in the page
        const path = normalize(join(dirname(doc), target!.split('#')[0]!));
        if (!has(path)) broken.push(`${doc} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every file the docs name is in the package, or in the repository when the docs say it is the repository’s', () => {
    const missing: string[] = [];
    for (const doc of docs) {
      for (const [, path] of readFileSync(join(ROOT, doc), 'utf8').matchAll(PATH_MENTION)) {
        const top = path!.split('/')[0]!;
        // A repository path may name a build output (demo/dist): not in git, made by a script.
        const ok = REPOSITORY_ONLY.includes(top) ? existsSync(join(ROOT, path!)) || path!.split('/').includes('dist') : has(path!);
        if (!ok) missing.push(`${doc}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("CHANGELOG.md's newest entry is package.json's version", () => {
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
    const newest = /^## \[?(\d+\.\d+\.\d+(?:-[\w.]+)?)\]?/m.exec(changelog);
    expect(newest?.[1]).toBe(pkg.version);
  });
});
