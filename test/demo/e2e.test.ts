// End-to-end: the demo as a player gets it, in headless system Chromium (never a downloaded
// browser). Builds the client (vite), starts the demo server on an ephemeral port (as
// `npm start` does) and checks, through the `?debug` hook the client installs on
// `window.__demo` (demo/client/debug.tsx):
//  1. two players: both join and each page draws the other's character (the pixel at its
//     projected position is that player's colour, not the scene); with the 150 ms preset a
//     thrown grenade is predicted before the snapshot containing it arrives, then matched
//     (red/green, never black), page 2 sees it, its blast moves the balls within sqrt(40) m
//     and each page plays its explosion once; bob drops a ball, it turns predicted near him
//     and his kick moves it; no console or page errors;
//  2. throttled: CPU throttling over CDP raised until the page renders at about 15 fps, the
//     link conditioned on both ends (the page's 150 ms preset + the server's DEMO_LINK_MS):
//     every throw is predicted once, matched, never shown black, and explodes once;
//  3. corrections: a lone player walking with the keys at the 150 ms preset (±20 ms, 5 %
//     loss), at 60 and at ~30 fps (throttled): at most one correction > 1 mm of the player per
//     minute, each with its logged cause, none 'unexplained'.
// Timeouts are sized for a machine three times slower than an idle one. Screenshots go to
// test-artifacts/demo/. Measured figures (fps, throttling, corrections) are printed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { centrePixel } from '../helpers/png.ts';
import { hook, openDemo, ROOT, startDemoServer, throttleTo, until as untilIn, walk, watchServerStalls, holdFps, type Browser, type CorrectionInfo, type DemoHook, type DemoServer, type GhostInfo } from '../helpers/demo-browser.ts';

/** A correction of the walking player and the stall that explains it, if one was measured just before. */
type Excused = CorrectionInfo & { stall: string | undefined };

const ARTIFACTS = join(ROOT, 'test-artifacts/demo');
const BLAST_RADIUS = Math.sqrt(40);
/** Walking per frame rate in the corrections test. */
const WALK_MS = 35_000;
/** A pause (server event loop, page frame) longer than this is about the input margin the server measured at the 150 ms preset (4–16 ticks): inputs turn late. */
const STALL_MS = 150;

const hex = (c: string): [number, number, number] => [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)];
/** Chromaticity (r, g, b shares of the sum): lighting scales a colour, its chromaticity stays close. */
const chroma = ([r, g, b]: [number, number, number]): [number, number, number] => {
  const s = r + g + b || 1;
  return [r / s, g / s, b / s];
};
const distance = (a: [number, number, number], b: [number, number, number]): number => Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));

/** The scene colours a character must not be mistaken for (sky, ground, grid lines, walls). */
const SCENE = ['#9fc3e0', '#7a9a6a', '#3f5a38', '#5f7d52', '#8d6e63'].map((c) => chroma(hex(c)));
const MATCHED_COLOURS = /^#(2e7d32|c62828)$/;

