// The demo's bundle as a player's browser gets it (issue 21, item 6): the production
// build prints no warning; the page's first load (the lobby: index.html's scripts and
// their static imports) is at most 500 kB of gzipped JavaScript, and the game, Rapier
// and the leva tuning panel are chunks of their own, fetched only when needed; and in
// headless system Chromium, from the lobby through join, play and the tuning panel, the
// console shows no error and no warning (Rapier's init and R3F's THREE.Clock included).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startDemoServer, type DemoServer } from '../helpers/demo-browser.ts';

const DIST = join(ROOT, 'demo/dist');
const ASSETS = join(DIST, 'assets');
const LOBBY_BUDGET = 500_000; // bytes of gzipped JavaScript until the lobby is interactive
const gzipped = (file: string): number => gzipSync(readFileSync(join(ASSETS, file)), { level: 9 }).length;

/** The chunks a chunk imports statically (`import … from "./x.js"` at its top), which the browser fetches before running it. */
function staticImports(file: string): string[] {
  const head = readFileSync(join(ASSETS, file), 'utf8').slice(0, 4000);
  return [...head.matchAll(/(?:^|;|\n)\s*import\s*(?:[^'"()]*?from\s*)?["']\.\/([^"']+\.js)["']/g)].map((m) => m[1]!);
}

describe('demo bundle', { timeout: 150_000 }, () => {
  let buildOutput = '';
  let server: DemoServer | undefined;

  beforeAll(async () => {
    const build = spawnSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'demo/vite.config.ts'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } }); // vitest sets NODE_ENV=test: React's development build
    buildOutput = `${build.stdout}\n${build.stderr}`.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
    expect(build.status, buildOutput).toBe(0);
    server = await startDemoServer();
  }, 90_000);

  afterAll(() => server?.stop());

  it('builds without a warning; the lobby loads ≤ 500 kB gzip of JS; game, Rapier and leva are lazy chunks', () => {
    expect(buildOutput).not.toMatch(/warn|\(!\)|MODULE_LEVEL_DIRECTIVE|chunks are larger/i);
    const html = readFileSync(join(DIST, 'index.html'), 'utf8');
    const entries = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]!);
    const first = new Set<string>();
    const visit = (f: string): void => {
      if (first.has(f)) return;
      first.add(f);
      for (const dep of staticImports(f)) visit(dep);
    };
    for (const e of entries) visit(e);
    const chunks = readdirSync(ASSETS).filter((f) => f.endsWith('.js'));
    const sizes = Object.fromEntries(chunks.map((f) => [f, gzipped(f)]));
    const firstLoad = [...first].reduce((sum, f) => sum + sizes[f]!, 0);
    console.log(`demo chunks (gzip -9 bytes): ${JSON.stringify(sizes)}; first load ${[...first].join(' + ')} = ${firstLoad}`);
    expect(firstLoad).toBeLessThanOrEqual(LOBBY_BUDGET);
    const named = (prefix: string): string | undefined => chunks.find((f) => f.startsWith(prefix));
    for (const lazy of ['Session-', 'rapier-', 'TuningPanel-']) {
      expect(named(lazy), `a ${lazy}*.js chunk`).toBeDefined();
      expect(first.has(named(lazy)!), `${lazy} is not in the first load`).toBe(false);
    }
    // Rapier (its inlined WASM) is in its chunk alone, not in the game's.
    expect(readFileSync(join(ASSETS, named('Session-')!), 'utf8')).not.toContain('rapier_wasm3d_bg');
  });

  it('in Chromium: lobby, join, play and the tuning panel show no console error or warning', async () => {
    const profile = mkdtempSync(join(tmpdir(), 'rn-demo-bundle-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 720, height: 450 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const messages: string[] = [];
      const scripts: string[] = [];
      // Chromium's software GL reports "GL Driver Message (…): GPU stall due to ReadPixels" when the compositor
      // reads a WebGL canvas back: the headless browser's GPU process speaking ("[.WebGL-0x…]"), not the page's scripts.
      const driver = (m: { text: () => string }): boolean => /^\[\.WebGL-0x[0-9a-f]+\]GL Driver Message \(OpenGL, Performance/.test(m.text());
      page.on('console', (m) => void ((m.type() === 'error' || m.type() === 'warning') && !driver(m) && messages.push(`${m.type()}: ${m.text()}`)));
      page.on('pageerror', (e) => void messages.push(`pageerror: ${String(e)}`));
      page.on('request', (r) => void (r.url().endsWith('.js') && scripts.push(r.url().split('/').pop()!)));
      await page.goto(`${server!.url}/?debug`);
      await page.getByPlaceholder('your name').waitFor();
      // The lobby's list of open matches has answered (it then long-polls: the network is never idle).
      await page.getByText('No open match yet').waitFor({ timeout: 30_000 });
      await page.waitForLoadState('load');
      // The lobby is interactive with the entry chunk alone.
      expect(scripts.every((s) => s.startsWith('index-')), scripts.join(', ')).toBe(true);
      await page.getByPlaceholder('your name').fill('ann');
      await page.getByRole('button', { name: 'Quick play' }).click();
      await page.waitForFunction(() => (window as { __demo?: { client: { status: string } } }).__demo?.client.status === 'in-game', undefined, { timeout: 60_000 });
      expect(scripts.some((s) => s.startsWith('Session-')) && scripts.some((s) => s.startsWith('rapier-'))).toBe(true);
      expect(scripts.some((s) => s.startsWith('TuningPanel-')), 'leva waits for the tuning button').toBe(false);
      await page.keyboard.down('KeyW');
      await page.waitForTimeout(1000);
      await page.keyboard.up('KeyW');
      await page.keyboard.press('KeyF');
      await page.getByRole('button', { name: 'tuning' }).click();
      await page.getByText('grenade (live, server-checked)').waitFor({ timeout: 30_000 });
      expect(scripts.some((s) => s.startsWith('TuningPanel-'))).toBe(true);
      await page.waitForTimeout(4000); // the grenade explodes (3 s fuse)
      expect(messages, messages.join('\n')).toEqual([]);
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
