// The game played over the real path (issue 21, items 7 and 8): the demo server, headless
// bots (demo/bot/main.ts, real socket.io clients without prediction) and system Chromium
// pages. 1. Two pages and two bots play a match until someone scores: both pages' scoreboards
// show the goal; no console error or warning. 2. The frame budget: one page with seven bots
// and 30 balls, the netcode's work per rendered frame (demo/client/frame-cost.tsx) measured
// in the page over 600 frames, the scene updated but not drawn (`&nodraw`, so the page runs at the
// display's 60 fps as on a player's GPU; DEMO_FRAME_DRAW=1 draws with software WebGL, 120 frames
// at 4–25 fps); its median and p95 are printed (the budget is a p95 of 2 ms; see docs/demo.md
// for this machine's figures). The frame budget runs only with DEMO_FRAME_BUDGET=1 (about a minute;
// several drawn). It also prints the ticks a frame simulated (first-time and resimulated) and the
// client's clock; DEMO_FRAME_PROFILE=file.cpuprofile writes the page's CPU profile over the measured
// frames (Chrome DevTools' Profiler, 200 µs sampling).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hook, openDemo, ROOT, startDemoServer, until, type Browser, type DemoServer } from '../helpers/demo-browser.ts';

const FRAMES = 120;
interface Cost { frames: number; medianMs: number; p95Ms: number; maxMs: number }
type Split = { frames: number; medianMs: number; p95Ms: number };
type Hooked = { frameCost: () => Cost; frameCostSplit: () => { rolledBack: Split; others: Split }; resetFrameCost: () => void };
type Mispredicted = Record<string, number>;
type Ticks = { last: number; resimulated: number; rollbacks: number };
/** Goals on a page's scoreboard (red + blue). */
async function goals(page: Page): Promise<number> {
  const read = async (id: string): Promise<number> => Number((await page.getByTestId(id).textContent()) ?? 'NaN');
  return (await read('score-red')) + (await read('score-blue'));
}