describe('demo end to end (headless Chromium)', { timeout: 150_000 }, () => {
  let server: DemoServer | undefined;
  const servers: DemoServer[] = [];
  const browsers: Browser[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'demo/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'pipe', env: { ...process.env, NODE_ENV: 'production' } }); // not vitest's NODE_ENV=test: the bundle players get
    server = await startDemoServer();
    servers.push(server);
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 90_000);

  afterAll(async () => {
    await Promise.all(browsers.map((b) => b.close()));
    for (const s of servers) s.stop();
  });

  async function open(name: string, options: Parameters<typeof openDemo>[3] & { on?: DemoServer } = {}): Promise<Page> {
    const b = await openDemo((options.on ?? server!).url, name, errors, options);
    browsers.push(b);
    return b.page;
  }
  const browserOf = (page: Page): Browser => browsers.find((b) => b.page === page)!;
  const serverOutput = (): string => servers.map((s) => `server ${s.url}: ${s.output()}`).join('\n');
  const until = <T,>(page: Page, what: string, fn: (d: DemoHook) => T, ok: (v: T) => boolean, ms = 15_000): Promise<T> => untilIn(page, what, fn, ok, ms, serverOutput);

  /** The network panel starts folded in a small window (the test's 720 × 450): unfold it. */
  async function openNetworkPanel(page: Page): Promise<void> {
    const fold = page.getByTestId('network-open');
    if (await fold.isVisible()) await fold.click();
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
    // Alice joins first, so she is red, on red's first kickoff spot (−8, 0) facing +x: her throw
    // lands and explodes by the ball on the centre spot; bob joins after (blue, at (8, 0)).
    const alice = await open('alice');
    await until(alice, 'alice to join', inGame, (v) => v.me !== undefined);
    const bob = await open('bob');
    const players = (d: DemoHook): GhostInfo[] => d.ghosts('player');
    const a = await until(alice, 'alice to join and see two players', inGame, (v) => v.me !== undefined && v.players.length === 2 && v.frames > 20);
    const b = await until(bob, 'bob to join and see two players', inGame, (v) => v.me !== undefined && v.players.length === 2 && v.frames > 20);
    expect(a.me).not.toBe(b.me);
    // They join on their kickoff spots, 16 m apart, out of each other's view: bob walks towards
    // alice, 3 m to +z first so that he passes the centre ball 3 m away, to about (−1, 3).
    for (const [key, ms] of [['KeyS', 500], ['KeyA', 1500]] as const) {
      await bob.keyboard.down(key);
      await bob.waitForTimeout(ms);
      await bob.keyboard.up(key);
    }
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
    await openNetworkPanel(alice);
    await alice.getByLabel(/150 ms/).check();
    await alice.waitForTimeout(1500); // let the clock and input timeline adapt to the new latency
    const ballsBefore = await hook(bob, (d) => d.ghosts('ball'));
    expect(ballsBefore.length).toBeGreaterThan(0);
    await alice.keyboard.press('KeyF');

    const matched = await until(alice, 'the grenade to be matched', (d) => d.events, (ev) => ev.some((e) => e.kind === 'matched'), 15_000);
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
    const despawned = await until(bob, 'the grenade to explode', (d) => d.events, (ev) => ev.some((e) => e.kind === 'despawn' && e.spawnId === spawnId), 15_000);
    const at = despawned.find((e) => e.kind === 'despawn' && e.spawnId === spawnId)!.at!;
    const near = ballsBefore.filter((ball) => Math.hypot(ball.position.x - at.x, ball.position.z - at.z) < BLAST_RADIUS - 0.5);
    const far = ballsBefore.filter((ball) => Math.hypot(ball.position.x - at.x, ball.position.z - at.z) > BLAST_RADIUS + 0.5);
    expect(near.length, `a ball within ${BLAST_RADIUS.toFixed(1)} m of the blast at (${at.x.toFixed(1)}, ${at.z.toFixed(1)}); balls ${JSON.stringify(ballsBefore.map((x) => x.position))}`).toBeGreaterThan(0);
    await bob.waitForTimeout(800);
    const ballsAfter = await hook(bob, (d) => d.ghosts('ball'));
    // A ball blown over a wall falls out of the arena and is despawned: it moved.
    const moved = (ball: GhostInfo): number => {
      const now = ballsAfter.find((x) => x.id === ball.id)?.position;
      return now === undefined ? Infinity : Math.hypot(now.x - ball.position.x, now.z - ball.position.z);
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
    const spawned = await until(bob, 'bob’s new ball to be predicted', (d) => d.ghosts('ball'), (list) => list.some((x) => !ballIds.has(x.id) && x.mode === 'predicted'), 15_000);
    const ball = spawned.find((x) => !ballIds.has(x.id))!;
    const switched = await hook(bob, (d) => d.modes);
    expect(switched.some((m) => m.id === ball.id && m.mode === 'predicted'), 'switched to predicted through the library').toBe(true);
    await hook(bob, (d) => d.press('kick'));
    const kicked = await until(bob, 'the kicked ball to roll', (d) => d.ghosts('ball'), (list) => {
      const now = list.find((x) => x.id === ball.id);
      return now !== undefined && Math.hypot(now.position.x - ball.position.x, now.position.z - ball.position.z) > 1;
    }, 15_000);
    expect(kicked.find((x) => x.id === ball.id)).toBeDefined();
    writeFileSync(join(ARTIFACTS, 'bob-kick.png'), await bob.screenshot());

    // The network panel counts corrections by cause, as client.corrections does (refreshed within 250 ms).
    let panel = '';
    let total = -1;
    for (let i = 0; i < 20 && !panel.startsWith(`corrections ${total}`); i++) {
      if (i > 0) await alice.waitForTimeout(200);
      total = await hook(alice, (d) => Object.values(d.net().correctionsByCause).reduce((a, n) => a + n, 0));
      panel = (await alice.getByTestId('corrections').textContent()) ?? '';
    }
    console.log(`alice's network panel: ${panel}`);
    expect(panel.startsWith(`corrections ${total}`), `the panel (${panel}) shows client.corrections.total = ${total}`).toBe(true);
    expect(errors, errors.join('\n')).toEqual([]);
    await closePages();
  });

  /** Close every page opened so far: a later test measures frame rates on a quiet machine. */
  async function closePages(): Promise<void> {
    await Promise.all(browsers.splice(0).map((b) => b.close()));
  }

  it('throttled to about 15 fps, the link conditioned on both ends: every throw is predicted once, matched and explodes once', async () => {
    // Server side: +100 ms ± 20 round trip, 2 % loss per direction (conditionServer); page side: the 150 ms ± 20, 5 % preset.
    const far = await startDemoServer({ DEMO_LINK_MS: '100', DEMO_JITTER_MS: '20', DEMO_LOSS: '0.02' });
    servers.push(far);
    expect(far.output()).toContain('link conditioner on every connection: 100 ms ±20, 2% loss');
    const page = await open('carol', { on: far, viewport: { width: 320, height: 200 }, query: '&preset=150' });
    await until(page, 'carol to join', (d) => ({ me: d.client.networkId, frames: d.frames }), (v) => v.me !== undefined && v.frames > 20, 30_000);
    const throttle = await throttleTo(browserOf(page), 15);
    console.log(`throttled run: ${throttle.steps}; rate ${throttle.rate}× gives ${throttle.fps.toFixed(1)} fps (target 15)`);
    expect(throttle.fps, `fps at ${throttle.rate}× CPU throttling`).toBeGreaterThanOrEqual(8);
    expect(throttle.fps, `fps at ${throttle.rate}× CPU throttling`).toBeLessThanOrEqual(25);
    await page.waitForTimeout(1500); // the clock and input timeline settle on the slower frames
    const net = await hook(page, (d) => d.net());
    // Both conditioners are in the path: 150 ms (page) + 100 ms (server) of added round trip.
    expect(net.rttMs, 'RTT through both conditioners').toBeGreaterThan(230);

    const THROWS = 6;
    const start = await hook(page, (d) => ({ frames: d.frames, t: performance.now() }));
    const hold = holdFps(browserOf(page), 15, throttle.rate);
    for (let i = 0; i < THROWS; i++) {
      await page.keyboard.press('KeyF'); // one press = one `fire` InputEvent = one grenade
      await page.waitForTimeout(700);
    }
    // Fuse 3 s + the round trip + the interpolation delay, three times over. A key held while 15 ticks
    // pass repeats the throw (repeatEveryTicks): a slow frame between keydown and keyup may add one.
    const events = await until(
      page,
      `every grenade of the ${THROWS} throws to explode`,
      (d) => ({ ids: [...new Set(d.events.filter((e) => e.kind === 'predicted spawn').map((e) => e.spawnId))], events: d.events }),
      (v) => v.ids.length >= THROWS && v.ids.every((id) => v.events.some((e) => e.kind === 'despawn' && e.spawnId === id)),
      30_000,
    );
    const thrown = events.ids.length;
    const rates = await hold.stop();
    const seen = await hook(page, (d, from: { frames: number; t: number }) => ({ colours: d.grenadeColours, explosions: d.explosions, net: d.net(), fps: ((d.frames - from.frames) * 1000) / (performance.now() - from.t) }), start);
    const per = events.ids.map((id) => {
      const of = (kind: string): number => events.events.filter((e) => e.spawnId === id && e.kind === kind).length;
      return { id, predicted: of('predicted spawn'), matched: of('matched'), despawned: of('despawn'), explosions: seen.explosions.filter((e) => e.spawnId === id).length, colours: seen.colours[id] ?? [] };
    });
    console.log(`throttled run at ${seen.fps.toFixed(1)} fps from the first throw to the last explosion (CPU throttling held at ${rates.join(' → ')}×), RTT ${seen.net.rttMs.toFixed(0)} ms ±${seen.net.jitterMs.toFixed(0)}: ${THROWS} presses of F → ${thrown} grenades; spawns ${JSON.stringify(seen.net.spawns)}; ${per.map((p) => `\n  spawnId ${p.id}: predicted ${p.predicted}, matched ${p.matched}, exploded ${p.explosions}, colours ${p.colours.join(' > ')}`).join('')}`);
    expect(thrown, 'one grenade per press, one more at most per press held over 15 ticks').toBeLessThanOrEqual(2 * THROWS);
    expect(seen.fps, 'fps over the throws (the machine’s load varies under the throttling)').toBeGreaterThanOrEqual(5);
    expect(seen.fps).toBeLessThanOrEqual(25);
    for (const p of per) {
      expect(p, `throw spawnId ${p.id}: predicted once, matched once, one explosion`).toMatchObject({ predicted: 1, matched: 1, despawned: 1, explosions: 1 });
      expect(p.colours, `throw spawnId ${p.id} never popped in from the snapshot (black)`).not.toContain('#000000');
      expect(p.colours.at(-1)).toMatch(MATCHED_COLOURS);
    }
    expect(seen.net.spawns).toEqual({ predicted: thrown, matched: thrown, rejected: 0, late: expect.any(Number) }); // no double spawn, none rejected
    expect(errors, errors.join('\n')).toEqual([]);
    await closePages();
    far.stop();
  });

  it('a lone player walking at the 150 ms preset: at most one correction > 1 mm per minute unthrottled and throttled to ≤ 30 fps, each with its cause', async () => {
    // A small viewport: SwiftShader renders the 720×450 scene at 5–10 fps on two busy cores.
    // In a private match of its own (`&private`): a new room, whose match clock starts now. In the
    // room of the earlier players the rematch (at 138 s) would put it back on its kickoff spot mid-walk.
    const page = await open('walker', { viewport: { width: 160, height: 100 }, query: '&preset=150&private' });
    await until(page, 'the walker to join', (d) => ({ me: d.client.networkId, frames: d.frames }), (v) => v.me !== undefined && v.frames > 20, 30_000);
    // The first frames compile shaders (a second each): walk once the page renders steadily and the clock has settled.
    await until(page, 'the page to render steadily', (d) => d.fps(), (fps) => fps > 20, 30_000);
    await page.waitForTimeout(1500);
    const b = browserOf(page);
    const runs: { label: string; fps: number; counted: Excused[]; unexplained: Excused[]; minutes: number }[] = [];
    // The slower run aims at 30 fps, or at 70 % of what the unthrottled run reached when that was under ≈ 43 fps (a loaded
    // machine: SwiftShader then tops out near 35), so that the two runs are always clearly apart.
    for (const run of ['unthrottled', 'throttled'] as const) {
      const target = run === 'unthrottled' ? 60 : Math.round(Math.min(30, 0.7 * runs[0]!.fps));
      const throttle = target === 60 ? { rate: 1, fps: await hook(page, (d) => d.fps()), steps: '1× (none)' } : await throttleTo(b, target, 1.1);
      const before = await hook(page, (d) => ({ n: d.corrections.length, long: d.longFrames.length, net: d.net(), t: performance.now(), frames: d.frames }));
      const pageToWall = Date.now() - before.t; // page performance.now() + this = Date.now() (± one evaluate)
      const logFrom = server!.output().length;
      const watch = watchServerStalls(server!, STALL_MS);
      const hold = target === 60 ? undefined : holdFps(b, target, throttle.rate);
      const keys = await walk(page, WALK_MS, target);
      const rates = (await hold?.stop()) ?? [1];
      await page.waitForTimeout(1500); // a correction is named once the server's input reports cover its tick (≤ 1 s)
      const serverStalls = (await watch.stop()).map((x) => ({ t: x.at - pageToWall, what: x.what }));
      const after = await hook(
        page,
        (d, from: { n: number; long: number; t: number; frames: number }) => ({ list: d.corrections.slice(from.n), long: d.longFrames.slice(from.long), fps: ((d.frames - from.frames) * 1000) / (performance.now() - from.t), ms: performance.now() - from.t, net: d.net() }),
        { n: before.n, long: before.long, t: before.t, frames: before.frames },
      );
      const pageStalls = after.long.filter((f) => f.ms > STALL_MS);
      const serverWarnings = server!.output().slice(logFrom).split('\n').filter((l) => l.includes('fell behind') || l.includes('ran without'));
      const delta = (k: 'inputsLate' | 'inputsMissing'): number => after.net[k] - before.net[k];
      const minutes = after.ms / 60_000;
      // A correction follows its cause by the round trip and the input reports: a stall longer than the
      // input margin before it explains late, missing and skipped inputs and what the clocks did meanwhile
      // (a server that drops ticks steps its clock back, and clients take seconds to resync): the server's
      // event loop late by more than STALL_MS or its tick loop falling behind within 5 s, or a page frame
      // longer than STALL_MS within 3 s. Measured on the test's own clock, so within ±0.3 s.
      const stallNear = (t: number): string | undefined => {
        const s = serverStalls.find((x) => x.t <= t + 500 && x.t >= t - 5000);
        if (s !== undefined) return `${s.what} ${((t - s.t) / 1000).toFixed(1)} s before`;
        const p = pageStalls.find((x) => x.t <= t && x.t >= t - 3000);
        return p === undefined ? undefined : `a ${p.ms.toFixed(0)} ms page frame ${((t - p.t) / 1000).toFixed(1)} s before`;
      };
      const player = after.list.filter((c) => c.type === 'player' && c.distance > 0.001).map((c) => ({ ...c, stall: stallNear(c.t) }));
      const others = after.list.filter((c) => !(c.type === 'player' && c.distance > 0.001));
      const label = `${target} fps target`;
      const counted = player.filter((c) => c.stall === undefined);
      runs.push({ label, fps: after.fps, counted, unexplained: counted.filter((c) => c.cause === 'unexplained'), minutes });
      console.log(
        `walking, ${label}: CPU throttling ${throttle.steps}, held at ${rates.join(' → ')}×; ${after.fps.toFixed(1)} fps over the walk; ${(minutes * 60).toFixed(0)} s, ${keys.length} direction changes; ` +
          `RTT ${after.net.rttMs.toFixed(0)} ms ±${after.net.jitterMs.toFixed(0)}, interpolation delay ${after.net.interpolationDelayTicks.toFixed(1)} ticks; ` +
          `stalls: ${serverStalls.length} on the server, ${pageStalls.length} page frames > ${STALL_MS} ms (longest ${Math.max(0, ...after.long.map((f) => f.ms)).toFixed(0)} ms); inputs late ${delta('inputsLate')} / missing ${delta('inputsMissing')}; ` +
          `player corrections > 1 mm: ${player.length}, ${counted.length} with no stall before them (${(counted.length / minutes).toFixed(1)}/min)` +
          player.map((c) => `\n  ${(c.distance * 1000).toFixed(1)} mm at tick ${c.tick}: ${c.cause} — ${c.detail}${c.stall ? ` [after a stall: ${c.stall}]` : ''}`).join('') +
          `\nother corrections (balls; the player's ≤ 1 mm): ${others.length}${others.map((c) => `\n  ${c.type}#${c.ghostId} ${(c.distance * 1000).toFixed(1)} mm at tick ${c.tick}: ${c.cause}`).join('')}` +
          serverWarnings.map((l) => `\n  server: ${l.slice(0, 200)}…`).join(''),
      );
      for (const c of after.list) expect(c.cause.length > 0 && c.detail.length > 0, `${label}: correction at tick ${c.tick} names its cause`).toBe(true);
    }
    const [sixty, thirty] = runs as [(typeof runs)[0], (typeof runs)[0]];
    // SwiftShader reaches 40–55 fps unthrottled on an idle 2-core machine, ~33 under a load of 9 and ~21 in a CI run that
    // stalled: the "60 fps" run is the unthrottled one (≥ 15 fps), the slower one throttled towards min(30, 70 % of it)
    // (8–36 fps) and clearly slower; what is compared is the two runs, not the machine's speed.
    expect(sixty.fps, 'the 60 fps run (unthrottled) renders at ≥ 15 fps').toBeGreaterThanOrEqual(15);
    expect(thirty.fps, 'the throttled run renders at 8–36 fps').toBeGreaterThanOrEqual(8);
    expect(thirty.fps, 'the throttled run renders at 8–36 fps').toBeLessThanOrEqual(36);
    expect(sixty.fps, 'the 60 fps run renders faster than the throttled one').toBeGreaterThan(thirty.fps * 1.15);
    for (const run of runs) {
      expect(run.unexplained, `${run.label}: no unexplained correction of the walking player`).toEqual([]);
      expect(run.counted.length, `${run.label}: player corrections > 1 mm with no stall before them in ${(run.minutes * 60).toFixed(0)} s`).toBeLessThanOrEqual(Math.max(1, Math.ceil(run.minutes)));
    }
    expect(errors, errors.join('\n')).toEqual([]);
    await closePages();
  });
});
