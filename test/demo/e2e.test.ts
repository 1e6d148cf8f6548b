// End-to-end: the demo as a player gets it. Builds the client (vite), starts the demo
// server on an ephemeral port (as `npm start` does), opens two pages in headless system
// Chromium (never a downloaded browser) and checks, through the `?debug` hook the client
// installs on `window.__demo` (demo/client/debug.tsx):
//  - both players join and each page draws the other's character: the pixel at the other
//    character's projected screen position is that player's colour (lit), not the scene;
//  - with the 150 ms preset on page 1, a thrown grenade is predicted before the snapshot
//    containing its ghost arrives, then matched (red/green, never black); page 2 sees it;
//  - its blast moves the ball(s) within sqrt(40) m of where it exploded, and each page
//    plays its explosion effect exactly once;
//  - kickball: bob drops a ball (B), the ball-switching predicts it because it is near
//    him, and his kick (E) moves it;
//  - no console errors or page errors on either page.
// Screenshots go to test-artifacts/demo/.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.ts';
import { centrePixel } from '../helpers/png.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const ARTIFACTS = join(ROOT, 'test-artifacts/demo');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // two pages render at once: keep the one not in front from being throttled
  '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
];
const BLAST_RADIUS = Math.sqrt(40);

interface Vec3 {
  x: number;
  y: number;
  z: number;
}
interface GhostInfo {
  id: number;
  owner: number;
  origin: string;
  mode: string;
  spawnId?: number;
  colour: string;
  position: Vec3;
}
interface DemoEvent {
  kind: string;
  spawnId: number;
  t: number;
  at?: Vec3;
}
interface DemoHook {
  client: { networkId: number | undefined; status: string };
  events: DemoEvent[];
  grenadeColours: Record<number, string[]>;
  explosions: { spawnId: number; at: Vec3; t: number }[];
  modes: { id: number; type: string; mode: string; t: number }[];
  press: (field: 'fire' | 'jump' | 'kick' | 'spawnBall') => void;
  frames: number;
  ghosts: (type: string) => GhostInfo[];
  project: (id: number) => { x: number; y: number } | undefined;
  colourOf: (id: number) => string | undefined;
}
declare const window: { __demo?: DemoHook };


const hex = (c: string): [number, number, number] => [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)];
/** Chromaticity (r, g, b shares of the sum): lighting scales a colour, its chromaticity stays close. */
const chroma = ([r, g, b]: [number, number, number]): [number, number, number] => {
  const s = r + g + b || 1;
  return [r / s, g / s, b / s];
};
const distance = (a: [number, number, number], b: [number, number, number]): number => Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));

/** The scene colours a character must not be mistaken for (sky, ground, grid lines, walls). */
const SCENE = ['#9fc3e0', '#7a9a6a', '#3f5a38', '#5f7d52', '#8d6e63'].map((c) => chroma(hex(c)));

