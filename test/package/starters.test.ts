// The starters as a user gets them: `npm pack` the project, create the starter with the
// packed `react-netcode init` (it copies examples/starter from the package), copy
// examples/canvas-2d out of the repository, install the tarball into each copy with
// `npm install --offline` (every dependency is in the npm cache after the root install;
// the copy gets a lockfile cut from the repository's, the same versions, because the cache
// need not hold the registry metadata a resolution without one reads),
// typecheck them against the packed types, build them with Vite and serve them with
// their own server on 127.0.0.1 (a free port); the README's minimal game is typechecked
// against the packed types too. Then, in headless system Chromium:
//  - production builds, two players per starter: each page sees both players, a ball
//    shot with Space is predicted and then matched with the server's, and the other
//    page sees it; no console or page errors;
//  - the browser bundles hold no server code (engine.io's server, the library's
//    socket.io server transport or server engine) and no Node built-ins;
//  - the R3F starter in Vite dev (`npm run dev`: Vite's dep optimizer resolves
//    'react-netcode/socket-io' to the client half): it plays, with no errors and no
//    "externalized for browser compatibility" warning.
// Timeouts are sized for a loaded two-core machine; the figures measured are printed.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDemo, ROOT, type Browser } from '../helpers/demo-browser.ts';
import { stagePackage } from './stage.ts';
import { waitFor } from '../helpers/wait.ts';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const STARTERS = ['starter', 'canvas-2d'] as const;
type Starter = (typeof STARTERS)[number];

/** Strings that only server code contains: engine.io's server, the library's socket.io server transport and server engine. */
const SERVER_MARKERS = ['Session ID unknown', 'the socket.io server could not listen', 'start() needs a scheduler'];
/** Node built-ins a bundle must not reach for (an import of `node:x`, a require, Vite's stub for them). */
const NODE_BUILTINS = /["'`]node:[a-z_/]+["'`]|require\(["'`](fs|path|http|https|net|zlib|crypto|stream|os)["'`]\)|__vite-browser-external/;

interface Hud {
  status?: string;
  players?: string;
  balls?: string;
  predicted?: string;
  matched?: string;
}
const hud = (page: Page): Promise<Hud> => page.evaluate(() => ({ ...(document.getElementById('hud')?.dataset ?? {}) }));

async function untilHud(page: Page, what: string, ok: (h: Hud) => boolean, ms: number, context: () => string): Promise<Hud> {
  const deadline = Date.now() + ms;
  let last: Hud = {};
  for (;;) {
    last = await hud(page);
    if (ok(last)) return last;
    if (Date.now() > deadline) throw new Error(`test: timed out after ${ms} ms waiting for ${what}; last HUD ${JSON.stringify(last)}; ${context()}`);
    await page.waitForTimeout(100);
  }
}

interface Served {
  url: string;
  output: () => string;
  stop: () => void;
}

/** `node --import tsx server.ts [--dev]` of a starter copy (one process: what `npm start` runs), on 127.0.0.1 and a free port. */
async function serve(dir: string, args: string[] = []): Promise<Served> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server.ts', ...args], {
    cwd: dir,
    env: { ...userEnv(), PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.test(out) || child.exitCode !== null, `the ${dir} server to listen`, 60_000);
  if (child.exitCode !== null) throw new Error(`test: the starter server exited: ${out}`);
  return { url: /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!, output: () => out, stop: () => void (child.exitCode === null && child.kill('SIGKILL')) };
}

type Lock = { packages: Record<string, { link?: boolean }> };
const rootLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;

/** The repository's lockfile for a starter copy: its own root entry and every installed package of the repository (npm prunes what it does not use). */
function lockfileFor(pkg: object): object {
  const packages: Record<string, unknown> = { '': pkg };
  for (const [path, entry] of Object.entries(rootLock.packages)) {
    if (path.startsWith('node_modules/') && !entry.link && !path.startsWith('node_modules/react-netcode')) packages[path] = entry;
  }
  return { lockfileVersion: 3, requires: true, packages };
}

