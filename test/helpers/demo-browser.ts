// The demo in headless system Chromium, for test/demo/e2e.test.ts: the demo server as
// `npm start` runs it (a child process, optionally with a conditioned link from the
// environment), pages with the `?debug` hook (demo/client/debug.tsx), CPU throttling
// over CDP until a target frame rate, and walking with the demo's own key bindings.
// Browsers are never downloaded: /usr/bin/chromium through playwright-core.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { waitFor } from './wait.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // several pages render at once: keep the ones not in front from being throttled
  '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
];

export interface Vec3 {
  x: number;
  y: number;
  z: number;
}
export interface GhostInfo {
  id: number;
  owner: number;
  origin: string;
  mode: string;
  spawnId?: number;
  colour: string;
  position: Vec3;
}
export interface DemoEvent {
  kind: string;
  spawnId: number;
  t: number;
  at?: Vec3;
}
export interface CorrectionInfo {
  ghostId: number;
  type: string;
  local: boolean;
  tick: number;
  fromTick: number;
  distance: number;
  cause: string;
  detail: string;
  t: number;
}
export interface NetInfo {
  rttMs: number;
  jitterMs: number;
  interpolationDelayTicks: number;
  inputsLate: number;
  inputsMissing: number;
  prediction: { skippedTicks: number; rollbacks: number } | undefined;
  spawns: { predicted: number; matched: number; rejected: number };
  correctionsByCause: Record<string, number>;
}
export interface DemoHook {
  client: { networkId: number | undefined; status: string };
  events: DemoEvent[];
  grenadeColours: Record<number, string[]>;
  explosions: { spawnId: number; at: Vec3; t: number }[];
  modes: { id: number; type: string; mode: string; t: number }[];
  corrections: CorrectionInfo[];
  frameTimes: number[];
  longFrames: { t: number; ms: number }[];
  press: (field: 'fire' | 'jump' | 'kick' | 'spawnBall') => void;
  frames: number;
  fps: () => number;
  net: () => NetInfo;
  ghosts: (type: string) => GhostInfo[];
  project: (id: number) => { x: number; y: number } | undefined;
  colourOf: (id: number) => string | undefined;
}
declare const window: { __demo?: DemoHook };

export interface DemoServer {
  url: string;
  /** The server's /healthz: connections, tick, tick timings and `overruns` (times its loop fell behind). */
  health: () => Promise<{ connections: number; tick: number; tickMeanMs: number; tickP99Ms: number; overruns: number; loopDelayMaxMs: number }>;
  /** Everything the server printed so far. */
  output: () => string;
  stop: () => void;
}

/** Start demo/server/main.ts on an ephemeral port with `env` added (e.g. DEMO_LINK_MS). */
export async function startDemoServer(env: Record<string, string> = {}): Promise<DemoServer> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'demo/server/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  // A game server has its own machine: here it shares two cores with the browsers under test, so it
  // gets the scheduler's preference where the OS allows it (root); otherwise it runs as it is.
  try {
    setPriority(child.pid!, -10);
  } catch {
    out += '(test: could not raise the demo server’s priority)\n';
  }
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => /listening on http:\/\/localhost:(\d+)/.test(out) || child.exitCode !== null, 'the demo server to listen', 30_000);
  if (child.exitCode !== null) throw new Error(`test: the demo server exited: ${out}`);
  const url = `http://127.0.0.1:${/localhost:(\d+)/.exec(out)![1]}`;
  return {
    url,
    health: async () => (await (await fetch(`${url}/healthz`)).json()) as Awaited<ReturnType<DemoServer['health']>>,
    output: () => out,
    stop: () => void (child.exitCode === null && child.kill('SIGKILL')),
  };
}

export interface Browser {
  page: Page;
  context: BrowserContext;
  cdp: () => Promise<CDPSession>;
  close: () => Promise<void>;
}