describe('demo played by bots and pages', { timeout: 240_000 }, () => {
  let server: DemoServer | undefined;
  const bots: ChildProcess[] = [];
  const browsers: Browser[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'demo/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'pipe', env: { ...process.env, NODE_ENV: 'production' } });
  }, 90_000);

  afterAll(async () => {
    await Promise.all(browsers.map((b) => b.close()));
    for (const b of bots) b.kill('SIGKILL');
    server?.stop();
  });

  function startBots(count: number, env: Record<string, string> = {}): ChildProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', 'demo/bot/main.ts', server!.url, String(count)], { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'ignore' });
    bots.push(child);
    return child;
  }

  async function open(name: string, viewport?: { width: number; height: number }, query = ''): Promise<Page> {
    const b = await openDemo(server!.url, name, errors, { ...(viewport ? { viewport } : {}), query });
    browsers.push(b);
    b.page.on('console', (m) => void (m.type() === 'warning' && !/GL Driver Message/.test(m.text()) && errors.push(`${name} warning: ${m.text()}`)));
    await until(b.page, `${name} to join`, (d) => d.client.status, (s) => s === 'in-game', 60_000);
    return b.page;
  }

  it('two pages and two bots play until a goal; both scoreboards show it', async () => {
    server = await startDemoServer();
    const ann = await open('ann');
    const ben = await open('ben');
    startBots(2);
    const started = Date.now();
    // The bots chase the balls and kick them at the other goal (the pages stand still).
    await until(ann, 'a goal', (d) => d.ghosts('player').length, (n) => n === 4, 30_000);
    for (;;) {
      if ((await goals(ann)) > 0) break;
      if (Date.now() - started > 180_000) throw new Error(`test: no goal in 180 s; ann's scoreboard "${await ann.getByTestId('scoreboard').textContent()}"`);
      await ann.waitForTimeout(1000);
    }
    const seconds = (Date.now() - started) / 1000;
    // Ben's scoreboard shows it too (it refreshes 5 times a second; the snapshot may arrive a little later).
    let onBen = 0;
    for (let i = 0; i < 20 && onBen === 0; i++) {
      await ben.waitForTimeout(250);
      onBen = await goals(ben);
    }
    console.log(`first goal after ${seconds.toFixed(0)} s: ann's scoreboard "${await ann.getByTestId('scoreboard').textContent()}", ben's "${await ben.getByTestId('scoreboard').textContent()}"`);
    expect(onBen).toBeGreaterThan(0);
    expect(errors, errors.join('\n')).toEqual([]);
    await Promise.all(browsers.splice(0).map((b) => b.close()));
    for (const b of bots.splice(0)) b.kill('SIGKILL');
    server.stop();
  });

  // A measurement, ≈ 3 minutes on software WebGL: run it with DEMO_FRAME_BUDGET=1 (not in CI by default).
  it.skipIf(process.env.DEMO_FRAME_BUDGET === undefined)('frame budget: one page, seven bots, 30 balls — the netcode’s work per frame, measured', async () => {
    server = await startDemoServer();
    startBots(7, { BOT_BALLS: '30' });
    // By default the page updates its scene every frame but does not draw it (`&nodraw`): software WebGL would take
    // the main thread (4–25 fps here), where a player's GPU leaves it free, so the page runs at the display's rate.
    // DEMO_FRAME_DRAW=1 draws; DEMO_FRAME_VIEWPORT=WxH (default 720x450) sets the page's size.
    const draw = process.env.DEMO_FRAME_DRAW === '1';
    const frames = draw ? FRAMES : 600;
    const [w, h] = (process.env.DEMO_FRAME_VIEWPORT ?? '720x450').split('x').map(Number);
    const page = await open('solo', { width: w!, height: h! }, draw ? '' : '&nodraw');
    await until(page, 'seven bots and 30 balls', (d) => [d.ghosts('player').length, d.ghosts('ball').length], ([p, b]) => p! >= 8 && b! >= 30, 90_000);
    // The page walks to the centre spot, where the bots chase the balls, and stands there: balls come
    // and go within its prediction radius and the bots bump them (it joined on its kickoff spot, 8 m away).
    const at = await hook(page, (d) => d.ghosts('player').find((p) => p.owner === d.client.networkId)!.position);
    const walk = async (key: string, metres: number): Promise<void> => {
      if (Math.abs(metres) < 0.3) return;
      await page.keyboard.down(key);
      await page.waitForTimeout((Math.abs(metres) / 6) * 1000); // 6 m/s
      await page.keyboard.up(key);
    };
    await walk(at.x > 0 ? 'KeyA' : 'KeyD', at.x); // A/D: −x/+x
    await walk(at.z > 0 ? 'KeyW' : 'KeyS', at.z); // W/S: −z/+z
    const centre = await hook(page, (d) => d.ghosts('player').find((p) => p.owner === d.client.networkId)!.position);
    await page.waitForTimeout(1000);
    const ticks = (): Promise<Ticks> => hook(page, (d) => {
      const p = (d.client as unknown as { prediction?: { lastTick?: number; stats: { resimulatedTicks: number; rollbacks: number } } }).prediction;
      return { last: p?.lastTick ?? 0, resimulated: p?.stats.resimulatedTicks ?? 0, rollbacks: p?.stats.rollbacks ?? 0 };
    });
    const profileTo = process.env.DEMO_FRAME_PROFILE;
    const cdp = profileTo === undefined ? undefined : await browsers.at(-1)!.cdp();
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    await hook(page, (d) => (d as unknown as Hooked).resetFrameCost());
    // What the rollbacks correct: the mispredicted fields (type.field) over the measured frames.
    await hook(page, (d) => {
      const counts: Mispredicted = {};
      (window as unknown as { __mispredicted: Mispredicted }).__mispredicted = counts;
      const p = (d.client as unknown as { prediction?: { events: { on: (e: 'misprediction', f: (m: { type: string; field: string }) => void) => void } } }).prediction;
      p?.events.on('misprediction', (m) => void (counts[`${m.type}.${m.field}`] = (counts[`${m.type}.${m.field}`] ?? 0) + 1));
    });
    const t0 = await ticks();
    // Software WebGL draws this scene at 1–3 fps here: 120 frames.
    await until(page, `${frames} frames measured`, (d) => (d as unknown as Hooked).frameCost().frames, (n) => n >= frames, 150_000);
    const cost = await hook(page, (d) => (d as unknown as Hooked).frameCost());
    const split = await hook(page, (d) => (d as unknown as Hooked).frameCostSplit());
    const mispredicted = await hook(page, () => ({ ...(window as unknown as { __mispredicted: Mispredicted }).__mispredicted }));
    const predictedBalls = await hook(page, (d) => d.ghosts('ball').filter((b) => b.mode === 'predicted').length);
    const t1 = await ticks();
    if (cdp) writeFileSync(profileTo!, JSON.stringify((await cdp.send('Profiler.stop')).profile));
    const fps = await hook(page, (d) => d.fps());
    const clock = await hook(page, (d) => {
      const c = (d.client as unknown as { clock: { rttMs: number; leadTicks: number; slackTicks: number; frameLagTicks: number; inputDelayTicks: number } }).clock;
      return `rtt ${c.rttMs.toFixed(1)} ms, lead ${c.leadTicks.toFixed(1)} ticks (slack ${c.slackTicks.toFixed(1)}, frame lag ${c.frameLagTicks.toFixed(1)}, input delay ${c.inputDelayTicks})`;
    });
    console.log(`frame budget clock: ${clock}`);
    const perFrame = (n: number): string => (n / cost.frames).toFixed(1);
    console.log(`frame budget (${draw ? 'drawn' : 'not drawn'}, ${w}x${h}): ${cost.frames} frames at ${fps.toFixed(1)} fps, netcode per frame median ${cost.medianMs.toFixed(2)} ms, p95 ${cost.p95Ms.toFixed(2)} ms, max ${cost.maxMs.toFixed(2)} ms; per frame ${perFrame((t1.last - t0.last) >>> 0)} first-time ticks, ${perFrame(t1.resimulated - t0.resimulated)} resimulated in ${perFrame(t1.rollbacks - t0.rollbacks)} rollbacks`);
    const part = (x: Split): string => `${x.frames} frames, median ${x.medianMs.toFixed(2)} ms, p95 ${x.p95Ms.toFixed(2)} ms`;
    console.log(`frame budget split: rolled back ${part(split.rolledBack)}; the others ${part(split.others)}; mispredicted ${JSON.stringify(mispredicted)}; ${predictedBalls} balls predicted at the end; the page at (${centre.x.toFixed(1)}, ${centre.z.toFixed(1)})`);
    // The budget the issue sets is p95 ≤ 2 ms; this machine's figure is printed (docs/demo.md, Frame budget) and
    // checked here only for being a measurement: the page can be far slower than a player's.
    expect(cost.frames).toBeGreaterThanOrEqual(frames);
    expect(Number.isFinite(cost.p95Ms) && cost.p95Ms > 0).toBe(true);
    expect(errors, errors.join('\n')).toEqual([]);
  });
});