describe('demo end to end (two browsers)', { timeout: 90_000 }, () => {
  let child: ChildProcess | undefined;
  // One browser per player: two tabs of one browser would leave the one behind throttled to ~1 fps.
  const contexts: BrowserContext[] = [];
  const profiles: string[] = [];
  let url = '';
  let serverOut = '';
  const errors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`test: ${CHROMIUM} is missing; install the system Chromium (apt-get install -y chromium). Browsers are never downloaded.`);
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'demo/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'pipe' });
    child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'demo/server/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (serverOut += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (serverOut += d.toString()));
    await waitFor(() => /listening on http:\/\/localhost:(\d+)/.test(serverOut), 'the demo server to listen', 20_000);
    url = `http://127.0.0.1:${/localhost:(\d+)/.exec(serverOut)![1]}`;
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    if (child && child.exitCode === null) child.kill('SIGKILL');
    for (const p of profiles) rmSync(p, { recursive: true, force: true });
  });

  async function open(name: string): Promise<Page> {
    const profile = mkdtempSync(join(tmpdir(), 'rn-demo-e2e-'));
    profiles.push(profile);
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 720, height: 450 } });
    contexts.push(context);
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => void (m.type() === 'error' && errors.push(`${name} console: ${m.text()}`)));
    page.on('pageerror', (e) => void errors.push(`${name} pageerror: ${String(e)}`));
    page.on('response', (r) => void (r.status() >= 400 && errors.push(`${name} HTTP ${r.status()} ${r.url()}`)));
    await page.goto(`${url}/?name=${name}&debug`);
    return page;
  }

  /** Runs `fn(window.__demo, arg)` in the page (`fn` is sent as source: it must not close over test variables). */
  const hook = <T, A = undefined>(page: Page, fn: (d: DemoHook, arg: A) => T, arg?: A): Promise<T> =>
    page.evaluate(([src, a]) => new Function('d', 'a', `return (${src})(d, a)`)(window.__demo, a) as T, [fn.toString(), arg] as const);

  async function until<T>(page: Page, what: string, fn: (d: DemoHook) => T, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
    const deadline = Date.now() + ms;
    let value: T | undefined;
    for (;;) {
      value = (await page.evaluate(() => window.__demo !== undefined)) ? await hook(page, fn) : undefined;
      if (value !== undefined && ok(value)) return value;
      if (Date.now() > deadline) throw new Error(`test: timed out waiting for ${what}; last ${JSON.stringify(value)}; server: ${serverOut}`);
      await page.waitForTimeout(100);
    }
  }

  /** The pixel at a ghost's projected position must be its colour (by chromaticity), not the scene's. Retries while it moves. */
  async function expectDrawn(page: Page, id: number, label: string): Promise<void> {
    let message = '';
    for (let attempt = 0; attempt < 10; attempt++) {
      const probe = await hook(page, (d, ghost: number) => ({ at: d.project(ghost), colour: d.colourOf(ghost) }), id);
      if (!probe.at || !probe.colour) {
        message = `${label}: ghost ${id} not on the page`;
        continue;
      }
      const png = await page.screenshot({ clip: { x: Math.round(probe.at.x) - 1, y: Math.round(probe.at.y) - 1, width: 3, height: 3 } });
      const pixel = centrePixel(png);
      const mine = distance(chroma(pixel), chroma(hex(probe.colour)));
      const scene = Math.min(...SCENE.map((c) => distance(chroma(pixel), c)));
      message = mine < scene && mine < 0.12 ? '' : `${label}: pixel at (${probe.at.x.toFixed(0)}, ${probe.at.y.toFixed(0)}) is rgb(${pixel.join(',')}), not ${probe.colour} (chroma distance ${mine.toFixed(3)} vs scene ${scene.toFixed(3)})`;
      if (message === '') return;
      await page.waitForTimeout(100);
    }
    expect(message).toBe('');
  }

  it('two players see each other; a predicted grenade is matched, seen by both, its blast moves a ball and plays once; a kick moves a predicted ball', async () => {
    const inGame = (d: DemoHook): { me: number | undefined; players: GhostInfo[]; frames: number } => ({ me: d.client.networkId, players: d.ghosts('player'), frames: d.frames });
    // Alice joins first, so she is networkId 1 and spawns where the blast check expects
    // her throw to land (a ball waits there); bob joins after.
    const alice = await open('alice');
    await until(alice, 'alice to join', inGame, (v) => v.me !== undefined);
    const bob = await open('bob');
    const players = (d: DemoHook): GhostInfo[] => d.ghosts('player');
    const a = await until(alice, 'alice to join and see two players', inGame, (v) => v.me !== undefined && v.players.length === 2 && v.frames > 20);
    const b = await until(bob, 'bob to join and see two players', inGame, (v) => v.me !== undefined && v.players.length === 2 && v.frames > 20);
    expect(a.me).not.toBe(b.me);
    // Let the follow cameras settle on their players.
    await alice.waitForTimeout(1000);
    const bobOnAlice = (await hook(alice, players)).find((p) => p.owner === b.me)!;
    const aliceOnBob = (await hook(bob, players)).find((p) => p.owner === a.me)!;
    expect(bobOnAlice, 'alice sees bob').toBeDefined();
    expect(aliceOnBob, 'bob sees alice').toBeDefined();
    await expectDrawn(alice, bobOnAlice.id, 'bob on alice’s page');
    await expectDrawn(bob, aliceOnBob.id, 'alice on bob’s page');
    writeFileSync(join(ARTIFACTS, 'alice-joined.png'), await alice.screenshot());
    writeFileSync(join(ARTIFACTS, 'bob-joined.png'), await bob.screenshot());

    // 150 ms preset on alice's page, then throw (F).
    await alice.getByLabel(/150 ms/).check();
    await alice.waitForTimeout(1500); // let the clock and input timeline adapt to the new latency
    const ballsBefore = await hook(bob, (d) => d.ghosts('ball'));
    expect(ballsBefore.length).toBeGreaterThan(0);
    await alice.keyboard.press('KeyF');

    const matched = await until(alice, 'the grenade to be matched', (d) => d.events, (ev) => ev.some((e) => e.kind === 'matched'), 5_000);
    const spawnId = matched.find((e) => e.kind === 'matched')!.spawnId;
    const order = matched.filter((e) => e.spawnId === spawnId && e.kind !== 'despawn').map((e) => e.kind);
    expect(order).toEqual(['predicted spawn', 'snapshot containing the ghost', 'matched']);
    const [predictedAt, snapshotAt] = [matched.find((e) => e.spawnId === spawnId && e.kind === 'predicted spawn')!.t, matched.find((e) => e.spawnId === spawnId && e.kind === 'snapshot containing the ghost')!.t];
    expect(snapshotAt - predictedAt, 'the prediction leads the snapshot by about the round trip').toBeGreaterThan(50);

    const onAlice = await until(alice, 'the matched grenade on alice’s page', (d) => d.ghosts('grenade'), (g) => g.some((x) => x.spawnId === spawnId));
    const grenade = onAlice.find((x) => x.spawnId === spawnId)!;
    expect(grenade.origin).toBe('matched');
    expect(['#2e7d32', '#c62828']).toContain(grenade.colour);
    await until(bob, 'bob to see alice’s grenade', (d) => d.ghosts('grenade'), (g) => g.some((x) => x.spawnId === spawnId && x.owner === a.me));
    writeFileSync(join(ARTIFACTS, 'alice-grenade.png'), await alice.screenshot());
    writeFileSync(join(ARTIFACTS, 'bob-grenade.png'), await bob.screenshot());

    // The explosion (fuse 3 s): seen by bob as the despawn; balls in reach move.
    const despawned = await until(bob, 'the grenade to explode', (d) => d.events, (ev) => ev.some((e) => e.kind === 'despawn' && e.spawnId === spawnId), 6_000);
    const at = despawned.find((e) => e.kind === 'despawn' && e.spawnId === spawnId)!.at!;
    const near = ballsBefore.filter((ball) => Math.hypot(ball.position.x - at.x, ball.position.z - at.z) < BLAST_RADIUS - 0.5);
    const far = ballsBefore.filter((ball) => Math.hypot(ball.position.x - at.x, ball.position.z - at.z) > BLAST_RADIUS + 0.5);
    expect(near.length, `a ball within ${BLAST_RADIUS.toFixed(1)} m of the blast at (${at.x.toFixed(1)}, ${at.z.toFixed(1)}); balls ${JSON.stringify(ballsBefore.map((x) => x.position))}`).toBeGreaterThan(0);
    await bob.waitForTimeout(800);
    const ballsAfter = await hook(bob, (d) => d.ghosts('ball'));
    const moved = (ball: GhostInfo): number => {
      const now = ballsAfter.find((x) => x.id === ball.id)!.position;
      return Math.hypot(now.x - ball.position.x, now.z - ball.position.z);
    };
    for (const ball of near) expect(moved(ball), `ball ${ball.id} in the blast moved`).toBeGreaterThan(0.3);
    for (const ball of far) expect(moved(ball), `ball ${ball.id} out of the blast stayed`).toBeLessThan(0.01);
    writeFileSync(join(ARTIFACTS, 'bob-after-blast.png'), await bob.screenshot());

    // Alice's grenade was never shown black (a server ghost that failed to match).
    const colours = await hook(alice, (d) => d.grenadeColours);
    expect(colours[spawnId]).not.toContain('#000000');
    expect(colours[spawnId]!.at(-1)).toMatch(/^#(2e7d32|c62828)$/);

    // One explosion effect per page for that grenade, where it exploded.
    for (const [page, who] of [[alice, 'alice'], [bob, 'bob']] as const) {
      const played = (await hook(page, (d) => d.explosions)).filter((e) => e.spawnId === spawnId);
      expect(played.length, `${who} plays the explosion once`).toBe(1);
      expect(Math.hypot(played[0]!.at.x - at.x, played[0]!.at.z - at.z), `${who}'s explosion is where it exploded`).toBeLessThan(1);
    }

    // Kickball on bob's page: drop a ball in front of him (server spawn), it is near, so it turns predicted; kick it.
    const ballIds = new Set((await hook(bob, (d) => d.ghosts('ball'))).map((x) => x.id));
    await hook(bob, (d) => d.press('spawnBall'));
    const spawned = await until(bob, 'bob’s new ball to be predicted', (d) => d.ghosts('ball'), (list) => list.some((x) => !ballIds.has(x.id) && x.mode === 'predicted'), 5_000);
    const ball = spawned.find((x) => !ballIds.has(x.id))!;
    const switched = await hook(bob, (d) => d.modes);
    expect(switched.some((m) => m.id === ball.id && m.mode === 'predicted'), 'switched to predicted through the library').toBe(true);
    await hook(bob, (d) => d.press('kick'));
    const kicked = await until(bob, 'the kicked ball to roll', (d) => d.ghosts('ball'), (list) => {
      const now = list.find((x) => x.id === ball.id);
      return now !== undefined && Math.hypot(now.position.x - ball.position.x, now.position.z - ball.position.z) > 1;
    }, 5_000);
    expect(kicked.find((x) => x.id === ball.id)).toBeDefined();
    writeFileSync(join(ARTIFACTS, 'bob-kick.png'), await bob.screenshot());
    expect(errors, errors.join('\n')).toEqual([]);
  });
});
