// Headless system Chromium ↔ the demo server over a WebRTC data channel, both inside a
// network namespace this test creates (WebRTC does not connect over loopback alone; the
// machine's own interfaces are never used). The demo server runs from this branch with
// DEMO_WEBRTC=1 on 10.213.0.1; Chromium (/usr/bin/chromium, never a downloaded browser) is
// started inside the namespace through a small wrapper script and opens the demo with
// ?webrtc. The stats prove which path carried the game: the page's transport reports
// 'webrtc', its data channel counters grow with the snapshots it receives, and the
// server's /healthz counts the connection as on WebRTC. Skipped, with the reason, where a
// namespace cannot be created. ≈ 30–60 s (most of it the demo build and the page's start).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { createNetns, type Netns } from '../../bench/webrtc/netns.ts';
import { ROOT } from '../helpers/demo-browser.ts';
import { waitFor } from '../helpers/wait.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const made = existsSync(CHROMIUM) ? createNetns() : { skip: `${CHROMIUM} is missing (apt-get install -y chromium; browsers are never downloaded)` };
const netns: Netns | undefined = 'skip' in made ? undefined : made;
const cleanups: (() => void)[] = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
  netns?.remove();
});

interface PageStats {
  status: string;
  path: string | undefined;
  datagramsIn: number;
  datagramsOut: number;
  snapshotsIn: number;
  setupMs: number | undefined;
  fallback: string | undefined;
}

function startServer(ns: Netns): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const child = spawn(ns.prefix[0]!, [...ns.prefix.slice(1), process.execPath, '--import', 'tsx', 'demo/server/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: ns.host, DEMO_WEBRTC: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  cleanups.push(() => void child.kill('SIGKILL'));
  return waitFor(() => /listening on http:\/\/localhost:(\d+)/.test(out) || child.exitCode !== null, 'the demo server to listen', 30_000).then(() => {
    if (child.exitCode !== null) throw new Error(`test: the demo server exited: ${out}`);
    return { url: `http://${ns.host}:${/localhost:(\d+)/.exec(out)![1]}`, child, output: () => out };
  });
}

describe.skipIf(netns === undefined)(`WebRTC: Chromium ↔ demo server in a network namespace${'skip' in made ? ` — skipped: ${made.skip}` : ''}`, () => {
  it('the game runs over the data channel, and the stats of both sides say so', { timeout: 150_000 }, async () => {
    const ns = netns!;
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'demo/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'pipe' });
    const demo = await startServer(ns);
    const dir = mkdtempSync(join(tmpdir(), 'rnc-webrtc-chromium-'));
    const wrapper = join(dir, 'chromium-in-netns');
    writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${ns.name} ${CHROMIUM} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const context: BrowserContext = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: wrapper, headless: true, args: ARGS, viewport: { width: 480, height: 300 } });
    cleanups.push(async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const errors: string[] = [];
    page.on('pageerror', (e) => void errors.push(String(e)));
    await page.goto(`${demo.url}/?name=rtc&debug&webrtc`, { timeout: 60_000 });
    const read = (): Promise<PageStats> =>
      page.evaluate(() => {
        const c = (window as unknown as { __demo?: { client: { status: string; transportStats?: Record<string, unknown>; traffic: { snapshotsIn: number } } } }).__demo?.client;
        const s = c?.transportStats ?? {};
        return {
          status: c?.status ?? 'no hook',
          path: s.unreliablePath as string | undefined,
          datagramsIn: Number(s.datagramsIn ?? 0),
          datagramsOut: Number(s.datagramsOut ?? 0),
          snapshotsIn: c?.traffic.snapshotsIn ?? 0,
          setupMs: s.unreliableSetupMs as number | undefined,
          fallback: s.fallbackReason as string | undefined,
        };
      });
    let last: PageStats | undefined;
    const until = Date.now() + 60_000;
    while (Date.now() < until) {
      last = await read();
      if ((last.status === 'in-game' && last.path === 'webrtc') || last.fallback !== undefined) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const why = (): string => JSON.stringify({ last, errors, server: demo.output().slice(-2000) });
    expect(last?.path, why()).toBe('webrtc');
    expect(last?.status, why()).toBe('in-game');
    const health = (): Promise<{ connections: number; webrtc: number }> => page.evaluate(async () => (await (await fetch('/healthz')).json()) as { connections: number; webrtc: number });
    // the server's side of the channel opens about when the page's does: from then on, everything unreliable goes over it
    for (let i = 0; i < 40 && (await health()).webrtc !== 1; i++) await new Promise((r) => setTimeout(r, 250));
    const before = await read();
    await new Promise((r) => setTimeout(r, 3000));
    const after = await read();
    const server = await health();
    console.log(`chromium: data channel open after ${before.setupMs} ms; in 3 s: ${after.snapshotsIn - before.snapshotsIn} snapshots, ${after.datagramsIn - before.datagramsIn} datagrams in, ${after.datagramsOut - before.datagramsOut} out; server: ${JSON.stringify(server)}`);
    expect(after.path, why()).toBe('webrtc');
    const snapshots = after.snapshotsIn - before.snapshotsIn;
    expect(snapshots, why()).toBeGreaterThan(10); // the demo sends 20–30 per second; software WebGL slows the page
    // every unreliable write the server made reached the page as a datagram: at least one per snapshot
    expect(after.datagramsIn - before.datagramsIn, why()).toBeGreaterThanOrEqual(snapshots);
    expect(after.datagramsOut - before.datagramsOut, why()).toBeGreaterThan(10); // the page's inputs and acks went out on it
    expect(server, why()).toEqual(expect.objectContaining({ connections: 1, webrtc: 1 }));
    expect(errors, why()).toEqual([]);
  });
});
