// `npm run dev`: the game server (tsx, restarted by tsx watch on change) on
// DEMO_SERVER_PORT (default 3000) plus the Vite dev server (hot reload) on
// DEMO_CLIENT_PORT (default 5173), which proxies /netcode and /healthz to the game
// server. Open the Vite URL. Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));
const serverPort = process.env.DEMO_SERVER_PORT ?? '3000';
process.env.DEMO_SERVER_PORT = serverPort;

const game = spawn(process.execPath, [fileURLToPath(new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url)), 'watch', 'demo/server/main.ts'], {
  cwd: root,
  env: { ...process.env, PORT: serverPort },
  stdio: 'inherit',
});

const vite = await createServer({ configFile: fileURLToPath(new URL('./vite.config.ts', import.meta.url)) });
await vite.listen();
vite.printUrls();

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  game.kill('SIGTERM');
  await vite.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
game.on('exit', (code) => {
  if (!stopping) {
    console.error(`demo: the game server exited (${code ?? 'signal'})`);
    void stop();
  }
});
