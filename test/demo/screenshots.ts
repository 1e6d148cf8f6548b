// The screenshots in docs/demo.md, made from a local demo server in headless system Chromium:
// `npm run build:demo && node --import tsx test/demo/screenshots.ts` writes docs/images/demo-*.png.
// Four pages (alice, bob, carol, dave) and two bots (demo/bot/main.ts) in one match, a blast
// with its particles on alice's page, a fifth page in the lobby listing that match and a
// private one, and a phone-sized window with the touch controls. Exits non-zero, writing
// nothing more, if a page logs a console error or warning.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { hook, openDemo, ROOT, startDemoServer, until, type Browser } from '../helpers/demo-browser.ts';

const OUT = join(ROOT, 'docs/images');
const server = await startDemoServer();
const errors: string[] = [];
const browsers: Browser[] = [];
const bots = spawn(process.execPath, ['--import', 'tsx', 'demo/bot/main.ts', server.url, '2'], { cwd: ROOT, stdio: 'ignore' });

async function open(name: string, options: Parameters<typeof openDemo>[3] = {}): Promise<Page> {
  const b = await openDemo(server.url, name, errors, { viewport: { width: 640, height: 400 }, ...options });
  // Chromium's software GL reports "GL Driver Message (…): GPU stall due to ReadPixels" for each screenshot: the
  // browser's, not the page's (test/demo/bundle.test.ts ignores it too).
  const driver = (text: string): boolean => /^\[\.WebGL-0x[0-9a-f]+\]GL Driver Message \(OpenGL, Performance/.test(text);
  b.page.on('console', (m) => void (m.type() === 'warning' && !driver(m.text()) && errors.push(`${name} console warning: ${m.text()}`)));
  browsers.push(b);
  return b.page;
}
const joined = (page: Page, players: number): Promise<unknown> =>
  until(page, `${players} players`, (d) => d.ghosts('player').length, (n) => n >= players, 60_000, server.output);
const shot = async (page: Page, file: string): Promise<void> => {
  if (errors.length > 0) throw new Error(`screenshots: console errors or warnings:\n${errors.join('\n')}`);
  writeFileSync(join(OUT, file), await page.screenshot());
  console.log(`wrote docs/images/${file}`);
};

try {
  const alice = await open('alice');
  await joined(alice, 1);
  const others = [];
  for (const name of ['bob', 'carol', 'dave']) others.push(await open(name));
  for (const p of [alice, ...others]) await joined(p, 6);
  await alice.waitForTimeout(4000); // bots at the balls, cameras settled
  await shot(alice, 'demo-match.png');
  await shot(others[2]!, 'demo-match-other.png');
  // A grenade thrown ahead of alice (she faces away from the camera after a step), shot while its sparks fly.
  await alice.keyboard.down('KeyW');
  await alice.waitForTimeout(150);
  await alice.keyboard.up('KeyW');
  await hook(alice, (d) => d.press('fire'));
  const sparks = (d: unknown): number => (d as { particles: () => number }).particles();
  await until(alice, 'the explosion’s sparks', sparks, (n) => n > 0, 15_000, server.output);
  await shot(alice, 'demo-blast.png');
  // The lobby, with that match and a private one open elsewhere (not listed).
  await open('erin', { query: '&private' });
  const lobby = await open('frank', { lobby: true });
  await lobby.getByText(/6\s*\/\s*8|6 players/i).first().waitFor({ timeout: 30_000 }).catch(() => undefined);
  await lobby.waitForTimeout(1000);
  await shot(lobby, 'demo-lobby.png');
  const phone = await open('gwen', { viewport: { width: 390, height: 700 }, query: '&touch' });
  await joined(phone, 7);
  await phone.waitForTimeout(3000);
  await shot(phone, 'demo-phone.png');
} finally {
  bots.kill('SIGKILL');
  await Promise.all(browsers.map((b) => b.close()));
  server.stop();
}
