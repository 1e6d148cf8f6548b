// A closed tab leaves at once, on the real path: the demo (built with vite) served by its
// server on 127.0.0.1, two players in headless system Chromium. Closing one page fires
// `pagehide`; the provider sends its Close over socket.io before the page goes, the server
// ends the connection (not a drop: no 10 s resume grace) and the other page stops drawing
// that player within a second (plus two of its frames). The figures measured are printed.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hook, openDemo, ROOT, startDemoServer, until, type Browser, type DemoHook, type DemoServer } from '../helpers/demo-browser.ts';

describe('leaving by closing the tab (headless Chromium, socket.io on 127.0.0.1)', { timeout: 120_000 }, () => {
  let server: DemoServer | undefined;
  const browsers: Browser[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'demo/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'pipe', env: { ...process.env, NODE_ENV: 'production' } }); // not vitest's NODE_ENV=test: the bundle players get
    server = await startDemoServer();
  }, 90_000);

  afterAll(async () => {
    await Promise.all(browsers.map((b) => b.close()));
    server?.stop();
  });

  it('the other player sees the closed one go within 1 s (the resume grace is 10 s), and the server logs the page-closed reason', async () => {
    const ann = await openDemo(server!.url, 'ann', errors);
    browsers.push(ann);
    const bob = await openDemo(server!.url, 'bob', errors);
    browsers.push(bob);
    const players = (d: DemoHook): number => d.ghosts('player').length;
    await until(ann.page, 'ann to see two players', players, (n) => n === 2, 30_000, server!.output);
    await until(bob.page, 'bob to see two players', players, (n) => n === 2, 30_000, server!.output);
    const annId = await hook(ann.page, (d) => d.client.networkId);

    // Bob's page notes (on its own clock, Date.now: the same as this process's) the first frame that no longer has ann.
    await bob.page.evaluate(() => {
      const w = window as unknown as { __demo: { ghosts(t: string): unknown[] }; __goneAt?: number };
      const poll = (): void => {
        if (w.__demo.ghosts('player').length === 1) w.__goneAt = Date.now();
        else requestAnimationFrame(poll);
      };
      requestAnimationFrame(poll);
    });
    const leftLog = (): boolean => server!.output().includes(`player ${annId} left`);
    const closedAt = Date.now();
    const watchLog = (async () => {
      while (!leftLog() && Date.now() - closedAt < 12_000) await new Promise((r) => setTimeout(r, 5));
      return leftLog() ? Date.now() - closedAt : Infinity;
    })();
    await ann.page.close();
    const closeMs = Date.now() - closedAt;
    const goneAt = await bob.page.waitForFunction(() => (window as unknown as { __goneAt?: number }).__goneAt, undefined, { polling: 50, timeout: 9_000 });
    const goneMs = ((await goneAt.jsonValue()) as number) - closedAt;
    const serverMs = await watchLog;
    const fps = await hook(bob.page, (d) => d.fps());
    console.log(`test: ann's page.close() took ${closeMs} ms; the server logged her leave after ${serverMs} ms; bob's page (${fps.toFixed(0)} fps) stopped drawing her after ${goneMs} ms`);
    // The server ends the connection as soon as the Close arrives; bob drops her with the next snapshot,
    // drawn at his next frame (software-rendered pages on a loaded machine may run at 5 fps: two frames of slack).
    expect(serverMs).toBeLessThan(1000);
    expect(goneMs).toBeLessThan(1000 + 2000 / Math.max(1, fps));
    expect(server!.output()).toContain(`player ${annId} left: react-netcode: the page was closed`);
    expect(errors.filter((e) => e.startsWith('bob'))).toEqual([]);
  });
});