/** One browser per player (two tabs of one browser would leave the one behind throttled); `errors` collects console errors, page errors and HTTP failures. */
export async function openDemo(url: string, name: string, errors: string[], options: { viewport?: { width: number; height: number }; query?: string; loadTimeoutMs?: number; lobby?: boolean } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`test: ${CHROMIUM} is missing; install the system Chromium (apt-get install -y chromium). Browsers are never downloaded.`);
  const profile = mkdtempSync(join(tmpdir(), 'rn-demo-e2e-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: options.viewport ?? { width: 720, height: 450 } });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => void (m.type() === 'error' && errors.push(`${name} console: ${m.text()}`)));
  page.on('pageerror', (e) => void errors.push(`${name} pageerror: ${String(e)}`));
  page.on('response', (r) => void (r.status() >= 400 && errors.push(`${name} HTTP ${r.status()} ${r.url()}`)));
  // `?name=` quick-plays at once (or, with `&room=CODE`, joins that private match); `lobby: true` stays in the lobby.
  await page.goto(`${url}/?${options.lobby ? '' : `name=${name}&`}debug${options.query ?? ''}`, { timeout: options.loadTimeoutMs ?? 30_000 });
  let session: CDPSession | undefined;
  return {
    page,
    context,
    cdp: async () => (session ??= await context.newCDPSession(page)),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Runs `fn(window.__demo, arg)` in the page (`fn` is sent as source: it must not close over test variables). */
export const hook = <T, A = undefined>(page: Page, fn: (d: DemoHook, arg: A) => T, arg?: A): Promise<T> =>
  page.evaluate(([src, a]) => new Function('d', 'a', `return (${src})(d, a)`)(window.__demo, a) as T, [fn.toString(), arg] as const);

/** Polls `fn` in the page until `ok`; the error names `what`, the last value and `context()` (e.g. the server's output). */
export async function until<T>(page: Page, what: string, fn: (d: DemoHook) => T, ok: (v: T) => boolean, ms: number, context: () => string = () => ''): Promise<T> {
  const deadline = Date.now() + ms;
  let value: T | undefined;
  for (;;) {
    value = (await page.evaluate(() => window.__demo !== undefined)) ? await hook(page, fn) : undefined;
    if (value !== undefined && ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`test: timed out after ${ms} ms waiting for ${what}; last ${JSON.stringify(value)}; ${context()}`);
    await page.waitForTimeout(100);
  }
}

export interface Throttle {
  rate: number;
  fps: number;
  steps: string;
}

/**
 * CPU throttling over CDP (Emulation.setCPUThrottlingRate), raised step by step from 1×
 * until the page renders at most `tolerance` × `targetFps` (measured over the hook's 2 s
 * window), or 40× is reached. Each step multiplies the rate by fps/target, within 1.25–2.
 */
export async function throttleTo(b: Browser, targetFps: number, tolerance = 1.2): Promise<Throttle> {
  const cdp = await b.cdp();
  let rate = 1;
  const steps: string[] = [];
  for (;;) {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate });
    await b.page.waitForTimeout(2600); // a full fps window at the new rate
    const fps = await hook(b.page, (d) => d.fps());
    steps.push(`${rate}× → ${fps.toFixed(1)} fps`);
    if (fps <= targetFps * tolerance || rate >= 40) return { rate, fps, steps: steps.join(', ') };
    rate = Math.min(40, Math.round(rate * Math.min(2, Math.max(1.25, fps / targetFps)) * 4) / 4);
  }
}

/**
 * Keep the page near `targetFps` while the machine's load changes: every 5 s, re-measure and
 * move the CPU throttling by 1.25× (down below 0.8 × target, up above 1.2 × target, never below 1×).
 * `stop()` returns the rates used, in order.
 */
export function holdFps(b: Browser, targetFps: number, rate: number): { stop: () => Promise<number[]> } {
  const rates = [rate];
  let stopped = false;
  const loop = (async () => {
    const cdp = await b.cdp();
    while (!stopped) {
      await b.page.waitForTimeout(5000);
      if (stopped) break;
      const fps = await hook(b.page, (d) => d.fps());
      const next = fps < targetFps * 0.8 ? Math.max(1, rate / 1.25) : fps > targetFps * 1.2 ? rate * 1.25 : rate;
      if (next === rate) continue;
      rate = Math.round(next * 4) / 4;
      rates.push(rate);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate });
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return rates;
    },
  };
}

/** Keys of the demo's bindings (demo/client/netcode.ts): W A S D and the arrows. Eight directions and standing still. */
const DIRECTIONS: readonly (readonly string[])[] = [['KeyW'], ['KeyW', 'KeyD'], ['ArrowRight'], ['KeyS', 'KeyD'], ['ArrowDown'], ['KeyS', 'KeyA'], ['KeyA'], ['ArrowUp', 'ArrowLeft'], []];

/**
 * Walk for `ms` as a player would: hold a direction's keys for 1.5–3.5 s, release, pick
 * another (seeded; now and then standing still for a moment). Returns the keys pressed, in order.
 */
export async function walk(page: Page, ms: number, seed: number): Promise<string[]> {
  let s = seed >>> 0;
  const next = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 0x1_0000_0000);
  const start = Date.now();
  const log: string[] = [];
  let previous = -1;
  while (Date.now() - start < ms) {
    let i = Math.floor(next() * DIRECTIONS.length);
    if (i === previous) i = (i + 1) % DIRECTIONS.length;
    previous = i;
    const keys = DIRECTIONS[i]!;
    const hold = Math.min(1500 + next() * 2000, ms - (Date.now() - start));
    log.push(keys.length ? keys.join('+') : 'stand');
    for (const k of keys) await page.keyboard.down(k);
    await page.waitForTimeout(keys.length ? hold : Math.min(hold, 700));
    for (const k of keys) await page.keyboard.up(k);
  }
  return log;
}

/**
 * Polls the server's /healthz every 250 ms and returns when (Date.now()) it stalled: its event
 * loop ran more than `stallMs` late since the previous poll, or its tick loop fell behind (overruns grew).
 */
export function watchServerStalls(server: DemoServer, stallMs: number): { stop: () => Promise<{ at: number; what: string }[]> } {
  const stalls: { at: number; what: string }[] = [];
  let last: number | undefined;
  let polling = Promise.resolve();
  const timer = setInterval(() => {
    polling = polling.then(async () => {
      const { overruns, loopDelayMaxMs } = await server.health();
      if (last !== undefined && overruns > last) stalls.push({ at: Date.now(), what: `server tick loop fell behind (${overruns - last} overruns)` });
      else if (loopDelayMaxMs > stallMs) stalls.push({ at: Date.now(), what: `server event loop ${loopDelayMaxMs.toFixed(0)} ms late` });
      last = overruns;
    });
  }, 250);
  return {
    stop: async () => {
      clearInterval(timer);
      await polling;
      return stalls;
    },
  };
}
