// Vite config of the demo's browser client (demo/client → demo/dist).
// `npm run build:demo` builds it, `npm start` builds and serves it from the demo
// server, `npm run dev` runs this dev server with /netcode and /matchmake proxied to the game server.
// The aliases let code import the library as a user would ('react-netcode/react', …)
// straight from src/, without building the package first.

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const src = (path: string): string => fileURLToPath(new URL(`../src/${path}`, import.meta.url));
const gameServer = process.env.DEMO_SERVER_URL ?? `http://localhost:${process.env.DEMO_SERVER_PORT ?? 3000}`;

export default defineConfig({
  root: fileURLToPath(new URL('./client', import.meta.url)),
  base: '/',
  resolve: {
    alias: [
      { find: /^react-netcode$/, replacement: src('index.ts') },
      { find: /^react-netcode\/react$/, replacement: src('react/index.ts') },
      { find: /^react-netcode\/r3f$/, replacement: src('r3f/index.ts') },
      { find: /^react-netcode\/rooms$/, replacement: src('rooms/index.ts') },
      // The browser imports the client transport alone (react-netcode/socket-io/client): the
      // whole entry also re-exports the socket.io *server* transport, which a production build
      // tree-shakes away but the dev server does not (it throws in a browser: Buffer is not defined).
      { find: /^react-netcode\/socket-io\/client$/, replacement: src('socket-io/client.ts') },
      { find: /^react-netcode\/socket-io$/, replacement: src('socket-io/index.ts') },
      { find: /^react-netcode\/webrtc\/client$/, replacement: src('webrtc/client.ts') },
    ],
    // Not zustand: the library uses zustand 5 (the root one) and leva its own zustand 3
    // (node_modules/leva/node_modules); deduping would hand leva the wrong major.
    dedupe: ['react', 'react-dom', 'three', '@react-three/fiber'],
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    // Rapier's chunk is ≈ 2.2 MB (its WASM inlined as base64 by the -compat build); it loads with the game, never with the lobby.
    chunkSizeWarningLimit: 2400,
    rolldownOptions: {
      output: {
        // Code splitting: the lobby (App.tsx) is the entry; the game (Session.tsx: three, R3F, the netcode)
        // and the tuning panel (TuningPanel.tsx: leva) are lazy imports; Rapier, imported by the game's
        // shared systems, gets a chunk of its own so that the game's code can change without re-fetching it.
        codeSplitting: { groups: [{ name: 'rapier', test: /[\\/]@dimforge[\\/]rapier3d-compat[\\/]/ }] },
      },
      // leva's dependencies (@radix-ui/*) open with "use client", a React Server Components directive that
      // means nothing in a client bundle; rolldown warns that it drops it. Only those, and only from node_modules.
      onLog(level, log, handler) {
        if (log.code === 'MODULE_LEVEL_DIRECTIVE' && /[\\/]node_modules[\\/]/.test(log.id ?? log.message)) return;
        handler(level, log);
      },
    },
  },
  server: {
    port: Number(process.env.DEMO_CLIENT_PORT ?? 5173),
    proxy: {
      // A regex, not the '/netcode' prefix: that would also send the client's own module /netcode.ts to the game server.
      '^/netcode/': { target: gameServer, ws: true, changeOrigin: true },
      '/healthz': { target: gameServer },
      '/matchmake': { target: gameServer },
    },
  },
});