/** The environment a user's shell gives: not vitest's (its NODE_ENV=test would make Vite bundle React's development build). */
const userEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_ENV' && !k.startsWith('VITEST') && k !== 'TEST'));
/** Runs a command to completion; a failure throws with everything it printed (tsc reports on stdout). */
function run(cmd: string, args: string[], cwd: string): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: 'pipe', env: { ...userEnv(), npm_config_audit: 'false', npm_config_fund: 'false' } });
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    throw new Error(`test: ${cmd} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

describe('the starters, installed from the packed package (headless Chromium)', { timeout: 240_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'rn-starters-'));
  const dirs = {} as Record<Starter, string>;
  const servers: Served[] = [];
  const browsers: Browser[] = [];
  const errors: string[] = [];
  const warnings: string[] = [];
  const timings: string[] = [];
  let initOutput = '';
  let initPackage = { name: '', dependency: '', version: '' };
  const context = (): string => servers.map((s) => `server ${s.url}: ${s.output()}`).join('\n');
  const timed = <T,>(label: string, fn: () => T): T => {
    const start = Date.now();
    const result = fn();
    timings.push(`${label} ${((Date.now() - start) / 1000).toFixed(1)} s`);
    return result;
  };

  beforeAll(() => {
    // `npm pack` runs `prepack` (npm run build): the tarball holds a fresh dist/, built in a copy (stage.ts).
    const stage = stagePackage();
    const packed = timed('npm pack', () => JSON.parse(run(NPM, ['pack', '--json', '--pack-destination', scratch], stage)) as { filename: string }[]);
    rmSync(stage, { recursive: true, force: true });
    const tarball = join(scratch, packed[0]!.filename);
    mkdirSync(join(scratch, 'unpacked'));
    run('tar', ['-xzf', tarball, '-C', join(scratch, 'unpacked')], scratch);
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const name of STARTERS) {
      const dir = join(scratch, name);
      if (name === 'starter') initOutput = run(process.execPath, [join(scratch, 'unpacked/package/dist/bin/init.js'), 'init', name, '--from', tarball], scratch);
      else cpSync(join(ROOT, 'examples', name), dir, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
      const pkgPath = join(dir, 'package.json');
      const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { name: string; dependencies: Record<string, string> };
      if (name === 'starter') initPackage = { name: pkg.name, dependency: pkg.dependencies['react-netcode']!, version };
      pkg.dependencies['react-netcode'] = `file:${tarball}`;
      writeFileSync(pkgPath, JSON.stringify(pkg, null, 2));
      writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lockfileFor(pkg)));
      timed(`${name}: npm install --offline`, () => run(NPM, ['install', '--offline', '--no-audit', '--no-fund'], dir));
      timed(`${name}: tsc`, () => run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', dir], dir));
      timed(`${name}: vite build`, () => run(process.execPath, [join(dir, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'], dir));
      dirs[name] = dir;
    }
  }, 400_000);

  afterAll(async () => {
    await Promise.all(browsers.map((b) => b.close()));
    for (const s of servers) s.stop();
    rmSync(scratch, { recursive: true, force: true });
    console.log(`starters: ${timings.join(', ')}`);
  }, 60_000);

  // Vite dev bundles the dependencies on the first page load: a long first load on a busy machine.
  async function open(url: string, name: string): Promise<Page> {
    const b = await openDemo(url, name, errors, { loadTimeoutMs: 150_000 });
    browsers.push(b);
    b.page.on('console', (m) => void (m.type() === 'warning' && warnings.push(`${name}: ${m.text()}`)));
    return b.page;
  }

  it("the README's minimal game (shared.ts, server.ts, main.tsx) typechecks against the packed package, whose types hide the engine's wiring", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## A minimal game'), readme.indexOf('## Starters'));
    const blocks = [...section.matchAll(/```(tsx?)\n([\s\S]*?)\n```/g)].map(([, , code]) => code!);
    expect(blocks.length).toBe(3);
    const dir = join(scratch, 'readme');
    mkdirSync(dir);
    ['shared.ts', 'server.ts', 'main.tsx'].forEach((file, i) => writeFileSync(join(dir, file), blocks[i]!));
    // The engine's own wiring is not in the published types (`@internal`, stripped from the .d.ts): tsc fails on an
    // expect-error directive with no error after it, so each such line below checks that one member is hidden; the
    // first lines, that the public ones are there.
    writeFileSync(join(dir, 'wiring.ts'), [
      "import type { NetClient } from 'react-netcode';",
      "import type { protocol } from './shared.ts';",
      'declare const client: NetClient<typeof protocol>;',
      'export const shown = [client.ghosts.record(1)?.latest, client.ghosts.rejectedSnapshots, client.ghosts.timeline.tick, client.clock.rttMs];',
      ...['ghosts.applySnapshot', 'ghosts.inputProvider', 'ghosts.frame', 'input.commit', 'prediction?.advance', 'prediction?.resimulationHooks',
        'clock.onPong', 'spawns.clear', 'ghosts.timeline.update', 'ghosts.systems.run'].map((m) => `// @ts-expect-error engine wiring\nexport const ${m.replace(/\W/g, '_')} = client.${m};`),
      '// @ts-expect-error a read-only count\nclient.ghosts.rejectedSnapshots = 0;',
      "import type { Connection } from 'react-netcode';",
      'declare const connection: Connection;',
      'export const seen = [connection.state, connection.peer, connection.joinPayload, connection.interpolationTick, (connection.data.team = 1)];',
      "// @ts-expect-error the server's to set\nconnection.state = 'closed';",
      '// @ts-expect-error the resume secret is not offered\nexport const secret = connection.resumeToken;',
      '// @ts-expect-error engine bookkeeping\nexport const heard = connection.heardAt;',
      '',
    ].join('\n'));
    const tsconfig = JSON.parse(readFileSync(join(dirs.starter, 'tsconfig.json'), 'utf8')) as { include: string[] };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...tsconfig, include: ['*.ts', '*.tsx'] }));
    symlinkSync(join(dirs.starter, 'node_modules'), join(dir, 'node_modules'), 'dir'); // the starter's install: the same packages
    expect(() => run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', dir], dir)).not.toThrow();
  });

  it('`react-netcode init starter --from <tarball>` copies the starter and depends on the tarball, by a path relative to the project', () => {
    expect(initOutput).toMatch(/^react-netcode: created .*starter, depending on react-netcode file:\.\.\/react-netcode-[\d.]+\.tgz\. Next: cd starter && npm install && npm run dev/);
    expect(initPackage).toEqual({ name: 'starter', dependency: `file:../react-netcode-${initPackage.version}.tgz`, version: initPackage.version });
    const tracked = execFileSync('git', ['ls-files', 'examples/starter'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    const top = new Set(tracked.map((f) => f.split('/')[2]!));
    // What init copied, plus what the test made: the install, its lockfile and the build.
    expect(readdirSync(dirs.starter).sort()).toEqual([...top, 'node_modules', 'package-lock.json', 'dist'].sort());
  });

  for (const name of STARTERS) {
    it(`${name}: the browser bundle holds no server code and no Node built-ins`, () => {
      const assets = join(dirs[name], 'dist/assets');
      const files = readdirSync(assets).filter((f) => f.endsWith('.js'));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const code = readFileSync(join(assets, file), 'utf8');
        for (const marker of SERVER_MARKERS) expect(code, `${file} contains "${marker}"`).not.toContain(marker);
        expect(code).not.toMatch(NODE_BUILTINS);
        // The bundle is the client: it does hold the socket.io client transport.
        expect(code).toContain('react-netcode: could not connect to');
        const size = statSync(join(assets, file)).size;
        console.log(`${name} bundle ${file}: ${(size / 1024).toFixed(0)} kB raw, ${(gzipSync(code).length / 1024).toFixed(0)} kB gzip`);
      }
    });

    it(`${name}: two players see each other, and a ball shot with Space is predicted, then matched`, async () => {
      const server = await serve(dirs[name]);
      servers.push(server);
      const ann = await open(server.url, 'ann');
      const bob = await open(server.url, 'bob');
      for (const page of [ann, bob]) await untilHud(page, 'both players in game', (h) => h.status === 'in-game' && h.players === '2', 60_000, context);
      await ann.keyboard.press('Space');
      const after = await untilHud(ann, 'the shot ball to be matched', (h) => Number(h.matched) >= 1, 20_000, context);
      expect(Number(after.predicted)).toBeGreaterThanOrEqual(1);
      await untilHud(bob, 'bob to see the ball', (h) => Number(h.balls) >= 1, 20_000, context);
      expect(errors).toEqual([]);
    });
  }

  it('starter in Vite dev: react-netcode/socket-io resolves to the client half and the game plays', async () => {
    const server = await serve(dirs.starter, ['--dev']);
    servers.push(server);
    const page = await open(server.url, 'dev');
    await untilHud(page, 'the dev page in game', (h) => h.status === 'in-game' && h.players === '1', 90_000, context);
    await page.keyboard.press('Space');
    await untilHud(page, 'the shot ball to be matched', (h) => Number(h.matched) >= 1, 20_000, context);
    expect(errors).toEqual([]);
    expect(warnings.filter((w) => /externalized|Buffer/.test(w))).toEqual([]);
    expect(warnings.filter((w) => w.includes('THREE.Clock'))).toEqual([]); // hideR3fClockWarning, before the Canvas
    expect(server.output()).not.toMatch(/error/i);
  });
});
